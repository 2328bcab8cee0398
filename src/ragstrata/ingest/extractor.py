"""What version of the extraction rules built an index's rows.

Rows (definitions, relations, chunks) come from the tree-sitter queries
(``ingest/queries/*.scm``) and the Python rules around them. A stored index built by other
rules is readable, but it misses what the new rules find (a Rust tuple struct's fields typed
by position, say) until its files are extracted again. :func:`extractor_fingerprint` names the
rules: :data:`EXTRACTOR_VERSION`, bumped by hand when a Python-side rule changes what rows
hold, and a hash of the query files and of the language table (``data/languages.toml``: each
file's language and whether it is a test), which changes by itself with any capture or
convention. The manifest records it; an index run that finds another one extracts every file
again and keeps the vectors of unchanged texts (they are stored by text hash).
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources

__all__ = ["EXTRACTOR_VERSION", "extractor_fingerprint"]

EXTRACTOR_VERSION = 3
"""Bump when an extraction rule outside the query files changes what rows hold."""


@cache
def extractor_fingerprint() -> str:
    """``"<EXTRACTOR_VERSION>-<12 hex of the query files' and the language table's
    SHA-256>"``."""
    digest = hashlib.sha256()
    queries = resources.files("ragstrata.ingest").joinpath("queries")
    for ref in sorted(queries.iterdir(), key=lambda r: r.name):
        if ref.name.endswith(".scm"):
            digest.update(ref.name.encode() + b"\0" + ref.read_bytes() + b"\0")
    # which files are tests (`*_tests.rs`), and of which language, is stored with each row
    table = resources.files("ragstrata").joinpath("data", _LANGUAGES)
    digest.update(_LANGUAGES.encode() + b"\0" + table.read_bytes() + b"\0")
    return f"{EXTRACTOR_VERSION}-{digest.hexdigest()[:12]}"


_LANGUAGES = "languages.toml"
