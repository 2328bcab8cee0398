"""The retriever: run a router plan's layer queries, fuse, follow flow, check the policy.

For the question and every sub-query, per layer of ``retrieval_spec.layer_queries``:

- lexical lists (``lexical``, ``ident``, ``raw``; see :mod:`ragstrata.retrieve.lexical`); C2
  relations only with identifiers, and the other layers in one combined search split per
  layer (one pass over the postings instead of one per layer),
- a dense list per query embedding, one search over the layers that have vectors,
- for SYMBOL anchors a C1 symbol lookup (exact -> qualified -> suffix -> fuzzy),

then one hop of C2 flow from the definitions found, weighted RRF with the plan's rerank
profile, grouping of hits that repeat the same lines, and the evidence-policy check.

Filters: ``path_scope`` -> path prefixes (an entry that is no prefix is resolved against the
catalog by path suffix, ``service.py`` -> ``src/users/service.py``), ``test_policy`` ->
``is_test``, ``language`` -> languages (JavaScript's with TypeScript). When the path scope
matches nothing the search runs again without it and every hit says so in its reasons.
Sub-queries retrieve with half the depth and ``sub_query_weight``; their reasons are prefixed
``subN``. For a how-question, code beside the project's own follows it (``own_code_first``).

Measured (``bench/query.py``, stdlib: 2,241 files, 530k rows, 75k vectors, 2 busy cores):
warm p50 ≈ 57 ms (EN) / 94 ms (RU), 66 ms overall.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial

from ragstrata.core.evidence import Evidence, Hit
from ragstrata.core.languages import detect_language
from ragstrata.core.values import ScoredRow, SearchFilters
from ragstrata.embed.base import Embedder
from ragstrata.errors import ConfigError
from ragstrata.query.facets import facets_of
from ragstrata.query.kinds import symbol_kinds
from ragstrata.query.models import LAYER_IDS, AnchorType, RouterPlan, TestPolicy
from ragstrata.retrieve.dense import dense_search, query_vectors
from ragstrata.retrieve.echo import demote_echoes, demote_translations, own_code_first
from ragstrata.retrieve.flow import flow_lists
from ragstrata.retrieve.fusion import RankedList, fuse, group_hits, hit_from_row, is_container
from ragstrata.retrieve.lexical import MOSTLY_CYRILLIC, TermList, lexical_search, term_lists
from ragstrata.retrieve.mentions import clean_path, indexed_files, path_mentions
from ragstrata.retrieve.policy import check_policy, near_misses
from ragstrata.retrieve.profiles import Profile, direction_weight, get_profile
from ragstrata.retrieve.symbols import SymbolMatch, lookup, named_symbols
from ragstrata.settings import Settings
from ragstrata.store.protocols import Store
from ragstrata.text.tokens import cyrillic_ratio, is_identifier, word_tokens

__all__ = ["RELAXED_LANGUAGE", "RELAXED_SCOPE", "Retriever", "plan_filters"]

RELAXED_SCOPE = "path_scope relaxed"
"""Reason prefix on every hit when the plan's path scope matched nothing."""
RELAXED_LANGUAGE = "language filter relaxed"
"""Reason prefix on every hit when a language the plan filters by has no indexed file."""

_DEFAULT_LAYER_K = 10
_MAX_SUB_QUERIES = 4
_LEXICAL_FACTOR = 2  # a combined lexical search asks for twice the layers' summed depth
_SIDE_DEPTH = 5
_FLOW_DEFS = 3  # definitions whose callers and callees are followed
_PROMOTE_LOOKUP = 8  # same-named definitions looked at when a chunk is promoted
_MAX_LOOKUPS = 12  # symbol lookups per question (the most confident names first)
_MAX_PATH_MENTIONS = 8  # mentioned files looked up per question
_PATH_DEFS = 50  # definitions of a mentioned file searched for the one holding a mentioned line
_TRUSTED = 0.85  # SYMBOL anchor confidence from which a lookup weighs fully

_IS_TEST = {TestPolicy.EXCLUDE: False, TestPolicy.ONLY: True, TestPolicy.INCLUDE: None}


def plan_filters(
    plan: RouterPlan, prefixes: Sequence[str] | None, languages: Sequence[str] | None = None
) -> SearchFilters:
    """The store filters of ``plan`` with ``prefixes`` for its (resolved) path scope and
    ``languages`` for its language filter (default: the plan's own)."""
    f = plan.retrieval_spec.filters
    return SearchFilters(
        path_prefixes=tuple(prefixes) if prefixes else None,
        languages=tuple(f.language if languages is None else languages) or None,
        is_test=_IS_TEST[f.test_policy],
    )


