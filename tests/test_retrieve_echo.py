"""A constant that quotes the question is not the answer to it (RU and EN)."""

from __future__ import annotations

import textwrap

import pytest

from ragstrata.core.evidence import Hit
from ragstrata.core.values import CatalogEntry
from ragstrata.query.router import Router
from ragstrata.relations.repository import ingest_repository
from ragstrata.retrieve.echo import ECHO_REASON, demote_echoes, quotes_question
from ragstrata.retrieve.retriever import Retriever
from ragstrata.settings import IndexSettings
from ragstrata.store.sqlite import SQLiteStore
from ragstrata.testing import HashEmbedder

DIMS = 256

REPO = {
    "demo.py": """
        QUESTIONS = (
            "how does the cache decide which entries to evict?",
            "как кэш решает, какие записи вытеснить?",
        )
    """,
    "cache.py": '''
        class LruCache:
            def evict(self):
                """Drop the least recently used entries until the cache fits its budget."""
                while self.size > self.budget:
                    key, entry = self.entries.popitem(last=False)
                    self.size -= entry.size
    ''',
}


@pytest.fixture(scope="module")
def ask(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("echo")
    for rel, text in REPO.items():
        (root / rel).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    store = SQLiteStore(root / ".ragstrata" / "index.sqlite", cache_min_rows=None)
    result = ingest_repository(root, IndexSettings())
    store.replace_files(
        [
            (CatalogEntry(f.file.path, f.file.mtime_ns, f.file.size, f.file.sha256), f.rows)
            for f in result.files
        ]
    )
    embedder = HashEmbedder(dimensions=DIMS)
    while pending := store.pending_vectors(embedder.fingerprint, limit=64):
        vectors = embedder.embed_documents([p.text for p in pending])
        store.put_vectors(
            embedder.fingerprint,
            [(p.text_hash, v) for p, v in zip(pending, vectors, strict=True)],
        )
    retriever = Retriever(store, HashEmbedder(dimensions=DIMS))
    router = Router()
    yield lambda q: retriever.retrieve(router.plan(q), top_k=10).hits
    store.close()


@pytest.mark.parametrize(
    "question",
    [
        "how does the cache decide which entries to evict?",
        "Как кэш решает, какие записи вытеснить?",
    ],
)
def test_the_quoting_constant_comes_after_the_code(ask, question: str) -> None:  # type: ignore[no-untyped-def]
    hits = ask(question)
    paths = [h.path for h in hits]
    assert "demo.py" in paths, paths  # still found, only not first
    echo = paths.index("demo.py")
    assert all(h.path != "demo.py" for h in hits[:echo])
    assert ECHO_REASON in hits[echo].reasons
    if "cache.py" in paths:
        assert paths.index("cache.py") < echo


def test_quoting_needs_the_whole_question_after_a_quote() -> None:
    q = "how does the cache decide which entries to evict?"
    assert quotes_question('QS = ("How does the cache  decide which entries to evict?",)', q)
    assert not quotes_question("# how does the cache decide which entries to evict", q)
    assert not quotes_question('MSG = "the cache decide which entries"', q)
    # an error message quoted inside a longer question is what the user looks for
    assert not quotes_question('raise KeyError("entry not found")', 'where is "entry not found"?')
    assert not quotes_question('X = "where is it"', "where is it")  # too short to tell


def test_documentation_that_repeats_the_question_keeps_its_place() -> None:
    q = "how do I install the package offline?"

    def hit(layer: str, path: str, score: float, text: str) -> Hit:
        return Hit(
            layer=layer, path=path, start_line=1, end_line=4, symbol=None, score=score,
            reasons=(), text=text,
        )  # fmt: skip

    doc = hit("D1", "FAQ.md", 1.0, '## "How do I install the package offline?"')
    code = hit("C1", "faq.py", 0.9, 'Q = "how do I install the package offline?"')
    other = hit("C1", "install.py", 0.5, "def install(): ...")
    ranked = demote_echoes([code, doc, other], q)
    assert [h.path for h in ranked] == ["FAQ.md", "install.py", "faq.py"]
