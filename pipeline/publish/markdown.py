"""Markdown that no value from data can break: data text escaped for Markdown and HTML, code
blocks no value can close, and the Jinja environment of the templates, whose every printed
value and filter goes through them (and is noted in the figures ledger)."""
from __future__ import annotations

import functools
import html
import re
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from pipeline.publish.figures.tracked import note
from pipeline.publish.filters import FILTERS, NOT_MEASURED
from pipeline.publish.template_cache import attach

_MD_SPECIAL = {"|": "&#124;", "`": "&#96;", "*": "&#42;", "[": "&#91;",
               "]": "&#93;", "{": "&#123;", "}": "&#125;", "\\": "&#92;", "$": "&#36;"}


# Characters a reader cannot see but that change what is shown: C0/C1 controls and the Unicode
# bidirectional controls (U+202E shows "cod.exe" for "exe.doc"); shown as \uXXXX instead
_INVISIBLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f"
                        "\u202a-\u202e\u2066-\u2069]")


def escape_text(value: str) -> str:
    """Data text as inert Markdown: no HTML, no table breaks, no emphasis, one line, nothing
    invisible (a control or bidirectional character is shown as its \\uXXXX escape; so is a
    line break, which would otherwise look like a space: "a\\u000ab" is not "a b")."""
    text = _INVISIBLE.sub(lambda m: f"\\u{ord(m[0]):04x}", value)
    text = html.escape(text, quote=True)
    text = "".join(_MD_SPECIAL.get(ch, ch) for ch in text)
    # An underscore inside a word is literal in Python-Markdown; one at a word edge could
    # open or close emphasis, so only those are escaped (keeps q8_0 readable in the source).
    return re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", "&#95;", text)


def _finalize(value):
    # a value printed as it is: data text escaped; a figure noted (pipeline/publish/figures/tracked.py)
    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return Markup(note(value, escape_text(value)))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Markup(note(value, str(value)))
    return value


def _safe(fn):
    def wrapper(*args, **kwargs):
        text = fn(*args, **kwargs)
        return Markup(note(args[0], text, fn.__name__) if args else text)
    wrapper.__name__ = fn.__name__
    return wrapper


def code_block(lines, indent: int = 0) -> Markup:
    """A fenced code block of data text that no value can close or turn into markup.

    The fence is one backtick longer than the longest run of backticks in the text (a fence
    only closes on a line of at least as many), a value's own line breaks become lines of the
    block at the same indent, and nothing inside a fence is read as HTML or Markdown.
    """
    text_lines = [part for line in lines for part in str(line).splitlines() or [""]]
    longest = max((len(run) for line in text_lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    pad = " " * indent
    body = [f"{pad}{fence}text"] + [f"{pad}{line}" for line in text_lines] + [f"{pad}{fence}"]
    return Markup("\n".join(body))


def environment(templates: Path, cache: Path | None = None) -> Environment:
    """The Jinja environment of a templates folder, one per folder and process: its compiled
    templates are kept, and a template file that changed on disk is compiled again (Jinja's
    auto_reload compares the file's mtime). With ``cache`` (a folder), the compiled templates
    are also kept between builds (pipeline/publish/template_cache.py)."""
    return _environment(str(Path(templates).resolve()), str(cache) if cache else None)


@functools.lru_cache(maxsize=16)
def _environment(templates: str, cache: str | None) -> Environment:
    # autoescape: every value printed from data goes through _finalize (Markdown + HTML
    # escaping); macros and filters return Markup, so templates never mark anything as raw.
    env = Environment(loader=FileSystemLoader(templates), undefined=StrictUndefined,
                      keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                      finalize=_finalize, autoescape=True)
    env.filters.update({name: _safe(fn) for name, fn in FILTERS.items()})
    # dash passes data text through: it must be escaped like any other data string
    env.filters["dash"] = lambda v: Markup(note(v, escape_text(FILTERS["dash"](v))))
    env.globals["code_block"] = code_block
    env.globals["NOT_MEASURED"] = Markup(NOT_MEASURED)
    return attach(env, Path(cache)) if cache else env
