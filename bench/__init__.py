"""``make bench``: the speed and memory targets of the pipeline, measured side by side in one
run (see bench/README.md). Not part of ``make test``: timings on a shared machine are compared
as ratios within one run, never asserted by unit tests."""
