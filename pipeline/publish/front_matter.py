"""A template's front matter: the ``{#--- … ---#}`` YAML block every template under
``templates/`` opens with (the marts a page or partial reads, its title, what renders it)."""
from __future__ import annotations

import copy
import functools
import re
from pathlib import Path

import yaml

_FRONT = re.compile(r"\A\{#---\n(.*?)\n---#\}\n?", re.DOTALL)


class PageError(Exception):
    pass


@functools.lru_cache(maxsize=256)
def _parsed(block: str):
    # a block's YAML parsed once a process: the definitions, the build's key and the page
    # steps each discover the pages (each caller gets its own copy)
    return yaml.safe_load(block)


def front_matter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    m = _FRONT.match(text)
    if not m:
        raise PageError(f"{path}:1: expected a '{{#---' YAML front matter block declaring marts, "
                        f"found {text[:40]!r}")
    try:
        meta = copy.deepcopy(_parsed(m.group(1))) or {}
    except yaml.YAMLError as exc:
        raise PageError(f"{path}: front matter is not valid YAML: {exc}") from None
    if not isinstance(meta.get("marts", []), list):
        raise PageError(f"{path}: front matter 'marts' must be a list")
    return meta
