"""Per-language rules around the tree-sitter queries: naming, docs, signatures, visibility.

The queries (``ingest/queries/<language>.scm``) say *where* things are, with these captures:

=============================  ==============================================================
``@definition.<kind>``         a definition (kind: class, function, struct, constant ...);
                               ``function`` in a class-like container becomes ``method``
``@name``                      its name (``A::b`` / ``A.b`` names put it under ``A``)
``@receiver``                  Go method receiver type: the definition's parent
``@scope.namespace``           a scope that only prefixes names (C#/C++ namespace)
``@scope.impl``                a scope standing for a type (Rust ``impl``): its parent role
``@package``                   the file's package / namespace declaration
``@call`` + ``@call.name``     a call and the callee as written
``@call.receiver``/``.scope``  the receiver, when the grammar keeps it apart (Ruby, PHP)
``@import`` (+ ``.name``)      an import (and the imported names, when the query can tell)
``@inherits``/``@implements``  a base type in a class header
``@construct`` + ``.name``     a construction that is no call (Go ``T{}``, Rust ``T { .. }``)
``@reference``                 a type a declaration names (parameter, result, field, variable):
                               each ``type_nodes`` node inside it, the language's
                               ``builtin_types`` (``data/languages.toml``) left out
=============================  ==============================================================

A :class:`LanguageRules` subclass says *how* to read them for one language.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from ragstrata.core.languages import language_info
from ragstrata.ingest.code.source import Source, collapse

__all__ = ["CONTAINER_KINDS", "DefContext", "LanguageRules", "clean_comment", "strip_quotes"]

CONTAINER_KINDS = frozenset(
    {"class", "interface", "struct", "enum", "trait", "object", "record", "union", "impl"}
)
_BODY_TYPES = frozenset(
    {
        "block",
        "compound_statement",
        "statement_block",
        "field_declaration_list",
        "declaration_list",
        "enumerator_list",
        "enum_variant_list",
        "class_body",
        "interface_body",
        "enum_body",
        "body_statement",
        "function_body",
    }
)
_COMMENT_MARK = re.compile(r"^\s*(?:///?!?|/\*\*?|\*(?!/)|#+|--)\s?")
_COMMENT_END = re.compile(r"\s*\*+/\s*$")
_GENERIC = re.compile(r"<.*>$")


def strip_quotes(text: str) -> str:
    """``"net/http"`` -> ``net/http``; ``<stdio.h>`` -> ``stdio.h``."""
    text = text.strip()
    if len(text) >= 2 and text[0] in "\"'`<" and text[-1] in "\"'`>":
        return text[1:-1]
    return text


def clean_comment(lines: list[str]) -> str | None:
    """Strip comment markers (``//``, ``///``, ``/** */``, ``*``, ``#``) and blank edges."""
    out = []
    for line in lines:
        line = _COMMENT_END.sub("", line.rstrip())
        out.append(_COMMENT_MARK.sub("", line, count=1).rstrip())
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) or None


class DefContext:
    """What the rules see of one definition while the engine builds its row."""

    __slots__ = ("kind", "name", "node", "outer", "parent_exported", "src")

    def __init__(
        self, node: Any, outer: Any, kind: str, name: str, parent_exported: bool, src: Source
    ) -> None:
        self.node = node
        self.outer = outer
        self.kind = kind
        self.name = name
        self.parent_exported = parent_exported
        self.src = src


