"""The raw layer: what a campaign folder holds (scan, manifest), its files parsed into the raw
store (runner, store), and the parsers, one per format, in ``formats/``."""
