"""Quoting for the SQL the pipeline writes itself: a DuckDB identifier and a string literal,
each escaped the one way DuckDB reads it (a doubled quote), so no name or value from data can
end the token it is put in."""


def q(identifier: str) -> str:
    """``identifier`` as a quoted DuckDB identifier."""
    return '"' + identifier.replace('"', '""') + '"'


def literal(text: str) -> str:
    """``text`` as a DuckDB string literal."""
    return "'" + text.replace("'", "''") + "'"
