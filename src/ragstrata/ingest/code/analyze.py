"""Run a language's structure query over a parsed file and build C1/C2 rows from the matches."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ragstrata.core.rows import (
    DefinitionRow,
    Layer,
    RelationRow,
    SourceFile,
    content_hash,
    row_id,
)
from ragstrata.ingest.code.parsers import grammar
from ragstrata.ingest.code.receivers import Binding, binding_of, file_receivers
from ragstrata.ingest.code.registry import rules_for
from ragstrata.ingest.code.rules import DefContext, LanguageRules
from ragstrata.ingest.code.source import Source, collapse

__all__ = ["Analysis", "Definition", "analyze"]

_ARGS = re.compile(r"\((?:[^()]|\([^()]*\))*\)")
_TYPE_ARGS = re.compile(r"<[^<>()]*>")
_MAX_CALL = 200
_LINE_SLACK = 240  # chars of a definition's first/last line kept outside the node itself


@dataclass(frozen=True, slots=True)
class Definition:
    """A C1 row plus what chunking needs: its span including decorators and doc comments."""

    row: DefinitionRow
    span: tuple[int, int]  # code-point offsets
    depth: int  # 0 for top-level


@dataclass(frozen=True, slots=True)
class Analysis:
    """The structure of one file."""

    definitions: tuple[Definition, ...]
    relations: tuple[RelationRow, ...]
    imports: tuple[str, ...]  # module names, in order of first appearance
    module_symbol: str
    has_errors: bool


@dataclass(slots=True)
class _Entry:
    kind: str  # a definition kind, or "scope.namespace" / "scope.impl"
    node: Any
    name: str
    receiver: str | None
    symbol: str = ""
    parent_def: str | None = None  # symbol of the enclosing definition (or impl type)
    exported: bool = True
    depth: int = 0

    @property
    def is_scope(self) -> bool:
        return self.kind.startswith("scope.")


@dataclass(slots=True)
class _Matches:
    entries: list[_Entry]
    calls: list[tuple[Any, str]]
    constructs: list[tuple[Any, str]]
    references: list[Any]
    imports: list[tuple[Any, list[Any]]]
    bases: list[tuple[str, Any]]
    package: str | None
    binds: list[Binding]


def analyze(file: SourceFile, src: Source) -> Analysis:
    """Parse ``file`` and extract its definitions and relations (raises on grammar failure)."""
    rules = rules_for(file.language)
    g = grammar(file.language)
    tree = g.parse(src.data)
    root = tree.root_node
    found = _collect(g.matches(root), rules, src)
    for entry in found.entries:
        entry.name = rules.entry_name(entry.node, entry.name, file.path)
    qualifier = rules.qualifier(file.path, found.package)
    module_symbol = rules.module_symbol(file.path, found.package)
    entries = _nest(found.entries, rules, qualifier, src)
    by_node = {e.node.id: e for e in entries}

    def enclosing(node: Any) -> _Entry | None:
        cur = node.parent
        while cur is not None:
            entry = by_node.get(cur.id)
            if entry is not None:
                return entry
            cur = cur.parent
        return None

    definitions = [_definition(e, rules, src, file) for e in entries if not e.is_scope]
    module_doc = rules.module_doc(root, src)
    if module_doc is not None:
        definitions.insert(0, _module_definition(file, src, module_symbol, *module_doc))
    relations: dict[tuple[str, str, str, int], RelationRow] = {}

    def add(relation: str, source: str, to_name: str, line: int, hint: str | None = None) -> None:
        key = (relation, source, to_name, line)
        if to_name and key not in relations:
            relations[key] = _relation(file, relation, source, to_name, line, hint)

    for d in definitions:
        if d.row.parent:
            add("contains", d.row.parent, d.row.symbol, d.row.start_line)
    import_modules: list[str] = []
    for node, names in found.imports:
        owner = enclosing(node)
        source = owner.symbol if owner else module_symbol
        for to_name, module in rules.imports(node, names, src):
            add("imports", source, to_name, node.start_point[0] + 1)
            if module and module not in import_modules:
                import_modules.append(module)
    for relation, node in found.bases:
        owner = enclosing(node)
        if owner is not None:
            add(
                relation,
                owner.symbol,
                rules.scope_name(src.node_text(node)),
                node.start_point[0] + 1,
            )
    receivers = file_receivers(file.language, entries, by_node, found.binds)
    for call, callee in found.calls:
        owner = enclosing(call)
        source = owner.symbol if owner else module_symbol
        text = _callee_text(callee)
        add("calls", source, text, call.start_point[0] + 1, receivers.hint(text, call))
    _type_uses(found, enclosing, module_symbol, rules, src, add)
    return Analysis(
        definitions=tuple(definitions),
        relations=tuple(relations.values()),
        imports=tuple(import_modules),
        module_symbol=module_symbol,
        has_errors=root.has_error,
    )


def _collect(
    matches: list[tuple[int, dict[str, list[Any]]]], rules: LanguageRules, src: Source
) -> _Matches:
    out = _Matches([], [], [], [], [], [], None, [])
    seen: set[int] = set()
    for _pattern, caps in matches:
        for key, nodes in caps.items():
            if key.startswith(("definition.", "scope.")):
                node = nodes[0]
                if node.id in seen:
                    break
                name_nodes = caps.get("name")
                if not name_nodes:
                    break
                seen.add(node.id)
                receiver = caps.get("receiver")
                kind = rules.kind_of(key.removeprefix("definition."), node)
                if not kind:
                    break  # the rules reject this match (not a definition after all)
                out.entries.append(
                    _Entry(
                        kind=kind,
                        node=node,
                        name=collapse(src.node_text(name_nodes[0])),
                        receiver=rules.scope_name(src.node_text(receiver[0])) if receiver else None,
                    )
                )
                break
        else:
            if "call" in caps and "call.name" in caps:
                callee = src.node_text(caps["call.name"][0])
                if "call.receiver" in caps:
                    callee = src.node_text(caps["call.receiver"][0]) + rules.call_sep + callee
                elif "call.scope" in caps:
                    callee = src.node_text(caps["call.scope"][0]) + "::" + callee
                if caps["call"][0].type == "macro_invocation":
                    callee += "!"  # a macro is never the function of the same name
                out.calls.append((caps["call"][0], callee))
            elif "construct" in caps and "construct.name" in caps:
                name = src.node_text(caps["construct.name"][0])
                out.constructs.append((caps["construct"][0], name))
            elif "reference" in caps:
                out.references.extend(caps["reference"])
            elif "bind" in caps:
                binding = binding_of(caps, src, _callee_text)
                if binding is not None:
                    out.binds.append(binding)
            elif "import" in caps:
                out.imports.append((caps["import"][0], caps.get("import.name", [])))
            elif "package" in caps and out.package is None:
                out.package = collapse(src.node_text(caps["package"][0])).replace(" ", "")
            for relation in ("inherits", "implements"):
                out.bases.extend((relation, n) for n in caps.get(relation, ()))
    # imports matched by several patterns: keep one per node
    uniq: dict[int, tuple[Any, list[Any]]] = {}
    for node, names in out.imports:
        prev = uniq.get(node.id)
        uniq[node.id] = (node, [*(prev[1] if prev else []), *names])
    out.imports = sorted(uniq.values(), key=lambda item: item[0].start_byte)
    out.calls.sort(key=lambda item: item[0].start_byte)
    return out


def _nest(entries: list[_Entry], rules: LanguageRules, qualifier: str, src: Source) -> list[_Entry]:
    """Give every entry its parent, qualified symbol, final kind and visibility."""
    entries = sorted(entries, key=lambda e: (e.node.start_byte, -e.node.end_byte))
    stack: list[_Entry] = []
    for e in entries:
        while stack and stack[-1].node.end_byte < e.node.end_byte:
            stack.pop()
        while stack and stack[-1].node.start_byte > e.node.start_byte:
            stack.pop()
        container = stack[-1] if stack else None
        name = e.name
        owner_symbol: str | None = container.symbol if container else None
        parent_def = None
        if container is not None:
            parent_def = (
                container.symbol if container.kind != "scope.namespace" else container.parent_def
            )
        explicit_owner = e.receiver
        if explicit_owner is None and e.kind != "scope.namespace":
            for sep in {rules.sep, "::", "."}:
                if sep in name and not name.startswith(sep):
                    explicit_owner, _, name = name.rpartition(sep)
                    break
        if explicit_owner:
            base = owner_symbol or qualifier
            owner_symbol = _join(
                base, rules.scope_name(explicit_owner), rules, top=not owner_symbol
            )
            parent_def = owner_symbol
        kind = e.kind
        owner_kind = container.kind if container else None
        if kind == "function" and (
            explicit_owner or (owner_kind in rules.container_kinds) or owner_kind == "scope.impl"
        ):
            kind = "method"
        sep = rules.method_sep if kind == "method" and rules.method_sep else rules.sep
        if kind == "scope.impl":
            name = rules.scope_name(name)
        if owner_symbol:
            symbol = owner_symbol + sep + name
        else:
            symbol = qualifier + rules.ns_sep + name if qualifier else name
        e.kind, e.name, e.symbol, e.parent_def = kind, name, symbol, parent_def
        e.depth = sum(1 for s in stack if not s.is_scope)
        parent_exported = container.exported if container else True
        outer = rules.outer(e.node)
        e.exported = e.is_scope or rules.is_exported(
            DefContext(e.node, outer, kind, name, parent_exported, src)
        )
        stack.append(e)
    return entries


def _join(base: str, name: str, rules: LanguageRules, *, top: bool) -> str:
    if not base:
        return name
    return base + (rules.ns_sep if top else rules.sep) + name


def _definition(e: _Entry, rules: LanguageRules, src: Source, file: SourceFile) -> Definition:
    outer = rules.outer(e.node)
    ctx = DefContext(e.node, outer, e.kind, e.name, e.exported, src)
    start_line = e.node.start_point[0] + 1
    end_point = e.node.end_point
    end_line = end_point[0] + (
        1 if end_point[1] > 0 or end_point[0] == e.node.start_point[0] else 0
    )
    # whole source lines, unless the line is far longer than the node (minified code)
    node_start, end_off = src.offset(e.node.start_point), src.offset(end_point)
    start_off = src.line_starts[start_line - 1]
    if node_start - start_off > _LINE_SLACK:
        start_off = node_start
    if end_point[1] > 0:
        newline = src.text.find("\n", end_off)
        line_end = len(src.text) if newline == -1 else newline
        if line_end - end_off <= _LINE_SLACK:
            end_off = line_end
    text = src.text[start_off:end_off].rstrip("\r")
    docstring = rules.docstring(ctx)
    span_start = src.offset(outer.start_point)
    if docstring and e.kind != "module":
        span_start = _doc_start(outer, rules, src, span_start)
    row = DefinitionRow(
        id=row_id(Layer.C1, file.path, start_line, end_line, e.symbol),
        path=file.path,
        language=file.language,
        is_test=file.is_test,
        start_line=start_line,
        end_line=end_line,
        content_hash=content_hash(text),
        kind=e.kind,
        name=e.name,
        symbol=e.symbol,
        signature=rules.signature(ctx),
        docstring=docstring,
        decorators=rules.decorators(ctx),
        parent=e.parent_def,
        is_exported=e.exported,
        text=text,
    )
    return Definition(row=row, span=(span_start, src.offset(e.node.end_point)), depth=e.depth)


def _module_definition(
    file: SourceFile, src: Source, symbol: str, docstring: str, node: Any
) -> Definition:
    """The file's own row: its documentation (the row spans the file up to the docstring's end)."""
    end = src.offset(node.end_point)
    end_line = node.end_point[0] + 1
    text = src.text[:end]
    row = DefinitionRow(
        id=row_id(Layer.C1, file.path, 1, end_line, symbol),
        path=file.path,
        language=file.language,
        is_test=file.is_test,
        start_line=1,
        end_line=end_line,
        content_hash=content_hash(text),
        kind="module",
        name=symbol.rsplit(".", 1)[-1],
        symbol=symbol,
        signature=f"module {symbol}",
        docstring=docstring,
        text=text,
    )
    return Definition(row=row, span=(0, end), depth=-1)


def _doc_start(outer: Any, rules: LanguageRules, src: Source, default: int) -> int:
    """Start of the leading comment block, so chunks keep a definition with its docs."""
    sib = outer.prev_named_sibling
    start = default
    while sib is not None and (sib.type in rules.comment_types or sib.type in rules.skip_before):
        if sib.end_point[0] < src.line_of(start) - 2:
            break
        start = src.offset(sib.start_point)
        sib = sib.prev_named_sibling
    return start


def _type_uses(
    found: _Matches,
    enclosing: Callable[[Any], _Entry | None],
    module_symbol: str,
    rules: LanguageRules,
    src: Source,
    add: Callable[[str, str, str, int], None],
) -> None:
    """``constructs`` (every site) and ``references`` (one per definition and type; a Go
    method's own receiver type is no reference) relations of the matches."""
    for node, name in found.constructs:
        owner = enclosing(node)
        source = owner.symbol if owner else module_symbol
        add("constructs", source, _callee_text(name), node.start_point[0] + 1)
    referenced: set[tuple[str, str]] = set()
    for node in found.references:
        owner = enclosing(node)
        source = owner.symbol if owner else module_symbol
        for name in _type_names(node, rules, src):
            if (source, name) not in referenced and (owner is None or name != owner.receiver):
                referenced.add((source, name))
                add("references", source, name, node.start_point[0] + 1)


def _type_names(node: Any, rules: LanguageRules, src: Source) -> list[str]:
    """The type names inside a ``@reference`` node (``*pkg.Config``, ``Vec<Item>``,
    ``Optional[Config]``): each outermost ``type_nodes`` node, builtins left out."""
    out: list[str] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type in rules.type_nodes:
            name = collapse(src.node_text(cur))
            if name and name not in rules.builtin_types and name not in out:
                out.append(name)
            continue
        stack.extend(reversed(cur.named_children))
    return out


def _callee_text(text: str) -> str:
    text = collapse(text)
    for _ in range(3):
        shorter = _ARGS.sub("()", text)
        if shorter == text:
            break
        text = shorter
    text = _TYPE_ARGS.sub("", _TYPE_ARGS.sub("", text))
    return text.removesuffix("()")[:_MAX_CALL]


def _relation(
    file: SourceFile,
    relation: str,
    source: str,
    to_name: str,
    line: int,
    hint: str | None = None,
) -> RelationRow:
    key = f"{relation}\x00{source}\x00{to_name}"
    return RelationRow(
        id=row_id(Layer.C2, file.path, line, line, key),
        path=file.path,
        language=file.language,
        is_test=file.is_test,
        start_line=line,
        end_line=line,
        content_hash=content_hash(key),
        relation=relation,
        from_symbol=source,
        to_name=to_name,
        line=line,
        receiver_type=hint,
    )
