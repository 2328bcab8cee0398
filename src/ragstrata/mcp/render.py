"""Compact text renderings of tool results: what a coding agent reads when it ignores
``structuredContent``. Every piece of evidence is cited as ``path:start-end``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "citation",
    "render_answer",
    "render_candidates",
    "render_definitions",
    "render_hits",
    "render_plan",
    "render_references",
    "render_report",
    "render_status",
]

_SNIPPET = 120
_SOURCE_SHOWN = 3  # definitions whose source is printed in full; the rest get a header line


def citation(path: str, start: int, end: int | None = None) -> str:
    """``path:start-end`` (``path:line`` for one line)."""
    if end is None or end == start:
        return f"{path}:{start}"
    return f"{path}:{start}-{end}"


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            line = " ".join(line.split())
            return line if len(line) <= _SNIPPET else line[: _SNIPPET - 1] + "…"
    return ""


def _layers(plan: Mapping[str, Any]) -> str:
    spec = plan.get("retrieval_spec") or {}
    return ",".join(q.get("layer_id", "?") for q in spec.get("layer_queries", []))


def render_plan(plan: Mapping[str, Any]) -> str:
    """One paragraph: intent, language, anchors, expansions, layers, evidence policy."""
    qp = plan.get("query_plan") or {}
    anchors = ", ".join(
        f"{a.get('type')}:{a.get('value')}" for a in qp.get("anchors", []) if a.get("value")
    )
    policy = plan.get("evidence_policy") or {}
    required = [k.removeprefix("require_") for k, v in policy.items() if k.startswith("require_")]
    required = [k for k in required if policy.get(f"require_{k}")]
    lines = [
        f"intent {plan.get('intent')} ({plan.get('graph_id')}), language {plan.get('language')}, "
        f"mode {plan.get('conversation_mode')}, confidence {plan.get('confidence')}",
        f"anchors: {anchors or '-'}",
        f"expansions: {', '.join(qp.get('expansions', [])) or '-'}",
        f"layers: {_layers(plan) or '-'}; requires: {', '.join(required) or 'nothing'}",
    ]
    return "\n".join(lines)


def render_hits(hits: Sequence[Mapping[str, Any]]) -> str:
    """One line per hit: rank, path:lines, layer, symbol or heading, score, first text line."""
    if not hits:
        return "no hits"
    out = []
    for i, hit in enumerate(hits, 1):
        where = hit.get("symbol") or hit.get("heading_path") or ""
        head = f"{i}. {hit['citation']} [{hit['layer']}] {where}".rstrip()
        out.append(f"{head} ({hit['score']:.4f})")
        snippet = _first_line(hit.get("text") or "")
        if snippet:
            out.append(f"   {snippet}")
    return "\n".join(out)


def render_answer(result: Mapping[str, Any]) -> str:
    """The answer text, then its citations and the evidence status."""
    answer = result["answer"]
    parts = [answer["text"].rstrip()]
    cites = [citation(c["path"], c["start_line"], c["end_line"]) for c in answer["citations"]]
    if cites:
        parts.append("citations:\n" + "\n".join(f"- {c}" for c in cites))
    evidence = result["evidence"]
    status = answer.get("footer") or (
        "evidence: satisfied" if evidence["satisfied"] else "evidence: incomplete"
    )
    if result.get("session"):
        status += f" (session {result['session']})"
    parts.append(status)
    parts.extend(f"note: {notice}" for notice in result.get("notices") or ())
    return "\n\n".join(parts)


def _numbered(source: str, start: int) -> str:
    width = len(str(start + source.count("\n")))
    return "\n".join(f"{n:>{width}} | {line}" for n, line in enumerate(source.splitlines(), start))


def render_definitions(data: Mapping[str, Any]) -> str:
    """Each definition: header with path:lines, signature, docstring, numbered source."""
    defs = data["definitions"]
    out = [f"{len(defs)} definition(s) of {data['symbol']!r} ({data['match']} match):"]
    for i, d in enumerate(defs):
        out.append(f"\n{d['kind']} {d['symbol']} — {d['citation']}")
        if i >= _SOURCE_SHOWN:
            continue
        if d.get("docstring"):
            out.append(f"docstring: {_first_line(d['docstring'])}")
        out.append(_numbered(d["source"], d["start_line"]))
        if d.get("source_truncated"):
            out.append(f"... (source cut; read {d['citation']} for the rest)")
    return "\n".join(out)


def render_references(data: Mapping[str, Any]) -> str:
    """One line per relation: path:line, who relates to whom, and how."""
    refs = data["references"]
    if not refs:
        return f"no {data['direction']} of {data['symbol']!r} recorded in the index"
    noun = data["direction"] if len(refs) > 1 else data["direction"].removesuffix("s")
    out = [f"{len(refs)} {noun} of {data['symbol']!r}:"]
    for ref in refs:
        target = ref["to_symbol"] or f"{ref['to_name']} (unresolved)"
        out.append(f"- {ref['citation']}  {ref['from_symbol']} {ref['relation']} {target}")
    return "\n".join(out)


def render_candidates(message: str, candidates: Sequence[Mapping[str, Any]]) -> str:
    """An error line followed by similar names with their locations."""
    lines = [message]
    lines += [f"- {c['symbol']} ({c['kind']}) — {c['citation']}" for c in candidates]
    return "\n".join(lines)


def _counts(rows: Mapping[str, int]) -> str:
    return ", ".join(f"{layer} {count}" for layer, count in rows.items())


def render_status(data: Mapping[str, Any]) -> str:
    """Rows per layer, stale files, pending embeddings, fingerprint."""
    return (
        f"repo {data['repo']}: rows {_counts(data['rows'])}\n"
        f"stale files {data['stale']}, pending embeddings {data['pending_embeddings']}, "
        f"fingerprint {data['fingerprint']}, updated {data['updated_at']}, "
        f"schema {data['schema_version']}" + _watcher_line(data.get("watcher"))
    )


def _watcher_line(watcher: Any) -> str:
    if not isinstance(watcher, Mapping):
        return ""
    error = f" ({watcher['error']})" if watcher.get("error") else ""
    return f"\nfile watcher {watcher['state']}{error}"


def render_report(data: Mapping[str, Any]) -> str:
    """Files added/changed/removed/unchanged, rows per layer, embeddings, seconds."""
    files = data["files"]
    return (
        f"repo {data['repo']}: files added {files['added']}, changed {files['changed']}, "
        f"removed {files['removed']}, unchanged {files['unchanged']}\n"
        f"rows {_counts(data['rows'])}\n"
        f"embedded {data['embeddings']['done']}, pending {data['embeddings']['pending']}, "
        f"{data['seconds']:.2f} s"
    )
