"""What ``dg`` autoloads, a module per slice of the code location: each hands Dagster objects
built in ``pipeline/orchestration`` for the tree at ``INTERCONNECT_ROOT``. Nothing imports
this package; it imports nothing but ``pipeline.orchestration`` and ``pipeline.project``."""
