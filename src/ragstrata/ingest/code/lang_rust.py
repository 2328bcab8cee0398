"""Rust: ``crate::module::Type::method`` names, ``pub``, ``///`` docs and ``#[...]`` attributes."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from ragstrata.core.languages import rust_module
from ragstrata.ingest.code.rules import DefContext, LanguageRules
from ragstrata.ingest.code.source import Source, collapse

__all__ = ["RustRules", "expand_use", "rust_module"]

_LIFETIME = re.compile(r"'\w+\s*,?\s*")


def expand_use(text: str) -> list[str]:
    """``a::{b, c::{d, e}}`` -> ``a::b``, ``a::c::d``, ``a::c::e`` (``as`` renames dropped)."""
    text = collapse(text).replace(" ", "").replace("\n", "")
    brace = text.find("{")
    if brace == -1:
        return [text.split("as", 1)[0] if "::" not in text.rsplit("as", 1)[0] else _drop_as(text)]
    prefix, inner = text[:brace], text[brace + 1 : text.rfind("}")]
    items, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    items.append(cur)
    out: list[str] = []
    for item in items:
        if not item:
            continue
        for sub in expand_use(item):
            out.append(prefix.removesuffix("::") if sub == "self" else prefix + sub)
    return out


def _drop_as(text: str) -> str:
    head, sep, tail = text.rpartition("as")
    if sep and head.endswith(("::", "}")) is False and tail.isidentifier() and head:
        return head
    return text


class RustRules(LanguageRules):
    language: ClassVar[str] = "rust"
    sep: ClassVar[str] = "::"
    ns_sep: ClassVar[str] = "::"
    skip_before: ClassVar[frozenset[str]] = frozenset({"attribute_item"})

    def qualifier(self, path: str, package: str | None) -> str:
        return rust_module(path)

    def scope_name(self, text: str) -> str:
        """``&'de mut Map<K, V>`` -> ``Map``; ``dyn Fn() + 'a`` -> ``Fn``: no reference,
        lifetime, ``mut``/``dyn`` or generics in a type's name."""
        text = _LIFETIME.sub("", collapse(text))
        text = re.sub(r"^(?:[&*]|mut\s+|const\s+|dyn\s+|impl\s+)+", "", text.strip())
        return super().scope_name(text.split("+", 1)[0].strip())

    def is_doc_comment(self, text: str) -> bool:
        """Outer doc comments only: ``///`` (not ``////``) and ``/** */`` (not ``/***``); a plain
        ``//`` comment or an inner ``//!`` never documents the item below it."""
        if text.startswith("///"):
            return not text.startswith("////")
        return text.startswith("/**") and not text.startswith(("/***", "/**/"))

    def decorators(self, ctx: DefContext) -> tuple[str, ...]:
        found: list[str] = []
        sib = ctx.node.prev_named_sibling
        while sib is not None and sib.type in self.skip_before | self.comment_types:
            if sib.type == "attribute_item":
                text = collapse(ctx.src.node_text(sib))
                found.append(text.removeprefix("#[").removesuffix("]"))
            sib = sib.prev_named_sibling
        return tuple(reversed(found))

    def is_exported(self, ctx: DefContext) -> bool:
        if ctx.node.type == "impl_item":
            return True
        for child in ctx.node.children:
            if child.type == "visibility_modifier":
                return ctx.src.node_text(child).startswith("pub")
        container = ctx.node.parent.parent if ctx.node.parent is not None else None
        if container is not None and (
            container.type == "trait_item"
            or (container.type == "impl_item" and container.child_by_field_name("trait"))
        ):
            return ctx.parent_exported
        return False

    def imports(self, node: Any, names: list[Any], src: Source) -> list[tuple[str, str]]:
        out = []
        for n in names:
            for path in expand_use(src.node_text(n)):
                out.append((path, path))
        return out
