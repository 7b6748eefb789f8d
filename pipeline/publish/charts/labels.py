"""Value labels that do not cover each other: each goes to the first of its candidate places
that overlaps no label placed before it (the first candidate when every one is taken).

A label's box is measured as the charts wrap text: svg.CHAR_PX a character, 11 px type from 8.5 px
above its baseline to 2.5 px below.
"""
from __future__ import annotations

from pipeline.publish.charts import svg

Box = tuple[float, float, float, float]


def text_box(text: str, x: float, y: float, anchor: str) -> Box:
    w = len(text) * svg.CHAR_PX
    x0 = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
    return (x0, y - 8.5, x0 + w, y + 2.5)


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class Placer:
    def __init__(self, taken: list[Box] = ()):
        self.taken = list(taken)        # areas no label may cover (e.g. the axis's tick labels)

    def place(self, text: str, candidates: list[tuple[float, float, str]]) -> tuple[float, float, str]:
        """(x, y, anchor) for ``text``: the first candidate free of every placed label."""
        chosen = next((c for c in candidates
                       if not any(_overlap(text_box(text, *c), b) for b in self.taken)), candidates[0])
        self.taken.append(text_box(text, *chosen))
        return chosen
