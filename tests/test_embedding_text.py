"""What an index embeds (ingest/texts.embedding_text) and how the fill loop batches it."""

from __future__ import annotations

from collections.abc import Sequence

from ragstrata.core.rows import ChunkRow, DefinitionRow, Layer, SectionRow, content_hash
from ragstrata.core.texts import (
    DEFINITION_HEAD_LINES,
    DEFINITION_MAX_CHARS,
    EMBED_MAX_CHARS,
    embedding_text,
)
from ragstrata.core.values import CatalogEntry
from ragstrata.embed.base import ProgressCallback
from ragstrata.indexer.embed_fill import ROUND_BATCHES, fill_vectors
from ragstrata.testing.fakes import HashEmbedder
from ragstrata.testing.memory_store import InMemoryStore


def _definition(text: str, docstring: str | None = None, path: str = "pkg/mod.py") -> DefinitionRow:
    lines = text.count("\n") + 1
    return DefinitionRow(
        id=content_hash(path + text),
        path=path,
        language="python",
        is_test=False,
        start_line=1,
        end_line=lines,
        content_hash=content_hash(text),
        kind="function",
        name="work",
        symbol="pkg.mod.work",
        signature=text.splitlines()[0],
        docstring=docstring,
        text=text,
    )


def test_short_definition_is_embedded_whole() -> None:
    text = "def work(a, b):\n    total = a + b\n    return total"
    got = embedding_text(_definition(text, docstring="Add two numbers."))
    assert (
        got
        == "pkg.mod.work\ndef work(a, b):\nAdd two numbers.\n    total = a + b\n    return total"
    )


def test_definition_keeps_head_lines_only() -> None:
    body = [f"    x{i} = {i}" for i in range(DEFINITION_HEAD_LINES + 5)]
    got = embedding_text(_definition("def work():\n" + "\n".join(body)))
    assert got is not None
    assert len(got) < DEFINITION_MAX_CHARS and f"x{DEFINITION_HEAD_LINES - 1} =" in got
    assert f"x{DEFINITION_HEAD_LINES} =" not in got


def test_long_definition_is_cut_but_keeps_name_signature_docstring() -> None:
    doc = "Compute the checksum of a payload. " * 4
    body = "\n".join(
        f"    value_{i} = compute_something_long(value_{i - 1}, {i})" for i in range(1, 12)
    )
    got = embedding_text(_definition("def work(payload):\n" + body, docstring=doc))
    assert got is not None and len(got) == DEFINITION_MAX_CHARS
    assert got.startswith(f"pkg.mod.work\ndef work(payload):\n{doc}")


def test_doc_sections_are_not_cut_at_the_definition_limit() -> None:
    text = "Installing the package from source. " * 100
    section = SectionRow(
        id="s1",
        path="README.md",
        language="markdown",
        is_test=False,
        start_line=1,
        end_line=5,
        content_hash=content_hash(text),
        layer=Layer.D1,
        heading_path="README.md > Install",
        text=text,
    )
    got = embedding_text(section)
    assert got is not None and len(got) == EMBED_MAX_CHARS > DEFINITION_MAX_CHARS


class _RecordingEmbedder(HashEmbedder):
    """A hashing embedder that records how many texts each embed call received."""

    def __init__(self) -> None:
        super().__init__(dimensions=16, batch_size=3)
        self.sizes: list[int] = []

    def embed_documents(
        self, texts: Sequence[str], progress: ProgressCallback | None = None
    ) -> list[list[float]]:
        self.sizes.append(len(texts))
        return super().embed_documents(texts, progress)


def test_fill_rounds_span_many_batches_and_embed_everything() -> None:
    store = InMemoryStore()
    rows = [
        ChunkRow(
            id=f"c{i}",
            path="docs/a.md",
            language="markdown",
            is_test=False,
            start_line=i + 1,
            end_line=i + 1,
            content_hash=content_hash(f"t{i}"),
            layer=Layer.D2,
            text=f"paragraph number {i} " + "word " * (i % 7),
        )
        for i in range(3 * ROUND_BATCHES + 5)
    ]
    store.replace_files([(CatalogEntry("docs/a.md", 1, 1, "h"), rows)])
    embedder = _RecordingEmbedder()
    done = fill_vectors(store, embedder)
    assert done == len(rows)
    assert store.stats(embedder.fingerprint).pending_vectors == 0
    # Rounds of ROUND_BATCHES batches are fetched and sorted together, but every embedder
    # batch is its own call and its own commit (a kill loses at most one batch).
    assert embedder.sizes == [3] * (ROUND_BATCHES + 1) + [2]