class LanguageRules:
    """Defaults suit C-like languages with ``//`` / ``/** */`` leading doc comments."""

    language: ClassVar[str] = ""
    sep: ClassVar[str] = "."  # between nested definitions
    ns_sep: ClassVar[str] = "."  # between the module qualifier and top-level names
    method_sep: ClassVar[str | None] = None  # before a method name, when not ``sep``
    call_sep: ClassVar[str] = "."  # between a call's receiver and method, when captured apart
    wrappers: ClassVar[frozenset[str]] = frozenset()  # nodes that wrap a definition
    skip_before: ClassVar[frozenset[str]] = frozenset()  # siblings between doc and definition
    comment_types: ClassVar[frozenset[str]] = frozenset(
        {"comment", "line_comment", "block_comment"}
    )
    container_kinds: ClassVar[frozenset[str]] = CONTAINER_KINDS
    # nodes that name a type inside a ``@reference`` (the outermost one is taken whole)
    type_nodes: ClassVar[frozenset[str]] = frozenset(
        {"type_identifier", "scoped_type_identifier", "qualified_type", "nested_type_identifier"}
    )

    # -- naming -----------------------------------------------------------------------------
    def qualifier(self, path: str, package: str | None) -> str:
        """The prefix of every top-level name in the file ("" for none)."""
        return package or ""

    def module_symbol(self, path: str, package: str | None) -> str:
        """The symbol of the file itself (source of top-level calls and imports)."""
        return self.qualifier(path, package) or path

    def scope_name(self, text: str) -> str:
        """Normalise a scope / receiver type name (``&mut Foo<T>`` -> ``Foo``)."""
        text = collapse(text).lstrip("&*").removeprefix("mut ").strip()
        return _GENERIC.sub("", text)

    def kind_of(self, kind: str, node: Any) -> str:
        """The final kind of a captured definition (``type`` captures are refined here)."""
        return kind

    @property
    def builtin_types(self) -> frozenset[str]:
        """Type names never recorded as a ``references`` relation (``data/languages.toml``)."""
        info = language_info(self.language)
        return info.builtin_types if info is not None else frozenset()

    def entry_name(self, node: Any, name: str, path: str) -> str:
        """The name of a captured definition in the file at ``path`` (JavaScript names an
        anonymous ``module.exports = function`` after its file)."""
        return name

    # -- node helpers -----------------------------------------------------------------------
    def outer(self, node: Any) -> Any:
        """The node including wrappers (decorators, ``export``), for docs and chunk spans."""
        while node.parent is not None and node.parent.type in self.wrappers:
            node = node.parent
        return node

    def body(self, node: Any) -> Any | None:
        """The body node of a definition, if it has one."""
        body = node.child_by_field_name("body")
        if body is not None:
            return body
        for child in node.named_children:
            if child.type in _BODY_TYPES:
                return child
        return None

    # -- row fields -------------------------------------------------------------------------
    def signature(self, ctx: DefContext) -> str:
        """Header up to the body, whitespace-collapsed."""
        src, node = ctx.src, ctx.node
        start = src.offset(node.start_point)
        body = self.body(node)
        if body is not None and body.start_byte > node.start_byte:
            text = src.text[start : src.offset(body.start_point)]
        else:
            text = src.node_text(node).split("\n", 1)[0]
        text = collapse(text).rstrip("{;= ").strip()
        return text[:400]

    def docstring(self, ctx: DefContext) -> str | None:
        """Default: the block of comments directly above the definition."""
        return self.leading_comments(ctx.outer, ctx.src)

    def leading_comments(self, node: Any, src: Source) -> str | None:
        found = self.leading_comment_nodes(node)
        lines: list[str] = []
        for comment in found:
            text = src.node_text(comment)
            if self.is_doc_comment(text):
                lines.extend(text.splitlines())
        return clean_comment(lines) if lines else None

    def is_doc_comment(self, text: str) -> bool:
        """Whether one comment node above a definition is part of its documentation."""
        return True

    def leading_comment_nodes(self, node: Any) -> list[Any]:
        """The comments directly above ``node`` (attributes / decorators between them and the
        definition skipped), in source order; never a trailing comment of the line above."""
        row = node.start_point[0]
        sib = node.prev_named_sibling
        while sib is not None and sib.type in self.skip_before:
            row = sib.start_point[0]
            sib = sib.prev_named_sibling
        found: list[Any] = []
        while sib is not None and sib.type in self.comment_types:
            if _end_row(sib) < row - 1:
                break
            before = sib.prev_sibling
            if (
                before is not None
                and _end_row(before) == sib.start_point[0]
                and (before.type not in self.comment_types)
            ):
                break  # a trailing comment of the previous statement
            found.append(sib)
            row = sib.start_point[0]
            sib = sib.prev_named_sibling
        return found[::-1]

    def module_doc(self, root: Any, src: Source) -> tuple[str, Any] | None:
        """The file's own documentation and the node holding it (a ``module`` row), if any."""
        return None

    def decorators(self, ctx: DefContext) -> tuple[str, ...]:
        """Decorators / annotations / attributes, as written without the ``@``."""
        return ()

    def is_exported(self, ctx: DefContext) -> bool:
        """Visible outside its file / package."""
        return ctx.parent_exported

    def imports(self, node: Any, names: list[Any], src: Source) -> list[tuple[str, str]]:
        """``(imported name as written, its module)`` pairs of one import node.

        Default: each ``@import.name`` text, unquoted, is both.
        """
        out = []
        for n in names:
            text = strip_quotes(collapse(src.node_text(n)))
            out.append((text, text))
        return out


def _end_row(node: Any) -> int:
    """The last row a node's text is on (a line comment may end at column 0 of the next)."""
    row = int(node.end_point[0])
    if node.end_point[1] == 0 and row > node.start_point[0]:
        row -= 1
    return row


def modifiers_text(node: Any, src: Source, types: frozenset[str]) -> str:
    """The text of a definition's modifier children (``public static`` ...)."""
    parts = [src.node_text(c) for c in node.children if c.type in types]
    return " ".join(parts)
