"""JavaScript, TypeScript and TSX: path-based module names, ``export``, JSDoc comments."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from ragstrata.ingest.code.js_exports import (
    DELEGATE_KINDS,
    delegation_root,
    exported_objects,
    is_private_doc,
    member_target,
    object_binding,
)
from ragstrata.ingest.code.rules import DefContext, LanguageRules
from ragstrata.ingest.code.source import Source, collapse

__all__ = ["JavaScriptRules", "TsxRules", "TypeScriptRules", "strip_extension"]

_MEMBERS = frozenset(
    {
        "method_definition",
        "method_signature",
        "abstract_method_signature",
        "field_definition",
        "public_field_definition",
    }
)
# definitions that bind a function value to a name: `name = (...) => {...}`
_BOUND = frozenset(
    {
        "variable_declarator",
        "field_definition",
        "public_field_definition",
        "pair",
        "assignment_expression",
    }
)
# a JSDoc block that documents the file (or is a licence), never the item below it
_FILE_DOC = re.compile(r"@(?:file|fileoverview|overview|module|license|preserve)\b")
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "generator_function"})
_EXTENSIONS = (".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")


def strip_extension(path: str) -> str:
    """``src/api/client.ts`` -> ``src/api/client``."""
    for ext in _EXTENSIONS:
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


class JavaScriptRules(LanguageRules):
    language: ClassVar[str] = "javascript"
    wrappers: ClassVar[frozenset[str]] = frozenset(
        {"export_statement", "lexical_declaration", "variable_declaration", "expression_statement"}
    )
    skip_before: ClassVar[frozenset[str]] = frozenset({"decorator"})
    container_kinds: ClassVar[frozenset[str]] = frozenset({"class", "interface"})

    def __init__(self) -> None:
        self._exports: tuple[Source, frozenset[str]] | None = None

    def qualifier(self, path: str, package: str | None) -> str:
        return strip_extension(path)

    def entry_name(self, node: Any, name: str, path: str) -> str:
        """``module.exports = function f(..) {..}`` is ``f``; an anonymous one is named after
        its file (``lib/send.js`` -> ``send``; an ``index`` file after its folder)."""
        left = node.child_by_field_name("left") if node.type == "assignment_expression" else None
        if left is None or left.type != "member_expression" or name != "exports":
            return name
        obj = left.child_by_field_name("object")
        if obj is None or obj.text != b"module":
            return name
        right = node.child_by_field_name("right")
        own = right.child_by_field_name("name") if right is not None else None
        if own is not None and own.text:
            return own.text.decode("utf-8", errors="replace")
        stem, _, folder = strip_extension(path).rpartition("/")[::-1]
        if stem == "index" and folder:
            stem = folder.rsplit("/", 1)[-1]
        return stem or name

    def kind_of(self, kind: str, node: Any) -> str:
        if node.type == "method_definition" and any(
            c.type in ("get", "set") for c in node.children
        ):
            return "property"  # `get URL() {...}` / `set body(v) {...}`
        if node.type == "assignment_expression":  # `exports.x = <value>`: a function value
            value = node.child_by_field_name("right")
            return "function" if value is not None and value.type in _FUNCTIONS else kind
        if node.type != "arguments":
            return kind
        # `.method('x')` of a `delegate(obj, 'prop')` chain; any other `.method('x')` call is no
        # definition
        fn = node.parent.child_by_field_name("function") if node.parent is not None else None
        prop = fn.child_by_field_name("property") if fn is not None else None
        if prop is None or delegation_root(node) is None:
            return ""
        return DELEGATE_KINDS.get(bytes(prop.text or b"").decode("utf-8", "replace"), "")

    def outer(self, node: Any) -> Any:
        if node.type in ("member_expression", "assignment_expression"):
            # an alias chain `a.x = a.y = function`: each name documented by its statement
            while node.parent is not None and node.parent.type == "assignment_expression":
                node = node.parent
            return super().outer(node)
        parent = node.parent
        # `const a = 1, b = () => {}`: the declarator alone
        if (
            node.type == "variable_declarator"
            and parent is not None
            and parent.named_child_count > 1
        ):
            return node
        return super().outer(node)

    def leading_comment_nodes(self, node: Any) -> list[Any]:
        found = super().leading_comment_nodes(node)
        if found:
            return found
        # JSDoc is often set off by one blank line (`/** ... */`, blank, `res.send = ...`)
        sib = node.prev_named_sibling
        while sib is not None and sib.type in self.skip_before:
            sib = sib.prev_named_sibling
        if (
            sib is None
            or sib.type not in self.comment_types
            or node.start_point[0] - sib.end_point[0] > 2
        ):
            return []
        text = bytes(sib.text or b"").decode("utf-8", "replace")
        before = sib.prev_sibling
        if (
            not text.startswith("/**")
            or _FILE_DOC.search(text)
            or (before is not None and before.end_point[0] == sib.start_point[0])
        ):
            return []
        return [sib]

    def signature(self, ctx: DefContext) -> str:
        node, src = ctx.node, ctx.src
        if node.type == "arguments":  # delegate(proto, 'response').method('redirect')
            root = delegation_root(node)
            fn = node.parent.child_by_field_name("function")
            method = src.node_text(fn.child_by_field_name("property"))
            obj, prop = root or ("", "")
            return f"delegate({obj}, '{prop}').{method}('{ctx.name}')"
        if node.type == "member_expression":  # res.set = res.header = function header(f, v)
            chain = node.parent
            while chain.parent is not None and chain.parent.type == "assignment_expression":
                chain = chain.parent
            fn = chain
            while fn.type == "assignment_expression":
                fn = fn.child_by_field_name("right")
            body = fn.child_by_field_name("body")
            end = src.offset(body.start_point) if body is not None else src.offset(fn.end_point)
            return collapse(src.text[src.offset(chain.start_point) : end]).rstrip("{;= ")[:400]
        if node.type == "call_expression":  # Object.defineProperty(app, 'router', {...})
            return collapse(src.node_text(node).split("\n", 1)[0]).rstrip("{;=,( ").strip()[:400]
        if node.type in _BOUND:
            value = node.child_by_field_name("value") or node.child_by_field_name("right")
            body = value.child_by_field_name("body") if value is not None else None
            start = src.offset(ctx.outer.start_point)
            if ctx.kind in {"function", "method"} and body is not None:
                text = src.text[start : src.offset(body.start_point)]
            else:
                text = src.node_text(ctx.outer).split("\n", 1)[0]
            return collapse(text).rstrip("{;= ").strip()[:400]
        return super().signature(ctx)

    def decorators(self, ctx: DefContext) -> tuple[str, ...]:
        found: list[str] = []
        sib = ctx.outer.prev_named_sibling
        while sib is not None and sib.type == "decorator":  # a class member's decorators
            found.insert(0, collapse(ctx.src.node_text(sib)).lstrip("@"))
            sib = sib.prev_named_sibling
        for holder in (ctx.outer, ctx.node):
            for child in holder.children:
                if child.type == "decorator":
                    found.append(collapse(ctx.src.node_text(child)).lstrip("@"))
        return tuple(dict.fromkeys(found))

    def is_exported(self, ctx: DefContext) -> bool:
        node = ctx.node
        parent_type = node.parent.type if node.parent is not None else ""
        if node.type == "pair" or (node.type in _MEMBERS and parent_type == "object"):
            name, exports = object_binding(node.parent, ctx.src)
            return (exports or name in self._exported(ctx)) and self._not_private(ctx)
        if node.type in _MEMBERS:
            if ctx.name.startswith("#"):
                return False
            for child in node.children:
                if child.type == "accessibility_modifier" and ctx.src.node_text(child) != "public":
                    return False
            return ctx.parent_exported
        if node.type in ("assignment_expression", "member_expression"):  # res.f = ...
            left = ctx.src.node_text(node.child_by_field_name("left") or node)
            if left.startswith(("module.exports", "exports.")):
                return self._not_private(ctx)
            return self._adds_to_exports(member_target(left), ctx)
        if node.type == "arguments":
            root = delegation_root(node)
            return root is not None and self._adds_to_exports(root[0], ctx)
        if node.type == "call_expression":
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            target = ctx.src.node_text(first) if first is not None else ""
            return target in ("module.exports", "exports") or self._adds_to_exports(target, ctx)
        cur = node
        while cur is not None and cur.type != "program":
            if cur.type == "export_statement":
                return True
            cur = cur.parent
        # `module.exports = createApplication; function createApplication() {...}`
        return (
            node.parent is not None
            and node.parent.type == "program"
            and (self._adds_to_exports(ctx.name, ctx))
        )

    def _adds_to_exports(self, target: str, ctx: DefContext) -> bool:
        return bool(target) and target in self._exported(ctx) and self._not_private(ctx)

    def _not_private(self, ctx: DefContext) -> bool:
        return not is_private_doc(self.docstring(ctx))

    def _exported(self, ctx: DefContext) -> frozenset[str]:
        """The names this file exports as its module object (memoised for the last file)."""
        cached = self._exports
        if cached is not None and cached[0] is ctx.src:
            return cached[1]
        root = ctx.node
        while root.parent is not None:
            root = root.parent
        names = exported_objects(root, ctx.src)
        self._exports = (ctx.src, names)
        return names


class TypeScriptRules(JavaScriptRules):
    language: ClassVar[str] = "typescript"


class TsxRules(JavaScriptRules):
    language: ClassVar[str] = "tsx"
