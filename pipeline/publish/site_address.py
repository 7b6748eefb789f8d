"""The address the site is published at (mkdocs.yml's ``site_url``), from the publish
configuration, ``config/publish.yaml``: the sitemap and every canonical link are built from
it, so a build for publication never names the dev server (``mkdocs serve`` puts its own
address in for itself). ``SITE_URL`` in the environment wins over the file; neither set,
the site has no address (no canonical links, an empty sitemap)."""
from __future__ import annotations

import os
from urllib.parse import urlsplit

import yaml

from pipeline.project import Project


class PublishConfigError(ValueError):
    pass


def _checked(url: str, where: str) -> str:
    if url == "":
        return url
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or not url.endswith("/") \
            or parts.query or parts.fragment:
        raise PublishConfigError(
            f"{where}: site_url: expected an http(s) address ending in '/' such as "
            f"https://docs.example.org/interconnect/, or \"\" for none; found {url!r}")
    return url


def site_url(project: Project) -> str:
    if "SITE_URL" in os.environ:
        return _checked(os.environ["SITE_URL"], "the environment's SITE_URL")
    path = project.publish_config
    rel = path.relative_to(project.root).as_posix()
    if not path.is_file():
        return ""
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise PublishConfigError(f"{rel}: not readable as YAML ({exc})") from None
    if not isinstance(config, dict):
        raise PublishConfigError(f"{rel}: expected a mapping such as 'site_url: \"\"'")
    value = config.get("site_url") or ""
    if not isinstance(value, str):
        raise PublishConfigError(f"{rel}: site_url: expected text, found {type(value).__name__}")
    return _checked(value, rel)


def mkdocs_env(project: Project) -> dict[str, str]:
    """The environment ``mkdocs build`` runs in: this one with SITE_URL resolved."""
    return {**os.environ, "SITE_URL": site_url(project)}
