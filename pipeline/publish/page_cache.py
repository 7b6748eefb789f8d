"""Each page's conversion and search entries, kept from one site build to the next.

A mkdocs plugin (``page-cache`` in mkdocs.yml's plugins; registered by pyproject.toml's
``mkdocs.plugins`` entry point). Converting each page's Markdown to HTML and cutting that HTML
into search entries are most of ``mkdocs build``'s time, and both grow with the number of
campaigns: a build after one campaign was added converted every other campaign's page again,
unchanged.

A conversion reads the page's Markdown, its address, mkdocs.yml, the installed Markdown
extensions and, for each link, which file the link names. So a page's conversion (its HTML,
table of contents, title, anchors, and each relative link with the address it became) is kept
under ``.site-builds/page-cache/`` beside the site builds, keyed by the sha256 of its Markdown
and address, salted with mkdocs.yml, the versions of mkdocs, Markdown, pymdown-extensions,
Material and Pygments, and the sources of this package's Markdown extension and of this
module. A kept conversion is used only if each of its links, resolved again by mkdocs' own
code in this build, becomes the same address (a link to a page that is gone warns and fails
the strict build as it always did); a conversion that logged a warning is never kept. The
search entries are kept the same way, keyed by the page's HTML, address, title, table of
contents and front matter. At the end of a build that succeeded, the entries it did not read
or write are deleted, so the folder holds one build's pages.

``INTERCONNECT_PAGE_CACHE=0`` turns it off; the tests build a site both ways and compare every
byte (tests/publish/test_page_cache.py). mkdocs calls a page's ``render`` and Material's search
index with no hook to skip them, so this replaces both methods for the process while a build
that loaded the plugin runs; a mkdocs or Material without them leaves the cache off.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
from importlib import metadata
from pathlib import Path

from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure import pages as mkdocs_pages

from pipeline.publish import element_ids
from pipeline.publish.site import CACHE_COUNTS

ENV = "INTERCONNECT_PAGE_CACHE"
FOLDER = Path(".site-builds") / "page-cache"
_DISTRIBUTIONS = ("mkdocs", "markdown", "pymdown-extensions", "mkdocs-material", "pygments")
_ACTIVE: "PageCache | None" = None        # the build under way, while one is
_ORIGINAL: dict = {}                      # the methods replaced, by name
log = get_plugin_logger("page-cache")     # its lines read "page-cache: ..."


class _Warnings(logging.Handler):
    """Counts the warnings logged while it is attached (to the root and mkdocs' loggers:
    mkdocs' own do not propagate to the root)."""

    def __init__(self, drop: bool = False):
        super().__init__(logging.WARNING)
        self.seen, self.drop = 0, drop

    def emit(self, record) -> None:
        self.seen += 1

    def __enter__(self):
        for name in ("", "mkdocs"):
            logging.getLogger(name).addHandler(self)
        if self.drop:            # a check of a kept conversion: its warnings are not the build's
            mkdocs_pages.log.addFilter(self._swallow)
        return self

    def _swallow(self, record) -> bool:
        if record.levelno >= logging.WARNING:
            self.seen += 1
            return False
        return True

    def __exit__(self, *exc) -> None:
        for name in ("", "mkdocs"):
            logging.getLogger(name).removeHandler(self)
        mkdocs_pages.log.removeFilter(self._swallow)


def _salt(config) -> bytes:
    h = hashlib.sha256()
    for dist in _DISTRIBUTIONS:
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            version = "-"
        h.update(f"{dist}={version}\n".encode())
    h.update(Path(config.config_file_path).read_bytes())
    for source in (element_ids.__file__, __file__):
        h.update(Path(source).read_bytes())
    h.update(repr((config.site_url, config.use_directory_urls, config.markdown_extensions))
             .encode())
    return h.digest()


def _toc_tree(items) -> list:
    return [[i.id, i.url, i.title, i.level, _toc_tree(i.children)] for i in items]


class PageCache(BasePlugin):
    def on_config(self, config, **kwargs):
        global _ACTIVE
        _ACTIVE = None
        if os.environ.get(ENV, "1") == "0" or not _install():
            return config
        self.folder = Path(config.config_file_path).parent / FOLDER
        self.salt = _salt(config)
        self.used: set[str] = set()
        self.kept = self.made = 0
        _ACTIVE = self
        return config

    def key(self, *parts: str) -> str:
        h = hashlib.sha256(self.salt)
        for part in parts:
            data = part.encode("utf-8", "surrogatepass")
            h.update(len(data).to_bytes(8, "little") + data)
        return h.hexdigest()

    def read(self, key: str) -> dict | None:
        self.used.add(key)
        try:
            found = json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return found if isinstance(found, dict) else None

    def write(self, key: str, value: dict) -> None:
        self.used.add(key)
        path = self.folder / f"{key}.json"
        tmp = path.with_name(f".{key}.{os.getpid()}.tmp")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, path)
        except OSError:           # a full disk or a read-only tree: the build goes on without
            tmp.unlink(missing_ok=True)

    def on_post_build(self, config, **kwargs) -> None:
        global _ACTIVE
        if _ACTIVE is not self:
            return
        _ACTIVE = None
        log.info(CACHE_COUNTS.format(kept=self.kept, made=self.made))
        if not self.folder.is_dir():
            return
        for path in self.folder.iterdir():
            if path.suffix == ".json" and path.stem not in self.used or path.suffix == ".tmp":
                path.unlink(missing_ok=True)

    def on_build_error(self, error, **kwargs) -> None:
        global _ACTIVE
        if _ACTIVE is self:
            _ACTIVE = None


