"""The site's address comes from the publish configuration (config/publish.yaml), SITE_URL
winning, and reaches the sitemap and canonical links of a build (pipeline/publish/site_address.py)."""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from pipeline.project import Project
from pipeline.publish.site_address import PublishConfigError, mkdocs_env, site_url


def _project(tmp_path, text):
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "publish.yaml").write_text(text)
    return Project(tmp_path)


def test_the_file_gives_the_address_and_the_environment_wins(tmp_path, monkeypatch):
    monkeypatch.delenv("SITE_URL", raising=False)
    project = _project(tmp_path, 'site_url: "https://docs.example.org/ic/"\n')
    assert site_url(project) == "https://docs.example.org/ic/"
    assert mkdocs_env(project)["SITE_URL"] == "https://docs.example.org/ic/"
    monkeypatch.setenv("SITE_URL", "https://mirror.example.net/")
    assert site_url(project) == "https://mirror.example.net/"


def test_no_file_or_an_empty_value_is_no_address(tmp_path, monkeypatch):
    monkeypatch.delenv("SITE_URL", raising=False)
    assert site_url(Project(tmp_path)) == ""
    assert site_url(_project(tmp_path, "site_url:\n")) == ""


@pytest.mark.parametrize("text,message", [
    ('site_url: "docs.example.org"\n', "config/publish.yaml: site_url: expected an http(s) address "
                                       "ending in '/'"),
    ('site_url: "https://docs.example.org"\n', "found 'https://docs.example.org'"),
    ("site_url: 3\n", "config/publish.yaml: site_url: expected text, found int"),
    ("- a\n", "config/publish.yaml: expected a mapping"),
    ("site_url: [\n", "config/publish.yaml: not readable as YAML"),
])
def test_a_bad_address_names_the_file_and_what_is_expected(tmp_path, monkeypatch, text, message):
    monkeypatch.delenv("SITE_URL", raising=False)
    with pytest.raises(PublishConfigError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace(".", r"\.")):
        site_url(_project(tmp_path, text))


def test_a_configured_address_reaches_the_sitemap_and_canonical_links(built, tmp_path, monkeypatch):
    """mkdocs on the built docs/ with the environment the build gives it."""
    monkeypatch.delenv("SITE_URL", raising=False)
    root = tmp_path / "root"
    root.mkdir()
    project = _project(root, 'site_url: "https://docs.example.org/ic/"\n')
    out = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "-f", str(built.mkdocs_yml),
                    "-d", str(out)], cwd=built.root, env=mkdocs_env(project), check=True,
                   capture_output=True)
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text for e in ET.parse(out / "sitemap.xml").getroot().findall("s:url/s:loc", ns)]
    assert "https://docs.example.org/ic/point-to-point/" in locs
    assert all(loc.startswith("https://docs.example.org/ic/") for loc in locs)
    pages = [p for p in built.docs.rglob("*.md") if not p.relative_to(built.docs).as_posix().startswith("includes/")]
    assert len(locs) == len(pages) > 10
    assert '<link rel="canonical" href="https://docs.example.org/ic/point-to-point/">' in \
        (out / "point-to-point" / "index.html").read_text(encoding="utf-8")
