"""Quoting for the SQL the pipeline writes itself: a DuckDB identifier and a string literal,
each escaped the one way DuckDB reads it (a doubled quote), so no name or value from data can
end the token it is put in."""


def q(identifier: str) -> str:
    """``identifier`` as a quoted DuckDB identifier."""
    return '"' + identifier.replace('"', '""') + '"'


def literal(text: str) -> str:
    """``text`` as a DuckDB string literal."""
    return "'" + text.replace("'", "''") + "'"


def new_table(con, target: str, columns: dict[str, str], temporary: bool = False) -> None:
    """``target`` (a quoted name) as a new, empty table of ``columns`` (name -> type)."""
    con.execute(f"create or replace {'temp ' if temporary else ''}table {target} "
                f"({', '.join(f'{q(c)} {t}' for c, t in columns.items())})")


def insert_frame(con, target: str, frame) -> None:
    """Append the rows of ``frame`` (a pandas DataFrame) to ``target`` (a quoted name), its
    columns matched by name: one statement, not one a row."""
    if not len(frame):
        return
    con.register("_frame", frame)
    try:
        con.execute(f"insert into {target} by name select * from _frame")
    finally:
        con.unregister("_frame")
