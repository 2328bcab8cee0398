"""language -> :class:`LanguageRules` instance (one per language, created on first use)."""

from __future__ import annotations

from functools import cache

from ragstrata.ingest.code.rules import LanguageRules

__all__ = ["rules_for"]


@cache
def rules_for(language: str) -> LanguageRules:
    """The rules of a supported language (``KeyError`` for others)."""
    from ragstrata.ingest.code import (
        lang_c,
        lang_csharp,
        lang_go,
        lang_java,
        lang_js,
        lang_kotlin,
        lang_python,
        lang_rust,
        lang_script,
    )

    table: dict[str, type[LanguageRules]] = {
        "python": lang_python.PythonRules,
        "javascript": lang_js.JavaScriptRules,
        "typescript": lang_js.TypeScriptRules,
        "tsx": lang_js.TsxRules,
        "go": lang_go.GoRules,
        "java": lang_java.JavaRules,
        "rust": lang_rust.RustRules,
        "c": lang_c.CRules,
        "cpp": lang_c.CppRules,
        "csharp": lang_csharp.CSharpRules,
        "ruby": lang_script.RubyRules,
        "php": lang_script.PhpRules,
        "kotlin": lang_kotlin.KotlinRules,
    }
    return table[language]()
