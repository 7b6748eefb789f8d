"""What the property-based round trips share: Hypothesis settings for tests that write into
``tmp_path`` (a function-scoped fixture reused across examples, which is safe here: each
example writes its own file name or overwrites the last)."""
from hypothesis import HealthCheck, settings

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def write_file(tmp_path, data, name: str):
    """``data`` (text or bytes) as ``tmp_path/name``; returns the path."""
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path
