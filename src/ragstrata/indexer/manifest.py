"""The manifest this configuration expects, and what a stored one may differ in.

Rule: rows depend on the schema and the splitter settings (chunk size / overlap, embedded
layers), so a difference there is an :class:`~ragstrata.errors.IndexMismatchError` naming the
fields and suggesting ``ragstrata index --rebuild``. Vectors depend only on the embedder: a new
fingerprint (or dimension) does NOT need a rebuild — the run drops the other fingerprints'
vectors and re-embeds every embeddable text, keeping the rows. Other extraction rules
(:func:`~ragstrata.ingest.extractor.extractor_fingerprint`; ``""`` in an index built before
it was recorded) do not need a rebuild either: the run extracts every file again and keeps
the vectors. The package version is recorded but never compared (same schema, same rows).
"""

from __future__ import annotations

from dataclasses import dataclass

from ragstrata.core.texts import DEFAULT_EMBED_LAYERS
from ragstrata.core.values import Manifest, manifest_mismatches
from ragstrata.core.version import __version__
from ragstrata.embed.base import Embedder
from ragstrata.errors import IndexMismatchError
from ragstrata.ingest.extractor import extractor_fingerprint
from ragstrata.settings import Settings
from ragstrata.store.protocols import Store

__all__ = ["ManifestCheck", "check_manifest", "expected_manifest"]

_EMBEDDER_FIELDS = ("embedder_fingerprint:", "dimensions:")


def expected_manifest(store: Store, embedder: Embedder, settings: Settings) -> Manifest:
    """The manifest an index built now with this configuration carries."""
    layers = getattr(store, "embed_layers", DEFAULT_EMBED_LAYERS)
    return Manifest(
        schema_version=store.schema_version,
        package_version=__version__,
        embedder_fingerprint=embedder.fingerprint,
        dimensions=embedder.dimensions,
        splitter={
            "chunk_size": settings.index.chunk_size,
            "chunk_overlap": settings.index.chunk_overlap,
            "embed_layers": [str(layer) for layer in layers],
        },
        extractor=extractor_fingerprint(),
    )


@dataclass(frozen=True, slots=True)
class ManifestCheck:
    """``new``: no manifest yet; ``reembed``: the embedder changed (vectors are redone);
    ``reextract``: the extraction rules changed (every file is extracted again)."""

    new: bool
    reembed: bool
    differences: tuple[str, ...] = ()
    reextract: bool = False


def check_manifest(stored: Manifest | None, expected: Manifest) -> ManifestCheck:
    """Compare; raise ``IndexMismatchError`` when rows would differ (see module docstring)."""
    if stored is None:
        return ManifestCheck(new=True, reembed=False)
    diffs = manifest_mismatches(stored, expected)
    hard = tuple(d for d in diffs if not d.startswith(_EMBEDDER_FIELDS))
    if hard:
        raise IndexMismatchError(
            "index was built with other settings ("
            + "; ".join(hard)
            + "); run `ragstrata index --rebuild` to rebuild it"
        )
    return ManifestCheck(
        new=False,
        reembed=bool(diffs),
        differences=diffs,
        reextract=stored.extractor != expected.extractor,
    )
