"""The questions ``collect scaffold`` asks: each has a key (``links.lan.class``), an answer
checked like the manifest would check it, and what leaving it unanswered costs the page.

An answer comes from ``--set KEY=VALUE`` first, then from the user at a terminal, then from
the default (which the files or the collectors' file names suggest); a question with no
answer leaves its field out of the manifest, and the summary says what that leaves
*not measured*.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Callable

from pipeline.collect.campaign import CollectError


@dataclass
class Answer:
    key: str
    value: object
    source: str          # --set, you, default, none
    unset_means: str = ""


@dataclass
class Asker:
    answers: dict                         # --set KEY=VALUE, consumed as asked
    interactive: bool
    ask: Callable[[str], str] = input
    say: Callable[[str], None] = print
    record: list[Answer] = field(default_factory=list)

    def __call__(self, key: str, question: str, default=None, check: Callable | None = None,
                 unset_means: str = "", optional: bool = False):
        """The answer to one question (``check`` turns the text into the value or raises
        ValueError / argparse.ArgumentTypeError with what is allowed)."""
        check = check or (lambda text: text)
        if key in self.answers:
            text = self.answers.pop(key)
            try:
                value = check(text) if text != "" else None
            except (ValueError, argparse.ArgumentTypeError) as exc:
                raise CollectError(f"--set {key}={text!r}: {exc}") from None
            return self._keep(key, value, "--set", unset_means)
        if self.interactive:
            return self._prompt(key, question, default, check, unset_means, optional)
        return self._keep(key, default, "default" if default is not None else "none", unset_means)

    def _prompt(self, key, question, default, check, unset_means, optional):
        shown = f" [{default}]" if default is not None else (" [leave empty: none]" if optional else "")
        while True:
            text = self.ask(f"{question} ({key}){shown}: ").strip()
            if not text:
                return self._keep(key, default, "default" if default is not None else "none",
                                  unset_means)
            try:
                return self._keep(key, check(text), "you", unset_means)
            except (ValueError, argparse.ArgumentTypeError) as exc:
                self.say(f"  {exc}; try again (empty: {default if default is not None else 'none'})")

    def _keep(self, key, value, source, unset_means):
        self.record.append(Answer(key, value, source, unset_means))
        return value

    def leftover(self) -> None:
        """A --set no question asked for is a typo, not something to ignore."""
        if self.answers:
            asked = ", ".join(a.key for a in self.record) or "none"
            raise CollectError(f"--set {', '.join(sorted(self.answers))}: no such question for this "
                               f"folder (the questions were: {asked}); nothing written")

    def summary(self) -> list[str]:
        lines = []
        for a in self.record:
            if a.value is None:
                if a.unset_means:
                    lines.append(f"  not set: {a.key}: {a.unset_means}")
            else:
                lines.append(f"  {a.key} = {a.value} ({a.source})")
        return lines


def one_of(choices) -> Callable[[str], str]:
    def check(text: str) -> str:
        if text not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return text
    return check


def yes_no(text: str) -> bool:
    if text.lower() in ("y", "yes", "true"):
        return True
    if text.lower() in ("n", "no", "false"):
        return False
    raise ValueError("expected yes or no")


def whole(text: str) -> int:
    if not text.isdigit():
        raise ValueError("expected a whole number")
    return int(text)


def parse_sets(pairs: list[str]) -> dict:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CollectError(f"--set {pair!r}: expected KEY=VALUE, e.g. links.lan.class=1gbe")
        out[key.strip()] = value.strip()
    return out
