"""scripts/install_site_assets.py: the one third-party script of the site comes from the npm
registry pinned by its sha512 integrity; a tarball that does not match installs nothing, and an
installed copy is not fetched again. The registry is replaced by an in-memory tarball here."""
import importlib.util
import io
import tarfile
from pathlib import Path

import pytest

from conftest import REPO

spec = importlib.util.spec_from_file_location("install_site_assets",
                                              REPO / "scripts" / "install_site_assets.py")
assets = importlib.util.module_from_spec(spec)
spec.loader.exec_module(assets)


def _tarball(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


class _Registry:
    def __init__(self, data: bytes):
        self.data, self.calls = data, 0

    def __call__(self, url, timeout):
        self.calls += 1
        assert url == assets.TARBALL
        return io.BytesIO(self.data)


FILES = {"package/dist/tablesort.min.js": b"window.Tablesort=1;",
         "package/LICENCE": b"MIT", "package/README.md": b"not taken"}


def test_a_tarball_with_another_integrity_installs_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(assets.urllib.request, "urlopen", _Registry(_tarball(FILES)))
    with pytest.raises(SystemExit, match="integrity"):
        assets.install(tmp_path)
    assert not (tmp_path / "javascripts" / "vendor").exists()


def test_the_pinned_tarball_is_installed_once(tmp_path, monkeypatch):
    data = _tarball(FILES)
    registry = _Registry(data)
    monkeypatch.setattr(assets.urllib.request, "urlopen", registry)
    monkeypatch.setattr(assets, "INTEGRITY", assets._integrity(data))
    assert "installed" in assets.install(tmp_path)
    vendor = tmp_path / "javascripts" / "vendor"
    assert (vendor / "tablesort.min.js").read_bytes() == b"window.Tablesort=1;"
    assert (vendor / "tablesort.LICENCE.txt").read_bytes() == b"MIT"
    assert sorted(p.name for p in vendor.iterdir()) == [
        "tablesort.LICENCE.txt", "tablesort.min.js", "tablesort.version"]
    assert "already installed" in assets.install(tmp_path)
    assert registry.calls == 1
    (vendor / "tablesort.min.js").unlink()            # a file gone: fetched again
    assets.install(tmp_path)
    assert registry.calls == 2


def test_the_pin_is_the_registrys_sha512_format():
    # npm's dist.integrity: "sha512-" and the base64 of the 64-byte digest
    import base64
    assert assets.INTEGRITY.startswith("sha512-")
    assert len(base64.b64decode(assets.INTEGRITY[len("sha512-"):])) == 64
    assert Path(assets.TARBALL).name == f"{assets.NAME}-{assets.VERSION}.tgz"
