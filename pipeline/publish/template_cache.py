"""Compiled templates kept between builds: Jinja's own bytecode cache, in a folder beside the
warehouse (``interconnect.jinja/``, as its raw store is ``interconnect.raw/``).

Jinja compiles every template a build renders (about half a second for the ~40 of
``templates/``) and then renders it; the compiled code of a template depends only on its text,
Jinja and Python's versions, and the environment's options. A cache entry is named by the
template's name and those options, and Jinja checks the text's checksum before using it (a
changed template is compiled again and its entry replaced), so an entry is never used for
another text, another Jinja or another environment. Entries are written whole (Jinja writes a
temporary file and renames it); one that cannot be written (a full or read-only disk) is simply
not kept, and one that cannot be read back (cut short, damaged) is compiled again: the build
then does what it would without a cache.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import jinja2
from jinja2 import Environment
from jinja2.bccache import Bucket, FileSystemBytecodeCache


def signature(env: Environment) -> str:
    """What a template's compiled code depends on besides its text (Jinja adds its own and
    Python's version to each entry)."""
    parts = (jinja2.__version__, env.block_start_string, env.block_end_string,
             env.variable_start_string, env.variable_end_string, env.comment_start_string,
             env.comment_end_string, env.line_statement_prefix, env.line_comment_prefix,
             env.trim_blocks, env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline,
             env.autoescape if isinstance(env.autoescape, bool) else "callable",
             env.finalize is not None, env.optimized, sorted(env.extensions),
             sorted(env.filters), sorted(env.tests))
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


class TemplateCache(FileSystemBytecodeCache):
    """Jinja's file cache, keyed by template name and the environment's ``signature`` (not by
    the template's absolute path: a moved or copied tree keeps its entries)."""

    def __init__(self, directory: Path, signature: str) -> None:
        super().__init__(str(directory), "%s.jinja-code")
        self.signature = signature

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return hashlib.sha1(f"{self.signature}|{name}".encode()).hexdigest()

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # noqa: BLE001 - an entry cut short or unreadable: compiled again
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            Path(self.directory).mkdir(parents=True, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass            # not kept: the next build compiles this template again


def attach(env: Environment, directory: Path) -> Environment:
    """``env`` with its compiled templates kept in ``directory`` (set once its filters are)."""
    env.bytecode_cache = TemplateCache(directory, signature(env))
    return env