class Retriever:
    """Runs plans against one store with one embedder; cheap to construct."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None,
        settings: Settings | None = None,
        *,
        profile: Profile | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings or Settings()
        self._profile = profile

    # ------------------------------------------------------------------ public

    def retrieve(
        self, plan: RouterPlan, *, top_k: int = 10, layers: Sequence[str] | None = None
    ) -> Evidence:
        """Ranked, grouped hits for ``plan`` (at most ``top_k``) and the policy check.

        ``layers`` restricts the search to these layer ids (layers the plan does not list are
        searched with a default depth)."""
        if top_k <= 0:
            raise ValueError(f"top_k must be a positive integer, got {top_k!r}")
        encoder = str(getattr(self.embedder, "model_name", ""))
        profile = self._profile or get_profile(plan.retrieval_spec.rerank_profile, encoder)
        depths = _layer_depths(plan, layers)
        scope = list(plan.retrieval_spec.filters.path_scope)
        wanted = list(plan.retrieval_spec.filters.language)
        paths = list(self.store.catalog()) if scope or wanted else []  # read once for both
        prefixes = _resolve_scope(scope, paths) if scope else None
        relaxed = False
        if scope and not prefixes:
            relaxed = True
        # a language no indexed file is in ("math.h" pasted into a Python issue) narrows to nothing
        languages = _indexed_languages(wanted, paths) if wanted else None
        if languages:  # "in JavaScript" of a TypeScript code base: its TypeScript too
            dialects = [d for lang in languages for d in _DIALECTS.get(lang, ())]
            languages += [d for d in _indexed_languages(dialects, paths) if d not in languages]
        filters = plan_filters(plan, None if relaxed else prefixes, languages)
        lists, matches = self._all_lists(plan, profile, depths, filters)
        if scope and not relaxed and not any(lst.rows for lst in _asked_lists(plan, lists)):
            relaxed = True
            filters = plan_filters(plan, None, languages)
            lists, matches = self._all_lists(plan, profile, depths, filters)
        fused = fuse(lists, profile.rrf_k)
        flow_hits = [
            h for h in fused if h.layer == "C2" and any(r.startswith("flow:") for r in h.reasons)
        ]
        hits = demote_echoes(group_hits(self._promote(fused)), plan.query_plan.raw)
        facets = facets_of(plan)
        if facets.how:  # how it works: not what it prints
            hits = demote_translations(hits, plan.query_plan.raw)
            if not facets.mentions_aside:  # the project's code, not a copy beside it
                hits = own_code_first(hits)
        if not flow_hits:  # flow found but not among fused C2 (e.g. --layer excludes C2)
            flow_hits = [
                hit_from_row(r, 0.0, (lst.label,))
                for lst in lists
                if lst.kind == "flow"
                for r in lst.rows
            ]
        notes = [f"{RELAXED_SCOPE}: nothing under {', '.join(scope)}"] if relaxed else []
        if languages is not None and not set(wanted) <= set(languages):
            missing = [lang for lang in wanted if lang not in languages]
            notes.append(f"{RELAXED_LANGUAGE}: no {', '.join(missing)} files indexed")
        if notes:
            hits = [replace(h, reasons=(*h.reasons, *notes)) for h in hits]
        requirements = check_policy(plan, hits, matches, flow_hits)
        candidates = near_misses(self.store, matches, filters) if matches else ()
        return Evidence(hits=tuple(hits[:top_k]), requirements=requirements, candidates=candidates)

    # ------------------------------------------------------------------ lists

    def _all_lists(
        self,
        plan: RouterPlan,
        profile: Profile,
        depths: dict[str, int],
        filters: SearchFilters,
    ) -> tuple[list[RankedList], list[SymbolMatch]]:
        lists: list[RankedList] = []
        vocab = self._vocabulary_probe()
        qp = plan.query_plan
        lists += self._query_lists(qp.normalized, plan, profile, depths, filters, 1.0, "", vocab)
        for i, sub in enumerate(qp.sub_queries[:_MAX_SUB_QUERIES], 1):
            if sub.strip() and sub.strip() != qp.normalized.strip():
                w = profile.sub_query_weight
                lists += self._query_lists(
                    sub, None, profile, depths, filters, w, f"sub{i} ", vocab
                )
        trust = _symbol_trust(plan)
        names = named_symbols(plan)[:_MAX_LOOKUPS]
        kinds = symbol_kinds(plan)  # "the Value enum": an enum named Value, not an alias
        matches = [lookup(self.store, name, filters, kinds=kinds.get(name, ())) for name in names]
        if "C1" in depths:
            for m in matches:
                if not m.hits:
                    continue
                # the definitions that count as the named symbol weigh fully (shared among
                # them); the other matches are candidates and weigh fuzzy_weight
                found = m.definitions
                rest = tuple(h for h in m.hits if h not in found)
                base = profile.weight("symbol", "C1") * trust.get(m.name, 1.0)
                label = f"symbol:{m.mode} {m.name}"
                if found:
                    w = base / math.sqrt(len(found))
                    lists.append(RankedList("symbol", "C1", label, w, found))
                if rest:
                    w = base * profile.fuzzy_weight / math.sqrt(len(rest))
                    lists.append(RankedList("symbol", "C1", f"{label} (near)", w, rest))
        if "C2" in depths or plan.evidence_policy.require_flow:
            defs = [r.symbol for m in matches for r in m.definitions if r.symbol]
            defs = list(dict.fromkeys(defs))[:_FLOW_DEFS]
            if not defs:
                prelim = fuse([lst for lst in lists if lst.layer == "C1"], profile.rrf_k)
                defs = [h.symbol for h in prelim[:_FLOW_DEFS] if h.symbol]
            w = profile.weight("flow", "C2")
            prefer = facets_of(plan).direction
            if _asks_flow(plan, prefer is not None):
                w *= profile.flow_boost
            lists += flow_lists(
                self.store, defs, filters, w, prefer=prefer, direction_weight=direction_weight()
            )
        lists += self._path_lists(plan, profile, filters)
        return lists, matches

    def _path_lists(
        self, plan: RouterPlan, profile: Profile, filters: SearchFilters
    ) -> list[RankedList]:
        """Files the question mentions (typed, in pasted code, in traceback frames) that exist
        in the index: each file's C0 row, then its definitions that hold a mentioned line.
        Strong evidence for where to look, whatever the path scope did."""
        weight = profile.weight("path", "C0")
        mentions = path_mentions(plan, _MAX_PATH_MENTIONS)
        if weight <= 0 or not mentions:
            return []
        paths = list(self.store.catalog())
        rows: list[ScoredRow] = []
        defs: list[ScoredRow] = []
        for entry, line in mentions:
            for path in indexed_files(entry, paths)[:1]:
                scope = replace(filters, path_prefixes=(path,))
                rows += lexical_search(self.store, [path], replace(scope, layers=("C0",)), 1)
                if line is not None:
                    found = lexical_search(
                        self.store,
                        [plan.query_plan.normalized],
                        replace(scope, layers=("C1",)),
                        _PATH_DEFS,
                    )
                    inside = [r for r in found if r.start_line <= line <= r.end_line]
                    defs += sorted(inside, key=lambda r: r.end_line - r.start_line)[:1]
        out = []
        if rows:
            out.append(RankedList("path", "C0", "path:C0", weight, tuple(rows)))
        if defs:
            w = profile.weight("path", "C1")
            out.append(RankedList("path", "C1", "path:C1", w, tuple(defs)))
        return out

    def _query_lists(
        self,
        text: str,
        plan: RouterPlan | None,
        profile: Profile,
        depths: dict[str, int],
        filters: SearchFilters,
        scale: float,
        prefix: str,
        vocab: Callable[[str], bool],
    ) -> list[RankedList]:
        out: list[RankedList] = []
        shallow = {layer: max(1, k // 2) for layer, k in depths.items()}
        if plan is None:  # a sub-query: its lists weigh less, so fewer of their rows matter
            depths = shallow
        for terms in term_lists(text, plan, vocab):
            if plan is None and terms.kind == "ident":
                continue  # the question's identifiers already have their own list
            d = shallow if terms.kind == "raw" else depths
            found = self._lexical(d, terms, filters)
            out += _ranked(found, terms.kind, f"{prefix}{terms.kind}", profile, scale)
        dense_depths = self._dense_depths(depths)
        if self.embedder is not None and dense_depths:  # no model load for a plan without them
            for label, q in _dense_texts(text, plan):
                vec = query_vectors(self.embedder, [q])[0]
                found = self._dense(dense_depths, vec, filters)
                w = scale * (profile.raw_dense_weight if label == "dense:raw" else 1.0)
                out += _ranked(found, "dense", f"{prefix}{label}", profile, w)
        return out

    def _lexical(
        self, depths: dict[str, int], terms: TermList, filters: SearchFilters
    ) -> dict[str, list[ScoredRow]]:
        """A lexical list per layer. Relations (C2: "a calls b") are searched with identifiers
        only, unless C2 is all that was asked for; C2 has most of the rows and would crowd a
        combined list, so it is searched on its own and the other layers together."""
        search = partial(lexical_search, self.store, terms.terms)
        depths = dict(depths)
        c2 = depths.pop("C2", None)
        out: dict[str, list[ScoredRow]] = {}
        if c2 is not None and (terms.kind == "ident" or not depths):
            out["C2"] = search(replace(filters, layers=("C2",)), c2)
        if depths:
            out.update(_split(depths, search, filters, _LEXICAL_FACTOR))
        return out

    def _dense_depths(self, depths: dict[str, int]) -> dict[str, int]:
        """The layers of ``depths`` that have vectors in this store."""
        embedded = getattr(self.store, "embed_layers", None)
        if embedded is None:
            return depths
        names = {str(x) for x in embedded}
        return {layer: k for layer, k in depths.items() if layer in names}

    def _dense(
        self, depths: dict[str, int], vector: Sequence[float], filters: SearchFilters
    ) -> dict[str, list[ScoredRow]]:
        """One dense search over the layers that have vectors (one pass over the matrix)."""
        assert self.embedder is not None
        depths = self._dense_depths(depths)
        if not depths:
            return {}
        search = partial(dense_search, self.store, vector, self.embedder.fingerprint)
        return _split(depths, search, filters, 1)

    def _promote(self, hits: list[Hit]) -> list[Hit]:
        """A code chunk found inside a member definition (function, method, ...) stands for
        that definition: it becomes a hit on the definition's own span, so the chunk's rank
        is evidence for the definition and not for the class or module around it (grouping
        then merges it with the definition's own hit). Chunks of a container's own lines, or
        spanning several definitions, stay chunks."""
        out: list[Hit] = []
        cache: dict[tuple[str, str], ScoredRow | None] = {}
        for hit in hits:
            if hit.layer != "C3" or not hit.symbol:
                out.append(hit)
                continue
            key = (hit.path, hit.symbol)
            if key not in cache:
                cache[key] = self._enclosing(hit)
            row = cache[key]
            if row is None:
                out.append(hit)
                continue
            out.append(hit_from_row(row, hit.score, hit.reasons))
        return out

    def _enclosing(self, chunk: Hit) -> ScoredRow | None:
        assert chunk.symbol is not None
        found = self.store.lookup_symbol(
            chunk.symbol, "exact", SearchFilters(path_prefixes=(chunk.path,)), _PROMOTE_LOOKUP
        )
        inside = [
            r
            for r in found
            if r.path == chunk.path
            and r.start_line <= chunk.start_line
            and chunk.end_line <= r.end_line
            and not is_container(r.row)
        ]
        return min(inside, key=lambda r: r.end_line - r.start_line, default=None)

    def _vocabulary_probe(self) -> Callable[[str], bool]:
        cache: dict[str, bool] = {}

        def probe(term: str) -> bool:
            if term not in cache:
                cache[term] = bool(self.store.search_lexical([term], None, 1))
            return cache[term]

        return probe


# the languages a question naming one means too: TypeScript is JavaScript with types, and a
# question about "the JavaScript implementation" of a TypeScript project asks about its code
_DIALECTS: dict[str, tuple[str, ...]] = {"javascript": ("typescript",)}


def _indexed_languages(wanted: Sequence[str], paths: Sequence[str]) -> list[str]:
    """The languages of ``wanted`` that some indexed file (of ``paths``) is written in."""
    left = set(wanted)
    found: set[str] = set()
    for path in paths:
        language = detect_language(path)
        if language in left:
            found.add(language)
            left.discard(language)
            if not left:
                break
    return [lang for lang in wanted if lang in found]


def _resolve_scope(scope: Sequence[str], paths: Sequence[str]) -> list[str]:
    """Path prefixes for the scope entries: an entry that is a prefix of some indexed path
    stays; otherwise indexed paths ending with ``/entry`` (or folders ``/entry/``), or the
    indexed file an absolute or foreign path ends with. An entry that resolves to nothing
    narrows nothing."""
    out: list[str] = []
    for raw in scope:
        entry = clean_path(raw)
        if not entry:
            continue
        probe = SearchFilters(path_prefixes=(entry,))
        if any(probe.matches_path(p) for p in paths):
            out.append(entry)
            continue
        for p in paths:
            if ("/" + entry + "/") in ("/" + p) and not p.endswith("/" + entry):
                i = ("/" + p).index("/" + entry + "/")
                out.append(p[: i + len(entry)].lstrip("/"))
        out += indexed_files(entry, paths)
    return list(dict.fromkeys(out))


def _symbol_trust(plan: RouterPlan) -> dict[str, float]:
    """How much a SYMBOL anchor's lookup weighs: 1 for a named symbol, less for names mined
    from pasted code or logs (lower confidence; see ``query.anchors.MINED_CONFIDENCE``)."""
    out: dict[str, float] = {}
    for a in plan.query_plan.anchors:
        if a.type is AnchorType.SYMBOL:
            name = a.value.strip("`()")
            trust = min(1.0, a.confidence / _TRUSTED) ** 2
            out[name] = max(out.get(name, 0.0), trust)
    return out


def _split(
    depths: dict[str, int],
    search: Callable[[SearchFilters, int], list[ScoredRow]],
    filters: SearchFilters,
    factor: int,
) -> dict[str, list[ScoredRow]]:
    """One search over every layer of ``depths`` (``factor`` times their summed depth), split
    per layer. When the combined list was full, a layer left short is searched on its own,
    except small side layers (depth <= :data:`_SIDE_DEPTH`, e.g. C0 files), which keep what
    they got: their rows are long and rank low in a shared list, and a pass over the whole
    index for five rows costs more than they add."""
    want = sum(depths.values()) * factor
    combined = search(replace(filters, layers=tuple(depths)), want)
    per: dict[str, list[ScoredRow]] = {layer: [] for layer in depths}
    for row in combined:
        bucket = per.get(str(row.layer))
        if bucket is not None and len(bucket) < depths[str(row.layer)]:
            bucket.append(row)
    if len(combined) >= want and len(depths) > 1:
        for layer, rows in per.items():
            if len(rows) < depths[layer] and depths[layer] > _SIDE_DEPTH:
                per[layer] = search(replace(filters, layers=(layer,)), depths[layer])
    return per


def _asks_flow(plan: RouterPlan, directed: bool) -> bool:
    """A flow question: a flow word ("calls", "вызывает") AND either a direction cue ("who
    calls") or a confidently named symbol. A description that merely uses a flow word
    ("Invokes the command with the given context.") asks for a definition, not for its
    callers."""
    anchors = plan.query_plan.anchors
    if not any(a.type is AnchorType.KEY_TERM and a.subtype == "flow" for a in anchors):
        return False
    return directed or any(
        a.type is AnchorType.SYMBOL and a.confidence >= _TRUSTED and a.source == "query"
        for a in anchors
    )


def _layer_depths(plan: RouterPlan, layers: Sequence[str] | None) -> dict[str, int]:
    depths: dict[str, int] = {lq.layer_id: lq.top_k for lq in plan.retrieval_spec.layer_queries}
    if layers is None:
        return depths
    wanted = [str(x).strip().upper() for x in layers]
    bad = [x for x in wanted if x not in LAYER_IDS]
    if bad:
        raise ConfigError(f"unknown layer(s) {bad}; valid: {', '.join(LAYER_IDS)}")
    return {x: depths.get(x, _DEFAULT_LAYER_K) for x in dict.fromkeys(wanted)}


def _ranked(
    found: dict[str, list[ScoredRow]], kind: str, label: str, profile: Profile, scale: float
) -> list[RankedList]:
    return [
        RankedList(
            kind, layer, f"{label}:{layer}", scale * profile.weight(kind, layer), tuple(rows)
        )
        for layer, rows in found.items()
        if rows
    ]


def _dense_texts(text: str, plan: RouterPlan | None) -> list[tuple[str, str]]:
    """What to embed: the text itself; for a mostly-Cyrillic question also its English terms
    (expansions and identifiers), which English-only encoders understand."""
    plain = " ".join(t for t in word_tokens(text) if not is_identifier(t))
    if plan is None or cyrillic_ratio(plain) <= MOSTLY_CYRILLIC:
        return [("dense", text)]
    english = [t for tl in term_lists(text, plan) if tl.kind != "raw" for t in tl.terms]
    out = [("dense:raw", text)]
    if english:
        out.append(("dense:en", " ".join(dict.fromkeys(english))))
    return out


def _asked_lists(plan: RouterPlan, lists: Sequence[RankedList]) -> Sequence[RankedList]:
    """The lists a scope must fill not to be relaxed: all of them, but a how-question's
    definitions only — it asks how the code works, and a scope holding no definition is the
    data the code reads ("the main field in package.json"), not the place to look."""
    if facets_of(plan).how:
        return [lst for lst in lists if lst.layer == "C1"]
    return lists
