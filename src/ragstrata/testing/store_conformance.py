"""The conformance suite every :class:`~ragstrata.store.protocols.Store` backend must pass.

Subclass :class:`StoreConformance` in a test module and provide a ``store`` fixture that yields
a fresh, empty store::

    class TestMyStore(StoreConformance):
        @pytest.fixture
        def store(self, tmp_path):
            s = MyStore(tmp_path / "x")
            yield s
            s.close()

The corpus (:func:`~ragstrata.testing.store_samples.sample_batch`) is small but covers every layer, Python and JavaScript code,
a test file, and English and Russian docs. Vectors come from ``HashEmbedder``.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from ragstrata.core.rows import (
    Layer,
    RelationRow,
    SectionRow,
)
from ragstrata.core.texts import embedding_text
from ragstrata.core.values import Manifest, SearchFilters, manifest_mismatches
from ragstrata.store.bm25 import TF_MAX
from ragstrata.store.protocols import Store
from ragstrata.testing.fakes import HashEmbedder
from ragstrata.testing.store_keys_conformance import KeyConformance
from ragstrata.testing.store_samples import (
    FP,
    PARSE_SOURCE,
    chunk_row,
    embed_all,
    entry,
    hit_paths,
    hit_symbols,
    http_rows,
    sample_batch,
)

__all__ = ["StoreConformance", "embed_all", "entry", "sample_batch"]


class StoreConformance(KeyConformance):
    """Behaviour every backend shares. Subclasses provide a ``store`` fixture (fresh, empty)."""

    @pytest.fixture
    def store(self) -> Store:  # pragma: no cover - overridden
        raise NotImplementedError("subclasses provide a `store` fixture")

    @pytest.fixture
    def loaded(self, store: Store) -> Store:
        store.replace_files(sample_batch())
        return store

    # ------------------------------------------------------------- empty, manifest, catalog

    def test_is_a_store(self, store: Store) -> None:
        assert isinstance(store, Store)

    def test_empty_store(self, store: Store) -> None:
        assert store.read_manifest() is None
        assert store.catalog() == {}
        assert store.search_lexical("HttpClient") == []
        assert store.search_dense([1.0] * 64, FP) == []
        assert store.lookup_symbol("HttpClient") == []
        assert store.lookup_symbol("HttpClient", "fuzzy") == []
        assert store.relations("parse_query") == []
        assert store.pending_vectors(FP) == []
        assert store.get_rows(["nope"]) == []
        assert store.remove_files(["nope.py"]) == 0
        stats = store.stats()
        assert dict(stats.rows) == {layer.value: 0 for layer in Layer}
        assert (stats.files, stats.vectors, stats.pending_vectors) == (0, 0, 0)

    def test_manifest_round_trip(self, store: Store) -> None:
        manifest = Manifest(schema_version=store.schema_version, package_version="0.1.0", embedder_fingerprint=FP, dimensions=64, splitter={"chunk_size": 1200, "overlap": 150})  # fmt: skip
        first = store.write_manifest(manifest)
        assert first.created_at and first.updated_at
        read = store.read_manifest()
        assert read == first
        assert dict(read.splitter) == {"chunk_size": 1200, "overlap": 150}
        assert manifest_mismatches(read, manifest) == ()
        second = store.write_manifest(Manifest(schema_version=store.schema_version, package_version="0.1.1", embedder_fingerprint="other/fp", dimensions=8))  # fmt: skip
        assert second.created_at == first.created_at
        assert second.updated_at >= first.updated_at
        assert store.read_manifest() == second
        problems = manifest_mismatches(second, manifest)
        assert any("embedder_fingerprint" in p for p in problems)
        assert any("dimensions" in p for p in problems)

    def test_replace_rows_round_trip_and_catalog(self, loaded: Store) -> None:
        batch = sample_batch()
        assert loaded.catalog() == {e.path: e for e, _ in batch}
        every = [r for _, rows in batch for r in rows]
        assert loaded.get_rows([r.id for r in reversed(every)]) == list(reversed(every))
        stats = loaded.stats()
        assert stats.files == 5
        assert stats.rows == {
            layer.value: sum(1 for r in every if r.layer == layer) for layer in Layer
        }

    def test_rereplace_leaves_no_leftovers(self, loaded: Store) -> None:
        embed_all(loaded)
        old = {r.id: r for r in http_rows()}
        new_rows = http_rows(with_parse=False)
        loaded.replace_files([(entry("src/app/http.py", "2"), new_rows)])
        assert loaded.catalog()["src/app/http.py"].sha256 == entry("src/app/http.py", "2").sha256
        gone = [i for i in old if i not in {r.id for r in new_rows}]
        assert gone and loaded.get_rows(gone) == []
        in_http = SearchFilters(path_prefixes=("src/app/http.py",))
        assert all(
            h.symbol != "app.http.parse_query"
            for h in loaded.search_lexical("parse_query split key value pairs", in_http, 20)
        )
        assert loaded.lookup_symbol("parse_query", filters=in_http) == []
        callers = loaded.relations("app.http.parse_query")
        # the new http.py still calls parse_query, unresolved: only possible (0.5);
        # the old resolved row is gone
        assert sorted((h.path, h.score) for h in callers) == [
            ("src/app/http.py", 0.5),
            ("tests/test_http.py", 1.0),
        ]
        vec = HashEmbedder(dimensions=64).embed_queries([PARSE_SOURCE])[0]
        assert all(h.row_id not in gone for h in loaded.search_dense(vec, FP, top_k=50))
        assert loaded.stats(FP).rows["C1"] == 5

    def test_remove_files(self, loaded: Store) -> None:
        embed_all(loaded)
        vectors = loaded.stats(FP).vectors
        assert loaded.remove_files(["web/app.js", "missing.py", "web/app.js"]) == 1
        assert "web/app.js" not in loaded.catalog()
        assert loaded.lookup_symbol("fetchData") == []
        assert loaded.search_lexical("fetchData") == []
        assert loaded.stats(FP).vectors == vectors - 1  # the definition's vector is collected
        assert loaded.stats(FP).pending_vectors == 0

    def test_failed_batch_changes_nothing(self, loaded: Store) -> None:
        before = (loaded.catalog(), loaded.stats().rows)
        bad = http_rows(with_parse=False)
        with pytest.raises(ValueError, match="path"):
            loaded.replace_files([(entry("src/app/http.py", "3"), bad), (entry("other.py"), bad)])
        assert (loaded.catalog(), loaded.stats().rows) == before
        assert loaded.lookup_symbol("parse_query", filters=SearchFilters(path_prefixes=("src",)))

    def test_duplicate_row_ids_in_a_file_are_kept_once(self, store: Store) -> None:
        rows = http_rows()
        store.replace_files([(entry("src/app/http.py"), [*rows, rows[1]])])
        assert store.stats().rows["C1"] == 3

    # ------------------------------------------------------------- scans, has_index

    def test_scan_rows_in_path_then_write_order(self, loaded: Store) -> None:
        batch = sorted(sample_batch(), key=lambda item: item[0].path)
        every = [r for _, rows in batch for r in rows]
        assert list(loaded.scan_rows()) == every
        code = [r for r in every if r.layer in (Layer.C1, Layer.C2)]
        assert list(loaded.scan_rows(("C2", Layer.C1))) == code
        some = ["web/app.js", "missing.py", "src/app/http.py", "web/app.js"]
        assert list(loaded.scan_rows(paths=some)) == [
            r for r in every if r.path in ("src/app/http.py", "web/app.js")
        ]
        assert list(loaded.scan_rows((Layer.D1,), ["docs/guide.md"])) == [
            r for r in every if r.layer == Layer.D1
        ]
        assert list(loaded.scan_rows(paths=[])) == []
        assert list(loaded.scan_rows(layers=())) == []
        with pytest.raises(ValueError, match="C9"):
            loaded.scan_rows(("C9",))
        rewritten = http_rows(with_parse=False)[::-1]  # a new file version, another order
        loaded.replace_files([(entry("src/app/http.py", "2"), [*rewritten, rewritten[0]])])
        assert list(loaded.scan_rows(paths=["src/app/http.py"])) == rewritten
        loaded.remove_files(["web/app.js"])
        assert [r for r in loaded.scan_rows() if r.path == "web/app.js"] == []

    def test_scan_rows_path_order_is_code_point_order(self, store: Store) -> None:
        text = "x = 1\n"
        paths = ["zulu.py", "Zeta.py", "ärger.py", "alpha/b.py", "alpha.py", "alpha-b.py"]
        for path in paths:
            store.replace_files([(entry(path), [chunk_row(path, "python", text, 1)])])
        assert [r.path for r in store.scan_rows()] == sorted(paths)
        assert [r.path for r in store.scan_rows(paths=paths[::-1])] == sorted(paths)

    def test_has_index(self, store: Store) -> None:
        assert store.has_index() is False
        store.catalog(), store.stats(), list(store.scan_rows())  # reads do not create one
        assert store.has_index() is False
        store.replace_files(sample_batch()[:1])
        assert store.has_index() is True
        store.remove_files(["src/app/http.py"])
        assert store.has_index() is False
        store.write_manifest(Manifest(schema_version=store.schema_version, package_version="0", embedder_fingerprint=FP, dimensions=64))  # fmt: skip
        assert store.has_index() is True

    # ------------------------------------------------------------- lexical

    def test_lexical_identifier_beats_unrelated(self, loaded: Store) -> None:
        hits = loaded.search_lexical("parse_query")
        assert hits and hits[0].symbol in {
            "app.http.parse_query",
            "tests.test_http.test_parse_query",
        }
        assert "web/app.js" not in hit_paths(hits)
        assert all(a.score >= b.score for a, b in itertools.pairwise(hits))
        defs = loaded.search_lexical(
            "parse_query", SearchFilters(layers=(Layer.C1,), is_test=False)
        )
        assert defs[0].symbol == "app.http.parse_query"
        assert defs[0].layer == Layer.C1 and defs[0].text.startswith("def parse_query")

    def test_lexical_identifier_parts(self, loaded: Store) -> None:
        chunks = loaded.search_lexical("HttpClient", SearchFilters(layers=("C3",)), top_k=10)
        assert "src/app/cli.py" in hit_paths(chunks)  # http_client in main() meets HttpClient
        hits = loaded.search_lexical("http client")
        assert {"src/app/http.py", "src/app/cli.py"} <= set(hit_paths(hits))

    def test_lexical_russian_lemmas(self, loaded: Store) -> None:
        hits = loaded.search_lexical("как настроить файл конфигурации клиентов")
        assert hits and hits[0].path == "docs/guide.md" and hits[0].layer == Layer.D1
        assert "Установка" in (
            hits[0].row.heading_path if isinstance(hits[0].row, SectionRow) else ""
        )

    def test_lexical_term_list_and_unicode(self, loaded: Store) -> None:
        hits = loaded.search_lexical(["fetchData", "json"])
        assert hits[0].path == "web/app.js"
        assert loaded.search_lexical("Ünïcödé")[0].path == "docs/guide.md"
        assert loaded.search_lexical("zzzunknownzzz") == []
        assert loaded.search_lexical("the of and") == []

    def test_lexical_filters(self, loaded: Store) -> None:
        q = "parse_query HttpClient fetchData http"
        cases: list[tuple[SearchFilters, Any]] = [
            (SearchFilters(path_prefixes=("src/app",)), lambda h: h.path.startswith("src/app/")),
            (SearchFilters(path_prefixes=("tests/",)), lambda h: h.path.startswith("tests/")),
            (SearchFilters(languages=("javascript",)), lambda h: h.row.language == "javascript"),
            (SearchFilters(is_test=True), lambda h: h.row.is_test),
            (SearchFilters(is_test=False), lambda h: not h.row.is_test),
            (SearchFilters(layers=(Layer.C2,)), lambda h: h.layer == Layer.C2),
            (SearchFilters(layers=("C1", "D1"), languages=("python", "markdown")), lambda h: h.layer in ("C1", "D1")),
        ]  # fmt: skip
        for filters, ok in cases:
            hits = loaded.search_lexical(q, filters, top_k=50)
            assert hits, filters
            assert all(ok(h) for h in hits), filters
        assert loaded.search_lexical(q, SearchFilters(path_prefixes=("src/ap",))) == []
        assert loaded.search_lexical(q, SearchFilters(languages=("cobol",))) == []

    def test_term_frequency_past_the_cap(self, store: Store) -> None:
        # every backend stores at most TF_MAX per term (PostgreSQL: a smallint); more is kept
        text = "zebracorn " * (TF_MAX + 500)
        store.replace_files([(entry("big.txt"), [chunk_row("big.txt", "text", text, 1)])])
        store.replace_files(
            [(entry("small.txt"), [chunk_row("small.txt", "text", "zebracorn x", 1)])]
        )
        assert [h.path for h in store.search_lexical("zebracorn")] == ["big.txt", "small.txt"]

    def test_ties_rank_by_path_not_write_order(self, store: Store) -> None:
        text = "def duplicate_helper():\n    return 42\n"
        for path in ("z/late.py", "a/early.py", "m/middle.py"):
            store.replace_files([(entry(path), [chunk_row(path, "python", text, 1)])])
        store.replace_files(
            [(entry("z/late.py", "2"), [chunk_row("z/late.py", "python", text, 1)])]
        )
        hits = store.search_lexical("duplicate_helper", top_k=2)
        assert hit_paths(hits) == ["a/early.py", "m/middle.py"]
        assert hits[0].score == hits[1].score

    # ------------------------------------------------------------- dense

    def test_dense_ranking_and_filters(self, loaded: Store) -> None:
        embedder = HashEmbedder(dimensions=64)
        assert embed_all(loaded, embedder) == loaded.stats(FP).vectors > 0
        query = embedder.embed_queries(["split a query string into key value pairs"])[0]
        hits = loaded.search_dense(query, FP)
        assert hits[0].symbol == "app.http.parse_query"
        assert -1.0 <= hits[-1].score <= hits[0].score <= 1.0 + 1e-6
        assert all(h.layer in (Layer.C1, Layer.D1, Layer.D2) for h in hits)  # default layers
        only_js = loaded.search_dense(query, FP, SearchFilters(languages=("javascript",)))
        assert hit_symbols(only_js) == ["web.app.fetchData"]
        docs = loaded.search_dense(
            query, FP, SearchFilters(path_prefixes=("docs",), layers=("D1",))
        )
        assert len(docs) == 2 and {h.layer for h in docs} == {Layer.D1}
        tests = loaded.search_dense(query, FP, SearchFilters(is_test=True))
        assert hit_paths(tests) == ["tests/test_http.py"]
        assert loaded.search_dense(query, "other/fingerprint") == []
        with pytest.raises(ValueError, match="dimension"):
            loaded.search_dense([1.0, 0.0], FP)

    # ------------------------------------------------------------- symbols and relations

    def test_symbol_lookup_modes(self, loaded: Store) -> None:
        exact = loaded.lookup_symbol("HttpClient")
        assert hit_symbols(exact) == ["app.http.HttpClient"] and exact[0].score == 1.0
        assert loaded.lookup_symbol("httpclient")[0].score < 1.0
        assert hit_symbols(loaded.lookup_symbol("get")) == ["app.http.HttpClient.get"]
        assert hit_symbols(loaded.lookup_symbol("app.http.HttpClient.get", "qualified")) == [
            "app.http.HttpClient.get"
        ]
        assert hit_symbols(loaded.lookup_symbol("app::http::HttpClient", "qualified")) == [
            "app.http.HttpClient"
        ]
        assert loaded.lookup_symbol("HttpClient.get", "qualified") == []
        assert hit_symbols(loaded.lookup_symbol("HttpClient.get", "suffix")) == [
            "app.http.HttpClient.get"
        ]
        assert loaded.lookup_symbol("Client.get", "suffix") == []  # dotted boundary
        fuzzy = hit_symbols(loaded.lookup_symbol("http_client", "fuzzy"))
        assert fuzzy[0] == "app.http.HttpClient"
        assert hit_symbols(loaded.lookup_symbol("parse_qeury", "fuzzy"))[:1] == [
            "app.http.parse_query"
        ]
        both = loaded.lookup_symbol("parse_query", "fuzzy")
        assert hit_symbols(both)[0] == "app.http.parse_query"  # exact-name beats test_parse_query
        assert "tests.test_http.test_parse_query" in hit_symbols(both)
        assert hit_symbols(
            loaded.lookup_symbol("parse_query", "fuzzy", SearchFilters(is_test=True))
        ) == ["tests.test_http.test_parse_query"]
        assert loaded.lookup_symbol("fetchData", filters=SearchFilters(languages=("python",))) == []
        with pytest.raises(ValueError, match="fuzzy"):
            loaded.lookup_symbol("x", "bogus")

    def test_callers_and_callees(self, loaded: Store) -> None:
        callers = loaded.relations("app.http.parse_query", "callers")
        assert sorted(h.symbol or "" for h in callers) == [
            "app.http.HttpClient.get",
            "tests.test_http.test_parse_query",
        ]
        assert all(h.layer == Layer.C2 and h.score == 1.0 for h in callers)
        assert hit_symbols(
            loaded.relations("parse_query", "callers", filters=SearchFilters(is_test=False))
        ) == ["app.http.HttpClient.get"]
        get_callers = loaded.relations("app.http.HttpClient.get")
        assert [(h.path, h.start_line, h.score) for h in get_callers] == [
            ("src/app/cli.py", 3, 0.5)
        ]
        callees = loaded.relations("app.cli.main", "callees")
        targets = sorted(h.row.to_name for h in callees if isinstance(h.row, RelationRow))
        assert targets == ["HttpClient", "http_client.get"]
        assert loaded.relations("app.cli", "callees") == []  # only calls by default
        imports = loaded.relations("app.cli", "callees", kinds=("imports",))
        assert len(imports) == 1 and imports[0].row.to_name == "app.http"  # type: ignore[union-attr]
        assert len(loaded.relations("app.cli", "callees", kinds=None)) == 1
        with pytest.raises(ValueError, match="callers"):
            loaded.relations("x", "sideways")

    # ------------------------------------------------------------- vectors bookkeeping

    def test_pending_and_put_vectors(self, loaded: Store) -> None:
        embeddable = {
            t for _, rows in sample_batch() for r in rows if (t := embedding_text(r)) is not None
        }
        assert loaded.stats(FP).pending_vectors == len(embeddable)
        first = loaded.pending_vectors(FP, limit=2)
        assert len(first) == 2 and {p.text for p in first} <= embeddable
        vecs = HashEmbedder(dimensions=64).embed_documents([p.text for p in first])
        stored = loaded.put_vectors(
            FP,
            [(p.text_hash, v) for p, v in zip(first, vecs, strict=True)]
            + [("unknown-hash", vecs[0])],
        )
        assert stored == 2
        stats = loaded.stats(FP)
        assert (stats.vectors, stats.pending_vectors) == (2, len(embeddable) - 2)
        assert {p.text_hash for p in loaded.pending_vectors(FP, 100)}.isdisjoint(
            {p.text_hash for p in first}
        )
        with pytest.raises(ValueError, match="dimension"):
            loaded.put_vectors(FP, [(first[0].text_hash, [1.0, 2.0])])
        with pytest.raises(ValueError):
            loaded.put_vectors(FP, [(first[0].text_hash, [float("nan")] * 64)])
        embed_all(loaded)
        assert loaded.pending_vectors(FP) == [] and loaded.stats(FP).pending_vectors == 0

    def test_fingerprint_change_and_drop(self, loaded: Store) -> None:
        total = embed_all(loaded)
        other = HashEmbedder(dimensions=32)
        assert len(loaded.pending_vectors(other.fingerprint, 1000)) == total
        assert loaded.stats(other.fingerprint).pending_vectors == total
        assert embed_all(loaded, other) == total
        assert loaded.stats(FP).vectors == loaded.stats(other.fingerprint).vectors == total
        assert loaded.drop_vectors(keep_fingerprint=other.fingerprint) == total
        assert loaded.stats(FP).pending_vectors == total
        assert loaded.stats(other.fingerprint).pending_vectors == 0

    def test_unchanged_rows_keep_their_vectors(self, loaded: Store) -> None:
        embed_all(loaded)
        loaded.replace_files(sample_batch()[:1])  # same content again
        assert loaded.stats(FP).pending_vectors == 0
        changed = http_rows(doc="Sends HTTP requests; no retries.")
        loaded.replace_files([(entry("src/app/http.py", "2"), changed)])
        pending = loaded.pending_vectors(FP)
        assert len(pending) == 1 and "no retries" in pending[0].text

    def test_stats(self, loaded: Store) -> None:
        loaded.write_manifest(Manifest(schema_version=loaded.schema_version, package_version="0", embedder_fingerprint=FP, dimensions=64))  # fmt: skip
        embed_all(loaded, batch=100)
        stats = loaded.stats()
        assert stats.fingerprint == FP and stats.vectors > 0 and stats.pending_vectors == 0
        assert stats.updated_at and stats.schema_version == loaded.schema_version
        assert sum(stats.rows.values()) == sum(len(rows) for _, rows in sample_batch())

    def test_bad_arguments(self, loaded: Store) -> None:
        with pytest.raises(ValueError, match="C9"):
            SearchFilters(layers=("C9",))
        with pytest.raises(ValueError):
            loaded.search_lexical("x", top_k=0)
        with pytest.raises(ValueError):
            SearchFilters(path_prefixes="src")  # type: ignore[arg-type]

    # ------------------------------------------------------------- cached summaries

    def test_summaries_round_trip(self, store: Store) -> None:
        assert store.get_summaries("file") == {} and store.get_summaries("definition") == {}
        assert store.put_summaries("file", []) == 0
        stored = store.put_summaries(
            "file", [("src/a.py", "h1", "Reads the config."), ("src/b.py", "h2", "Ответ.")]
        )
        assert stored == 2
        assert store.put_summaries("definition", [("app.a.run", "h3", "Runs it.")]) == 1
        assert store.get_summaries("file") == {
            "src/a.py": ("h1", "Reads the config."),
            "src/b.py": ("h2", "Ответ."),
        }
        store.put_summaries("file", [("src/a.py", "h9", "Reads the settings file.")])
        assert store.get_summaries("file")["src/a.py"] == ("h9", "Reads the settings file.")
        assert store.get_summaries("definition") == {"app.a.run": ("h3", "Runs it.")}
        with pytest.raises(ValueError, match="definition"):
            store.get_summaries("module")
        with pytest.raises(ValueError, match="hash"):
            store.put_summaries("file", [("src/c.py", "", "x")])
        assert "src/c.py" not in store.get_summaries("file")

    def test_summaries_are_searchable_and_survive_reindexing(self, loaded: Store) -> None:
        assert loaded.search_lexical("zeppelinous") == []
        loaded.put_summaries("file", [("src/app/http.py", "h1", "Zeppelinous transport layer.")])
        loaded.put_summaries(
            "definition", [("app.http.parse_query", "h2", "Decodes quokkaform strings.")]
        )
        hits = loaded.search_lexical("zeppelinous")
        assert [(h.layer, h.path) for h in hits] == [(Layer.C0, "src/app/http.py")]
        defs = loaded.search_lexical("quokkaform")
        assert [h.symbol for h in defs] == ["app.http.parse_query"]
        assert defs[0].layer == Layer.C1
        # a later index run rewrites the file's rows: the summary terms come back with them
        loaded.replace_files([(entry("src/app/http.py", "2"), http_rows())])
        assert [h.layer for h in loaded.search_lexical("zeppelinous")] == [Layer.C0]
        assert [h.symbol for h in loaded.search_lexical("quokkaform")] == ["app.http.parse_query"]
        # a regenerated summary replaces the old terms
        loaded.put_summaries("file", [("src/app/http.py", "h3", "Plain HTTP helpers.")])
        assert loaded.search_lexical("zeppelinous") == []
        loaded.remove_files(["src/app/http.py"])
        assert loaded.search_lexical("quokkaform") == []
