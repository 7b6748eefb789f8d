"""How a failed check's rows are told: in the build's summary, on Data quality, in a withheld
campaign's reason."""
from __future__ import annotations


def describe_failures(names: list[str], rows: list[tuple], shown: int = 3) -> str:
    """The first ``shown`` failing rows as ``column=value`` lists, and how many more there are."""
    text = "; ".join(", ".join(f"{n}={v}" for n, v in zip(names, r)) for r in rows[:shown])
    if len(rows) > shown:
        text += f"; (and {len(rows) - shown} more row(s))"
    return text


def withhold_reason(statement: str, fix: str | None, names: list[str], rows: list[tuple]) -> str:
    """A blocking check's reason for withholding a campaign: what must hold, how many rows fail,
    the first of them, and what would make them pass."""
    advice = f". To fix: {fix}" if fix else ""
    return f"{statement} — {len(rows)} failing row(s): {describe_failures(names, rows)}{advice}"
