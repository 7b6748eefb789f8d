"""SQL mutants: small, realistic mistakes applied to one ``sql/`` file at a time.

Tokens come from DuckDB's own tokenizer (``duckdb.tokenize``), so nothing inside a comment or a
string literal is mutated. The kinds, each a mistake a reviewer could make:

- ``compare``: ``<`` ↔ ``<=``, ``>`` ↔ ``>=``, ``=`` → ``<>``;
- ``constant``: a factor 8 → 1 (bits/bytes), 1024 ↔ 1000 (binary/decimal prefixes);
- ``aggregate``: ``median`` → ``min``, ``avg`` → ``min``, ``min`` ↔ ``max``, ``sum`` → ``max``;
- ``filter``: a ``where`` / ``qualify`` / ``having`` that keeps every row (``where true or …``);
- ``group``: the second column dropped from a ``partition by`` / ``group by`` list;
- ``swap``: one identifier's ``tx``/``rx``, ``head_to_worker``/``worker_to_head``,
  ``sent``/``received``, ``start``/``end`` half swapped for the other.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

COMPARE = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "=": "<>"}
CONSTANT = {"8": "1", "1024": "1000", "1000": "1024"}
AGGREGATE = {"median": "min", "avg": "min", "min": "max", "max": "min", "sum": "max"}
SWAPS = [("tx_", "rx_"), ("head_to_worker", "worker_to_head"), ("sent_", "received_"),
         ("start_", "end_")]
FILTERS = {"where", "qualify", "having"}


@dataclass(frozen=True)
class Mutant:
    file: str          # relative to the project root
    kind: str
    offset: int        # where the replaced text starts
    old: str
    new: str
    line: int
    nth: int = 0       # 1, 2, … when one line has more than one mutant of the same name

    @property
    def name(self) -> str:
        base = f"{self.file}:{self.line}:{self.kind}:{self.old.strip()}->{self.new.strip()}"
        return f"{base}#{self.nth}" if self.nth else base

    def apply(self, text: str) -> str:
        assert text[self.offset:self.offset + len(self.old)] == self.old, self.name
        return text[:self.offset] + self.new + text[self.offset + len(self.old):]


def _tokens(sql: str) -> list[tuple[int, str, str]]:
    """(offset, type, text) of every token, text without the whitespace after it. DuckDB gives
    byte offsets into the UTF-8 text; they are turned into character offsets (a '§' or '→' in
    a comment would otherwise shift every later mutant)."""
    data = sql.encode("utf-8")
    raw = duckdb.tokenize(sql)
    out = []
    for i, (start, kind) in enumerate(raw):
        end = raw[i + 1][0] if i + 1 < len(raw) else len(data)
        at = len(data[:start].decode("utf-8"))
        out.append((at, str(kind).rsplit(".", 1)[-1], data[start:end].decode("utf-8").rstrip()))
    return out


def mutants_of(rel: str, sql: str) -> list[Mutant]:
    toks = _tokens(sql)
    found: list[Mutant] = []

    def add(kind: str, offset: int, old: str, new: str) -> None:
        found.append(Mutant(rel, kind, offset, old, new, sql.count("\n", 0, offset) + 1))

    for i, (at, kind, text) in enumerate(toks):
        low = text.lower()
        nxt = toks[i + 1][2] if i + 1 < len(toks) else ""
        if kind == "operator" and text in COMPARE:
            add("compare", at, text, COMPARE[text])
        elif kind == "numeric_const" and text in CONSTANT:
            add("constant", at, text, CONSTANT[text])
        elif kind in ("identifier", "keyword") and low in AGGREGATE and nxt == "(":
            add("aggregate", at, text, AGGREGATE[low])
        elif kind == "keyword" and low in FILTERS:
            add("filter", at, text, f"{text} true or")
        elif kind == "keyword" and low == "by" and i > 0 and toks[i - 1][2].lower() in ("partition", "group"):
            # by <col> , <col>[.<col>] : drop ", <second column>"
            j = i + 1
            while j + 2 < len(toks) and toks[j + 1][2] == ".":
                j += 2
            if j + 2 < len(toks) and toks[j][1] == "identifier" and toks[j + 1][2] == "," \
                    and toks[j + 2][1] == "identifier":
                k = j + 2
                while k + 2 < len(toks) and toks[k + 1][2] == ".":
                    k += 2
                start, stop = toks[j + 1][0], toks[k][0] + len(toks[k][2])
                add("group", start, sql[start:stop], "")
        if kind == "identifier":
            for a, b in SWAPS:
                for x, y in ((a, b), (b, a)):
                    if x in low:
                        add("swap", at, text, text.replace(x, y, 1))
                        break
                else:
                    continue
                break
    return found


def _numbered(found: list[Mutant]) -> list[Mutant]:
    """Mutants whose names would be the same (two ``=`` on one line) numbered in file order."""
    from collections import Counter
    from dataclasses import replace
    counts, seen, out = Counter(m.name for m in found), Counter(), []
    for m in found:
        if counts[m.name] > 1:
            seen[m.name] += 1
            m = replace(m, nth=seen[m.name])
        out.append(m)
    return out


def discover(root: Path) -> list[Mutant]:
    out: list[Mutant] = []
    for path in sorted((root / "sql").rglob("*.sql")):
        rel = path.relative_to(root).as_posix()
        out.extend(_numbered(mutants_of(rel, path.read_text())))
    return out
