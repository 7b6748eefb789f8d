"""The browser harness of the site tests: Debian's Chromium under Playwright, the built site
served on a loopback port, and the nav's pages (mkdocs.yml). A test module uses the fixtures
(``browser``, ``site_url``, ``visit``) by importing them from here."""
from __future__ import annotations

import functools
import os
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from paths import REPO

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "test-artifacts" / "browser"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT_MS = 15_000


def nav_pages(nav) -> list[tuple[str, str]]:
    """(title, docs-relative .md path) for every page in the nav, sections flattened."""
    out = []
    for item in nav:
        for title, target in (item.items() if isinstance(item, dict) else [(item, item)]):
            if isinstance(target, list):
                out += nav_pages(target)
            elif isinstance(target, str) and target.endswith(".md"):
                out.append((title, target))
    return out


class _MkdocsLoader(yaml.SafeLoader):
    """mkdocs.yml as data: its ``!ENV [NAME, default]`` tags read as their default."""


_MkdocsLoader.add_constructor("!ENV", lambda loader, node: loader.construct_sequence(node)[-1])
NAV = nav_pages(yaml.load((REPO / "mkdocs.yml").read_text(), Loader=_MkdocsLoader)["nav"])


def url_path(md: str) -> str:
    """docs path -> site path under use_directory_urls (index.md -> '', a/b.md -> a/b/)."""
    stem = md[:-3]
    if stem == "index" or stem.endswith("/index"):
        return stem[:-5]
    return stem + "/"


def missing(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the browser test must run; see scripts/install_browser.sh)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("the playwright package is not installed (scripts/install_browser.sh)")
    if not os.access(CHROMIUM, os.X_OK):
        missing(f"{CHROMIUM} is not installed (Debian package chromium; scripts/install_browser.sh)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True)
        yield b
        b.close()


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture(scope="module")
def site_url(browser, built):
    """The built site on 127.0.0.1:<free port>. Depends on ``browser`` so that a missing browser
    skips before anything is served."""
    handler = functools.partial(QuietHandler, directory=str(built.site.resolve()))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


class Visit:
    """A fresh page that records console errors, uncaught exceptions and failed requests."""

    def __init__(self, browser, **context):
        self.context = browser.new_context(**context)
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.errors: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(f"exception: {e}"))
        self.page.on("requestfailed", lambda r: self.errors.append(f"request failed: {r.url}"))
        self.page.on("response", lambda r: r.status >= 400 and self.errors.append(f"HTTP {r.status}: {r.url}"))

    def close(self):
        self.context.close()


@pytest.fixture
def visit(browser):
    opened = []

    def _open(**context):
        v = Visit(browser, **context)
        opened.append(v)
        return v

    yield _open
    for v in opened:
        v.close()

