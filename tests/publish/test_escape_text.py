"""Data text on a page is inert and visible (pipeline/publish/markdown.py, ``escape_text``): HTML and
Markdown are escaped, and a character a reader cannot see but that changes what is shown (a
C0/C1 control, a Unicode bidirectional control) is shown as its \\uXXXX escape, so a file
named "report\\u202etxt.exe" cannot pass for "reportexe.txt"."""
from __future__ import annotations

import markdown
import pytest

from pipeline.publish.markdown import escape_text


def _shown(value: str) -> str:
    """The text a reader sees once the page is rendered (tags stripped, entities decoded)."""
    import html
    import re
    return html.unescape(re.sub(r"<[^>]+>", "", markdown.markdown(escape_text(value))))


@pytest.mark.parametrize("name, shown", [
    ("report\u202etxt.exe", "report\\u202etxt.exe"),      # RIGHT-TO-LEFT OVERRIDE
    ("a\u2066b\u2069c", "a\\u2066b\\u2069c"),            # isolates
    ("bell\x07here", "bell\\u0007here"),                  # C0 control
    ("c1\x85x", "c1\\u0085x"),                            # C1 control (NEXT LINE)
    ("mark\u200fx", "mark\\u200fx"),                      # RIGHT-TO-LEFT MARK
    ("two\nlines.ping", "two\\u000alines.ping"),          # a line break: not a space
    ("crlf\r\nx", "crlf\\u000d\\u000ax"),
])
def test_an_invisible_character_is_shown_as_its_escape(name, shown):
    assert _shown(name) == shown


def test_plain_text_and_markup_are_shown_as_they_are_and_a_tab_as_blank():
    # Python-Markdown expands a tab to blanks: white space, not an escape
    assert _shown("q8_0 <b>*x*</b> | tab\there").split() == ["q8_0", "<b>*x*</b>", "|", "tab", "here"]
    assert "<b>" not in markdown.markdown(escape_text("<b>x</b>"))
