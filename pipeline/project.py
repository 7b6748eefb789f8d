"""Where things live. Every path derives from one project root.

``INTERCONNECT_ROOT`` points the whole pipeline at another tree (tests build copies);
``INTERCONNECT_DB`` moves the warehouse (default ``.warehouse/interconnect.duckdb``,
gitignored).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

# The campaign areas under raw_data/ and the kind of campaign each holds (a manifest's
# ``kind:``, a per-campaign page's ``per_campaign:``).
KIND_OF_AREA = {"deployments": "deployment", "p2p": "p2p", "labs": "lab_series"}
AREA_OF_KIND = {kind: area for area, kind in KIND_OF_AREA.items()}
CAMPAIGN_AREAS = tuple(KIND_OF_AREA)


@dataclass(frozen=True)
class Project:
    root: Path

    @classmethod
    def from_env(cls) -> "Project":
        return cls(Path(os.environ.get("INTERCONNECT_ROOT", REPO_ROOT)).resolve())

    @property
    def raw_data(self) -> Path:
        return self.root / "raw_data"

    @property
    def reference(self) -> Path:
        return self.raw_data / "reference"

    @property
    def sql(self) -> Path:
        return self.root / "sql"

    @property
    def templates(self) -> Path:
        return self.root / "templates"

    @property
    def docs(self) -> Path:
        return self.root / "docs"

    @property
    def site(self) -> Path:
        return self.root / "site"

    @property
    def mkdocs_yml(self) -> Path:
        return self.root / "mkdocs.yml"

    @property
    def publish_config(self) -> Path:
        """Where the site is published (its address): pipeline/publish/site_address.py."""
        return self.root / "config" / "publish.yaml"

    @property
    def raw_store(self) -> Path:
        """Parsed raw files as Parquet, beside the warehouse (pipeline/ingest/store.py)."""
        return self.warehouse.with_suffix(".raw")

    @property
    def template_cache(self) -> Path:
        """Compiled templates kept between builds, beside the warehouse
        (pipeline/publish/template_cache.py)."""
        return self.warehouse.with_suffix(".jinja")

    @property
    def docs_staging(self) -> Path:
        """Where a build renders pages before docs/ is replaced as a whole (docs_publish.py)."""
        return self.root / ".docs-staging"

    @property
    def warehouse(self) -> Path:
        env = os.environ.get("INTERCONNECT_DB")
        return Path(env).resolve() if env else self.root / ".warehouse" / "interconnect.duckdb"
