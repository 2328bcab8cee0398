"""What the code of one file shows about a call's receiver: ``x.m()`` -> the type of ``x``.

The structure queries capture local names (``@bind``, see ``queries/*.scm``): parameters with
their declared types, variables assigned from a constructor (``x = Foo()``, ``new Foo()``,
``&Foo{}``, ``Foo { .. }``) or from a call (``x := NewEngine()``), fields (``@bind.member``:
struct fields, ``self.x = ...``), and any other local (unknown type). For each call whose
receiver is such a name, :class:`Receivers` gives a *hint* that the repository-level resolver
(``resolve.py``) turns into a class: a type name as written (``Context``), ``call:F`` (the
result of calling ``F``), or ``?`` (a local of unknown type: never a module or a global).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragstrata.ingest.code.rules import CONTAINER_KINDS
from ragstrata.ingest.code.source import Source, collapse

__all__ = [
    "UNKNOWN",
    "Binding",
    "Receivers",
    "binding_of",
    "file_receivers",
    "literal_type",
    "type_hint",
]

UNKNOWN = "?"
SELF_WORDS = frozenset({"self", "this", "$this", "cls"})
# languages where a bare name inside a class body may name a field of the class
_IMPLICIT_THIS = frozenset({"java", "csharp", "kotlin", "cpp"})
_SPLIT = re.compile(r"\?\.|->|::|\.")
_LAST = re.compile(r"^(.+?)(?:\?\.|->|::|\.)([A-Za-z_$][\w$]*)$")
_IDENT = re.compile(r"^[A-Za-z_$][\w$]*$")
_TYPE_PATH = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*$")
_WRAPPERS = frozenset({"Box", "Rc", "Arc", "RefCell", "Cell", "Mutex", "RwLock", "Optional"})
_NONE = frozenset({"None", "null", "undefined", "nil"})
_RANK = {"type": 3, "value": 2, "unknown": 1}
# type arguments in brackets closing a type (Go's `Iterator[T]`, `Mapper[T, R]`)
_BRACKET_ARGS = re.compile(r"\[[^\[\]]*\]$")
# a value built in place (Go's composite literal `Iterator[T]{}`, `Client{Name: n}`): its type
_LITERAL = re.compile(r"^([A-Za-z_][\w.]*)(?:\[[^\]]*\])?\{.*\}$")


def literal_type(receiver: str) -> str | None:
    """The type a value built in place is of (``Iterator[T]{}`` -> ``Iterator``), else None."""
    found = _LITERAL.match(receiver)
    return found.group(1) if found is not None else None


def type_hint(text: str) -> str:
    """A declared type as a plain (dotted) name: ``*gin.Context`` -> ``gin.Context``,
    ``Optional[Foo]`` / ``Foo | None`` -> ``Foo``, ``&mut Box<Foo>`` -> ``Foo``; ``?`` when the
    type is not a named one (slices, maps, functions, unions)."""
    text = collapse(text).strip("\"'")
    for _ in range(4):
        text = re.sub(r"^(?:&|\*|mut\s+|dyn\s+|impl\s+|const\s+|final\s+|readonly\s+|\?)", "", text)
        text = re.sub(r"\s*'\w+\s*", "", text) if text.startswith("'") else text
        parts = [p.strip() for p in re.split(r"\|", text) if p.strip() not in _NONE]
        if len(parts) == 1 and parts[0] != text:
            text = parts[0]
            continue
        m = re.match(r"^([\w.:$]+)\s*[<\[](.*)[>\]]$", text)
        if m and m.group(1).rsplit(".", 1)[-1].rsplit(":", 1)[-1] in _WRAPPERS:
            inner = m.group(2).split(",")[0].strip()
            text = inner
            continue
        break
    text = _BRACKET_ARGS.sub("", re.sub(r"<.*>$", "", text).strip())
    return text if _TYPE_PATH.match(text) else UNKNOWN


@dataclass(frozen=True, slots=True)
class Binding:
    """One captured local name: where it is bound and what the code says of its type."""

    node: Any  # the ``@bind`` node
    names: tuple[str, ...]
    member: bool  # a field of the enclosing class / struct (``@bind.member``)
    rank: int  # 3 a type, 2 a call's result, 1 unknown, 0 ``global`` declaration
    hint: str


def binding_of(caps: dict[str, list[Any]], src: Source, callee_text: Any) -> Binding | None:
    """The :class:`Binding` of one query match with a ``@bind`` capture."""
    node = caps["bind"][0]
    if "bind.tuple" in caps:  # a tuple struct's field: its position is its name
        typed = caps["bind.type"][0]
        position = [c.id for c in node.children_by_field_name("type")].index(typed.id)
        return Binding(node, (str(position),), True, 3, type_hint(src.node_text(typed)))
    member = "bind.member" in caps
    names_nodes = caps.get("bind.member") or caps.get("bind.name") or caps.get("bind.global")
    if not names_nodes:
        return None
    names = tuple(src.node_text(n) for n in names_nodes)
    if "bind.global" in caps:
        return Binding(node, names, False, 0, "")
    if "bind.type" in caps:
        return Binding(node, names, member, 3, type_hint(src.node_text(caps["bind.type"][0])))
    if "bind.value" in caps:
        callee = callee_text(src.node_text(caps["bind.value"][0]))
        if "(" in callee or not _TYPE_PATH.match(callee):
            return Binding(node, names, member, 1, UNKNOWN)
        return Binding(node, names, member, 2, "call:" + callee)
    return Binding(node, names, member, 1, UNKNOWN)


class Receivers:
    """Bindings of one file by scope; :meth:`hint` for a call's callee text.

    ``scope_of(node)`` gives the chain of enclosing definitions of a node as
    ``(symbol, is_class)`` pairs, innermost first; ``class_of(symbol)`` the class whose members
    a ``self.x`` in that definition names.
    """

    def __init__(self, language: str, chain: Any, class_of: Any) -> None:
        self.language = language
        self._chain = chain
        self._class_of = class_of
        # scope symbol ("" for the module) -> name -> {bind node id: (rank, hint)}
        self._locals: dict[str, dict[str, dict[int, tuple[int, str]]]] = defaultdict(dict)
        self._members: dict[str, dict[str, dict[int, tuple[int, str]]]] = defaultdict(dict)
        self._globals: dict[str, set[str]] = defaultdict(set)

    def add(self, b: Binding) -> None:
        chain = self._chain(b.node)
        if b.member:
            if not chain:
                return
            owner = chain[0][0] if chain[0][1] else self._class_of(chain[0][0])
            table = self._members[owner] if owner else None
        else:
            scope = chain[0][0] if chain else ""
            if b.rank == 0:
                self._globals[scope].update(b.names)
                return
            table = self._locals[scope]
            if chain and chain[0][1]:  # a name declared in a class body: a field (Java)
                self._put(self._members[scope], b)
        if table is not None:
            self._put(table, b)

    def _put(self, table: dict[str, dict[int, tuple[int, str]]], b: Binding) -> None:
        for name in b.names:
            seen = table.setdefault(name, {})
            prev = seen.get(b.node.id)
            if prev is None or prev[0] < b.rank:
                seen[b.node.id] = (b.rank, b.hint)

    def hint(self, callee: str, node: Any) -> str | None:
        """The receiver hint of a call ``callee`` (as :func:`analyze` writes it) at ``node``."""
        chain = self._chain(node)
        m = _LAST.match(callee)
        if m is not None and m.group(1).endswith("()"):
            return self._result_hint(m.group(1)[:-2], chain)
        literal = literal_type(m.group(1)) if m is not None else None
        if literal is not None:  # `Iterator[T]{}.ForEachIdx()`: a method of the type built
            return literal
        parts = _SPLIT.split(callee)
        if len(parts) == 1 and self.language in _REQUIRING and _IDENT.match(callee):
            # `var send = require('send'); send(...)`: a package, never a definition here
            found = self._local(callee, chain)
            return found if found == "call:require" else None
        if len(parts) < 2 or not all(parts):
            return None
        head = parts[0]
        if head in SELF_WORDS:
            if len(parts) < 3 or not chain:
                return None
            owner = chain[0][0] if chain[0][1] else self._class_of(chain[0][0])
            if len(parts) > 3:
                return UNKNOWN
            return _merge(self._members.get(owner or "", {}).get(parts[1])) or UNKNOWN
        if not _IDENT.match(head):
            return None
        found = self._local(head, chain)
        if found is not None and found.startswith("call:"):
            made = _SPLIT.split(found[5:])
            if len(made) > 1 and self._local(made[0], chain) is not None:
                found = UNKNOWN  # ``y = x.f()`` with a local ``x``: not followed
        if found is None or len(parts) == 2 or found == UNKNOWN:
            return found
        if len(parts) == 3:  # ``x.field.m()``: the field's type, when this file declares it
            for owner, table in self._members.items():
                if _last(owner) == _last(found) and parts[1] in table:
                    return _merge(table[parts[1]])
        return UNKNOWN

    def _result_hint(self, inner: str, chain: list[tuple[str, bool]]) -> str:
        """``f().m()`` / ``new T().m()`` / ``x.f().m()``: the receiver is what ``f`` returns."""
        inner = _BRACKET_ARGS.sub("", inner.strip().removeprefix("new ").strip())
        if not _TYPE_PATH.match(inner):
            return UNKNOWN
        parts = _SPLIT.split(inner)
        if len(parts) == 1 or parts[0] in SELF_WORDS:
            return "call:" + inner
        local = self._local(parts[0], chain)
        if local is None:
            return "call:" + inner  # ``module.f()`` / ``Type::f()``
        if local == UNKNOWN or local.startswith("call:") or len(parts) != 2:
            return UNKNOWN
        return f"call:{local}.{parts[1]}"  # ``x.f()`` with ``x: T`` -> what ``T.f`` returns

    def _local(self, head: str, chain: list[tuple[str, bool]]) -> str | None:
        for symbol, is_class in chain:
            if is_class:
                if self.language in _IMPLICIT_THIS:
                    found = _merge(self._members.get(symbol, {}).get(head))
                    found = found or _merge(self._locals.get(symbol, {}).get(head))
                    if found:
                        return found
                continue
            if head in self._globals.get(symbol, ()):
                break
            found = _merge(self._locals.get(symbol, {}).get(head))
            if found:
                return found
        return _merge(self._locals.get("", {}).get(head))


_REQUIRING = frozenset({"javascript", "typescript", "tsx"})


def _last(symbol: str) -> str:
    return _SPLIT.split(symbol)[-1]


def _merge(found: dict[int, tuple[int, str]] | None) -> str | None:
    """One hint for a name bound at several places: theirs when they agree, else unknown."""
    if not found:
        return None
    hints = {hint for _rank, hint in found.values()}
    return hints.pop() if len(hints) == 1 else UNKNOWN


def file_receivers(
    language: str, entries: Sequence[Any], by_node: Mapping[int, Any], binds: list[Binding]
) -> Receivers:
    """The file's local bindings, scoped by the definitions that enclose them (``entries``:
    the analyzer's definitions and scopes, with ``kind``, ``symbol``, ``parent_def``)."""
    by_symbol = {e.symbol: e for e in entries if e.kind != "scope.namespace"}

    def is_class(e: Any) -> bool:
        return e.kind in CONTAINER_KINDS or e.kind == "scope.impl"

    def chain(node: Any) -> list[tuple[str, bool]]:
        out: list[tuple[str, bool]] = []
        cur = node.parent
        while cur is not None:
            e = by_node.get(cur.id)
            if e is not None and e.kind != "scope.namespace":
                out.append((e.symbol, is_class(e)))
            cur = cur.parent
        return out

    def class_of(symbol: str) -> str | None:
        e = by_symbol.get(symbol)
        while e is not None and not is_class(e):
            if e.parent_def is None:
                return None
            parent = by_symbol.get(e.parent_def)
            if parent is None:
                return e.parent_def  # a Go method of a type declared in another file
            e = parent
        return e.symbol if e is not None else None

    receivers = Receivers(language, chain, class_of)
    for b in binds:
        receivers.add(b)
    return receivers