def _render(page, config, files) -> None:
    cache = _ACTIVE
    if cache is None:
        return _ORIGINAL["render"](page, config, files)
    key = cache.key("page", page.file.src_uri, page.file.dest_uri, page.file.url,
                    page.markdown or "")
    kept = cache.read(key)
    if kept is not None and _use(page, kept, config, files):
        cache.kept += 1
        return None
    tokens: list = []
    links: list = []
    _RECORD.update(tokens=tokens, links=links)
    try:
        with _Warnings() as warned:
            _ORIGINAL["render"](page, config, files)
    finally:
        _RECORD.clear()
    cache.made += 1
    if not warned.seen:
        cache.write(key, {"content": page.content, "toc": tokens,
                          "title": page._title_from_render,
                          "anchors": sorted(page.present_anchor_ids or ()), "links": links})
    return None


def _use(page, kept: dict, config, files) -> bool:
    """Whether ``kept`` is this page's conversion in this build: each link resolved again
    becomes the address it became then, with no warning; if so, it is set on ``page``."""
    try:
        resolver = mkdocs_pages._RelativePathTreeprocessor(page.file, files, config)
        with _Warnings(drop=True) as warned:
            same = all(resolver.path_to_url(url) == to for url, to in kept["links"])
        if not same or warned.seen:
            return False
        page.content = kept["content"]
        page.toc = _ORIGINAL["get_toc"](kept["toc"])
        page._title_from_render = kept["title"]
        page.present_anchor_ids = set(kept["anchors"])
    except (KeyError, TypeError, ValueError):      # an entry of another shape: convert again
        return False
    if mkdocs_pages.log.getEffectiveLevel() > logging.DEBUG:
        page.links_to_anchors = resolver.links_to_anchors
    return True


_RECORD: dict = {}       # while a page converts: its toc tokens and resolved links


def _path_to_url(self, url: str) -> str:
    to = _ORIGINAL["path_to_url"](self, url)
    if "links" in _RECORD:
        _RECORD["links"].append([url, to])
    return to


def _get_toc(tokens):
    if "tokens" in _RECORD:
        _RECORD["tokens"].extend(json.loads(json.dumps(tokens)))
    return _ORIGINAL["get_toc"](tokens)


def _add_entry(index, page) -> None:
    cache = _ACTIVE
    if cache is None:
        return _ORIGINAL["add_entry"](index, page)
    key = cache.key("search", page.url, page.content or "", str(page.title),
                    json.dumps(_toc_tree(page.toc), ensure_ascii=False),
                    json.dumps(page.meta, sort_keys=True, default=str),
                    json.dumps(index.config, sort_keys=True, default=str))
    kept = cache.read(key)
    if isinstance(kept, dict) and isinstance(kept.get("entries"), list):
        index.entries.extend(kept["entries"])
        return None
    before = len(index.entries)
    _ORIGINAL["add_entry"](index, page)
    cache.write(key, {"entries": index.entries[before:]})
    return None


def _install() -> bool:
    """Replace the methods once per process; False (the cache off) when this mkdocs or
    Material lacks one of them."""
    if _ORIGINAL:
        return True
    try:
        from material.plugins.search.plugin import SearchIndex
        targets = {"render": (mkdocs_pages.Page, "render", _render),
                   "path_to_url": (mkdocs_pages._RelativePathTreeprocessor, "path_to_url",
                                   _path_to_url),
                   "get_toc": (mkdocs_pages, "get_toc", _get_toc),
                   "add_entry": (SearchIndex, "add_entry_from_context", _add_entry)}
        originals = {name: getattr(owner, attr) for name, (owner, attr, _) in targets.items()}
    except (ImportError, AttributeError):
        return False
    _ORIGINAL.update(originals)
    for owner, attr, replacement in targets.values():
        setattr(owner, attr, replacement)
    return True
