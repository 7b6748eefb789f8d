"""YAML for manifests: plain data only, bounded before it is built.

``yaml.safe_load`` already refuses tags that build objects, but it expands aliases, so a few
hundred bytes of nested ``&a [*b, *b, …]`` anchors grow into gigabytes of lists (the "billion
laughs" bomb). A manifest has no use for aliases, so the loader refuses the first one, naming
its line, before anything is expanded. The text itself is capped in size, and every scalar in
length, so an oversized value is a specific error rather than a slow build.
"""
from __future__ import annotations

from pathlib import Path

import yaml

MAX_BYTES = 1 << 20        # a manifest lists files; a megabyte is thousands of entries
MAX_SCALAR_CHARS = 4096    # a command line or a note; longer is not context
MAX_DEPTH = 8


class ManifestYamlError(ValueError):
    """``path:line: expected …, found …`` for a manifest that is not plain, bounded YAML."""


class _NoAliasLoader(yaml.SafeLoader):
    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise ManifestYamlError(
                f"{self.name}:{event.start_mark.line + 1}: expected plain values, found the "
                f"alias *{event.anchor} (aliases and merge keys are not allowed in a manifest)")
        if self.check_event(yaml.ScalarEvent):
            event = self.peek_event()
            if len(event.value) > MAX_SCALAR_CHARS:
                raise ManifestYamlError(
                    f"{self.name}:{event.start_mark.line + 1}: expected a value of at most "
                    f"{MAX_SCALAR_CHARS} characters, found {len(event.value)}")
        depth = getattr(self, "_depth", 0)
        if depth > MAX_DEPTH:
            mark = self.peek_event().start_mark
            raise ManifestYamlError(f"{self.name}:{mark.line + 1}: expected at most {MAX_DEPTH} "
                                    f"levels of nesting, found more")
        self._depth = depth + 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth = depth


    def construct_mapping(self, node, deep=False):
        """A key given twice in one mapping is refused with both lines (YAML leaves it to the
        loader, and PyYAML keeps the last: a second ``provenance:`` would win silently)."""
        first: dict = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue                      # a complex key: the SafeLoader's own error
            key, line = self.construct_object(key_node), key_node.start_mark.line + 1
            if key in first:
                raise ManifestYamlError(
                    f"{self.name}:{line}: expected each key once in a mapping, found {key!r} "
                    f"again (first on line {first[key]}); keep the one you mean")
            first[key] = line
        return super().construct_mapping(node, deep)


def load(path: Path, display: str):
    """The YAML document at ``path``; errors name ``display`` (the path relative to raw_data/)."""
    data = Path(path).read_bytes()
    if len(data) > MAX_BYTES:
        raise ManifestYamlError(f"{display}: expected a manifest of at most {MAX_BYTES} bytes, "
                                f"found {len(data)}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ManifestYamlError(f"{display}:{line}: expected UTF-8 text, found byte "
                                f"0x{data[exc.start]:02x}") from None
    loader = _NoAliasLoader(text)
    loader.name = display
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{display}:{mark.line + 1}" if mark else display
        problem = getattr(exc, "problem", None) or str(exc)
        raise ManifestYamlError(f"{where}: expected valid YAML, found {problem}") from None
    finally:
        loader.dispose()
