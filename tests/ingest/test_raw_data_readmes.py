"""raw_data/README.md says every campaign folder has a README.md saying whether its data is
captured or reconstructed: check it of the shipped tree."""
from pipeline.ingest.scan import campaign_folders

from conftest import REPO


def test_every_campaign_has_a_readme_that_says_where_its_data_comes_from():
    folders = campaign_folders(REPO / "raw_data")
    assert len(folders) >= 4
    for area, name, folder in folders:
        readme = folder / "README.md"
        assert readme.is_file(), f"{area}/{name} has no README.md"
        text = readme.read_text()
        assert "*captured*" in text or "*reconstructed*" in text or \
            "captured" in text.lower() or "reconstructed" in text.lower(), f"{area}/{name}"
