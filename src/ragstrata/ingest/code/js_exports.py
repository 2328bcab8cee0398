"""JavaScript / TypeScript: what a file exports beyond ``export`` statements.

A CommonJS module exports an object and fills it in afterwards (``module.exports = res`` then
``res.status = function ...``; ``var app = exports = module.exports = {}``; ``const proto =
module.exports = { ... }``), or adds members through calls (``Object.defineProperty(app,
'router', ...)``, ``defineGetter(req, 'protocol', fn)``, koa's ``delegate(proto,
'response').method('redirect')``). These helpers name the exported objects of a file and the
object a member is added to, so the rules can mark such members public. Pure tree reading.
"""

from __future__ import annotations

import re
from typing import Any

from ragstrata.ingest.code.source import Source

__all__ = [
    "DEFINE_CALLS",
    "DELEGATE_KINDS",
    "delegation_root",
    "exported_objects",
    "is_private_doc",
    "member_target",
    "object_binding",
]

# calls that add one named member to their first argument
DEFINE_CALLS = frozenset(
    {"defineProperty", "defineGetter", "defineSetter", "__defineGetter__", "__defineSetter__"}
)
# koa's `delegates` chain: `.method(name)` adds a function, the others a property
DELEGATE_KINDS = {
    "method": "function",
    "access": "property",
    "getter": "property",
    "setter": "property",
    "fluent": "function",
}
_PRIVATE = re.compile(r"(?m)^\s*@(?:private|internal|api\s+private)\b")
_EXPORTS = ("module.exports", "exports")


def is_private_doc(doc: str | None) -> bool:
    """A JSDoc block marking its item ``@private`` / ``@api private`` / ``@internal``."""
    return bool(doc and _PRIVATE.search(doc))


def _text(node: Any, src: Source) -> str:
    return src.node_text(node) if node is not None else ""


def _chain(node: Any, src: Source, names: set[str]) -> bool:
    """Walk ``a = b = module.exports = value``: add identifiers bound with the exports object;
    True when the chain assigns ``module.exports`` / ``exports``."""
    exported = False
    bound: list[str] = []
    cur = node
    while cur is not None and cur.type == "assignment_expression":
        left = _text(cur.child_by_field_name("left"), src)
        if left in _EXPORTS:
            exported = True
        elif cur.child_by_field_name("left").type == "identifier":
            bound.append(left)
        cur = cur.child_by_field_name("right")
    if exported:
        names.update(bound)
        if cur is not None and cur.type == "identifier":
            names.add(_text(cur, src))
    return exported


def exported_objects(root: Any, src: Source) -> frozenset[str]:
    """Top-level names a file exports as its module object (or ``export default`` / ``export
    { a, b }``)."""
    names: set[str] = set()
    for stmt in root.named_children:
        if stmt.type == "expression_statement" and stmt.named_child_count:
            _chain(stmt.named_children[0], src, names)
        elif stmt.type in ("variable_declaration", "lexical_declaration"):
            for decl in stmt.named_children:
                if decl.type != "variable_declarator":
                    continue
                name, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
                if value is not None and _chain(value, src, names) and name is not None:
                    names.add(_text(name, src))
        elif stmt.type == "export_statement":
            for child in stmt.named_children:
                if child.type == "identifier":
                    names.add(_text(child, src))
                elif child.type == "export_clause":
                    for spec in child.named_children:
                        first = spec.child_by_field_name("name")
                        if first is not None:
                            names.add(_text(first, src))
    return frozenset(names)


def object_binding(obj: Any, src: Source) -> tuple[str, bool]:
    """``(name, exports)`` of an object literal: the variable or member it is assigned to, and
    whether the same assignment chain exports it (``const proto = module.exports = {...}``)."""
    cur, name, exported = obj.parent, "", False
    while cur is not None and cur.type in (
        "assignment_expression",
        "variable_declarator",
        "parenthesized_expression",
    ):
        left = cur.child_by_field_name("left") or cur.child_by_field_name("name")
        text = _text(left, src)
        if text in _EXPORTS or text.startswith(("module.exports.", "exports.")):
            exported = True
        elif text and not name:
            name = text
        cur = cur.parent
    return name, exported


def member_target(left: str) -> str:
    """The object a ``target.name = ...`` assignment adds to (``X.prototype.name`` -> ``X``)."""
    head = left.rsplit(".", 1)[0] if "." in left else ""
    return head.removesuffix(".prototype")


def _raw(node: Any) -> str:
    return bytes(node.text or b"").decode("utf-8", "replace")


def delegation_root(args: Any) -> tuple[str, str] | None:
    """For the ``arguments`` node of ``.method('x')`` in a ``delegate(obj, 'prop')`` chain:
    ``(obj, 'prop')`` as written; ``None`` when the chain does not start with ``delegate``."""
    call = args.parent
    while call is not None and call.type == "call_expression":
        fn = call.child_by_field_name("function")
        if fn is None:
            return None
        if fn.type == "identifier":
            if _raw(fn) not in ("delegate", "delegates", "delegator"):
                return None
            parts = [c for c in (call.child_by_field_name("arguments") or fn).named_children]
            if len(parts) < 2:
                return None
            return _raw(parts[0]), _raw(parts[1]).strip("'\"`")
        if fn.type != "member_expression":
            return None
        call = fn.child_by_field_name("object")
    return None
