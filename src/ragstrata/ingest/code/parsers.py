"""Grammar loading: one tree-sitter ``Language``, ``Parser`` and ``Query`` per language, lazily.

Grammars come from the per-language PyPI wheels (``tree-sitter-python`` ...), which carry their
compiled parsers, so nothing is downloaded at run time. Queries are data files in
``ragstrata/ingest/queries/<language>.scm``.
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["Grammar", "grammar", "supported_languages"]

# language -> (module, function returning the language pointer)
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "kotlin": ("tree_sitter_kotlin", "language"),
}

# tsx shares the TypeScript query (its grammar is a superset)
_QUERY_FILE = {"tsx": "typescript"}

_lock = threading.Lock()
_local = threading.local()  # parsers are not thread-safe: one per thread


def supported_languages() -> frozenset[str]:
    """Languages that get definitions and relations (C1/C2) besides files and chunks."""
    return frozenset(_GRAMMARS)


@dataclass(frozen=True, slots=True)
class Grammar:
    """A loaded grammar with its parser and compiled structure query."""

    language: str
    ts_language: Any
    query: Any

    def parse(self, data: bytes) -> Any:
        """Parse UTF-8 bytes into a tree (one parser per thread and language)."""
        parsers: dict[str, Any] = _local.__dict__.setdefault("parsers", {})
        parser = parsers.get(self.language)
        if parser is None:
            import tree_sitter

            parser = parsers[self.language] = tree_sitter.Parser(self.ts_language)
        return parser.parse(data)

    def matches(self, node: Any) -> list[tuple[int, dict[str, list[Any]]]]:
        """All query matches under ``node``, in document order."""
        import tree_sitter

        return list(tree_sitter.QueryCursor(self.query).matches(node))


def _query_text(language: str) -> str:
    name = _QUERY_FILE.get(language, language)
    ref = resources.files("ragstrata.ingest").joinpath("queries", f"{name}.scm")
    return ref.read_text(encoding="utf-8")


@cache
def _load(language: str) -> Grammar:
    import tree_sitter

    module_name, func = _GRAMMARS[language]
    module = importlib.import_module(module_name)
    ts_language = tree_sitter.Language(getattr(module, func)())
    query = tree_sitter.Query(ts_language, _query_text(language))
    return Grammar(language=language, ts_language=ts_language, query=query)


def grammar(language: str) -> Grammar:
    """The cached grammar of ``language``; raises ``KeyError`` naming the supported set."""
    if language not in _GRAMMARS:
        raise KeyError(
            f"no tree-sitter grammar for language {language!r}; "
            f"supported: {', '.join(sorted(_GRAMMARS))}"
        )
    with _lock:
        return _load(language)
