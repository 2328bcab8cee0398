"""Tool descriptions and server instructions, written for coding agents: when to use which
tool, what comes back, and that every piece of evidence carries ``path:start-end``."""

from __future__ import annotations

__all__ = ["INSTRUCTIONS", "TOOLS"]

INSTRUCTIONS = """\
ragstrata answers questions about an indexed repository (code and docs) from retrieved \
evidence; every hit, definition, reference and citation carries path:start-end line numbers \
you can open directly. Questions may be in Russian or English.
Pick the narrowest tool: get_definition when you know a symbol name; find_references for who \
calls / imports / inherits it (or what it calls); search_code to find where something is \
implemented or documented; ask for a cited, written answer to a how/why question. \
index_status tells whether the index is fresh; reindex refreshes it after you edit files. \
route_question only shows how a question would be understood (debugging)."""

TOOLS: dict[str, str] = {
    "route_question": """\
Show how ragstrata understands a question, without searching: intent (code QA, docs, \
architecture...), detected language, anchors (symbols, paths, key terms), query expansions \
(Russian terms are mapped to English code vocabulary), the layers it would search (C0 files, \
C1 definitions, C2 relations, C3 code chunks, D0-D2 docs) and the evidence it requires. \
Use it to debug a poor search or answer; for evidence call search_code, for an answer call ask. \
Pass conversation_state (the previous plan's state) to see how a follow-up is resolved.""",
    "search_code": """\
Find where something is implemented or documented. Give a natural-language question or \
keywords in English or Russian ("where is the retry delay computed?", "где проверяется \
токен?"). Returns ranked hits, best first, each with path:start-end, layer, enclosing symbol or \
doc heading, score, the reasons it ranked and its text; plus the router plan. Optional: top_k \
(default 10), layers to restrict to (C0 files, C1 definitions, C2 call/import relations, \
C3 code chunks, D0 doc files, D1 doc sections, D2 doc chunks). Use get_definition instead when \
you already know the exact symbol name.""",
    "ask": """\
Answer a question about the repository in prose, grounded in retrieved evidence, in the \
question's language (Russian or English). Returns the answer (status answered / partial / \
not_found, its lead sentence, the text) with citations (path:start-end), the evidence hits, \
whether the evidence policy was satisfied (partial: answered from the best evidence, the \
missing requirement named; not_found: a name that exists nowhere in the index) and the plan. Pass the same \
session name for follow-up questions so "it"/"this function" resolve to the previous topic. \
Slower than search_code; use it when you want an explanation, not locations.""",
    "get_definition": """\
Get the definition of a symbol (class, function, method, constant, type): its kind, \
qualified name, path:start-end, signature, docstring and full source with line numbers. \
Accepts a short name ("charge", any case), a qualified name ("payments.gateway.Gateway"), \
a dotted tail ("Gateway.send", "Gateway::send", "Gateway#send") or a name in a file \
("src/payments/gateway.py:charge"); matching goes exact name -> qualified name -> dotted \
suffix -> same letters ignoring case and underscores (the resolver ask and search use), best \
first, several results when the name is defined in several places. An unknown name returns \
an error listing similar names with their locations.""",
    "find_references": """\
Find the references around a symbol from the code graph: direction "callers" (default) lists \
every call site, construction, declaration naming the type, import, subclass or \
implementation that uses the symbol; "callees" lists \
what the symbol itself calls / imports / inherits. Each reference has path:line, the \
relation kind, the symbol it happens in, and the target (resolved qualified name, or the name \
as written when it could not be resolved). Use before changing a function's signature. An \
unknown symbol returns an error listing similar names.""",
    "index_status": """\
Report the index of the repository: rows per layer (C0-C3 code, D0-D2 docs), how many files \
changed on disk since indexing (stale), embeddings still pending, embedder fingerprint, \
last update time and schema version. If stale > 0, call reindex before trusting results \
about recently edited files.""",
    "reindex": """\
Refresh the index incrementally: only new, changed and removed files are processed, so it is \
cheap after small edits. Returns files added/changed/removed/unchanged, rows per layer, \
embeddings done and pending, and seconds taken. rebuild=true deletes and rebuilds the whole \
index (slow; only when index_status or an error says the index is incompatible).""",
}
