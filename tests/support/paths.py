"""Where the tests find the project and their fixture files, wherever a test module sits."""
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
FIXTURES = TESTS / "fixtures"
