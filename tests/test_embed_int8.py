"""The integer-kernel rewrite of the packaged MiniLM: same weights, integer products, cached."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragstrata.embed.int8 import REWRITE_VERSION, integer_graph, rewrite_graph
from ragstrata.embed.local import OnnxMiniLMEmbedder
from ragstrata.settings import load_settings, model_cache_dir

TEXTS = [
    "def retry(request, attempts=3):\n    for n in range(attempts):\n        return send(request)",
    "Return the greatest common divisor of two integers.",
    "Повторяет HTTP-запрос с экспоненциальной задержкой, пока сервер не ответит.",
    "class UserService:\n    def find(self, user_id):\n        return self.repo.get(user_id)",
    "## Installation\n\npip install ragstrata, then run `ragstrata index .` in your repository.",
]


@pytest.fixture(scope="module")
def pair() -> tuple[OnnxMiniLMEmbedder, OnnxMiniLMEmbedder]:
    return OnnxMiniLMEmbedder(), OnnxMiniLMEmbedder(integer_kernels=False)


def test_vectors_stay_close_to_the_float_graph(
    pair: tuple[OnnxMiniLMEmbedder, OnnxMiniLMEmbedder],
) -> None:
    integer, floating = (np.asarray(e.embed_documents(TEXTS)) for e in pair)
    cosines = (integer * floating).sum(axis=1)
    assert cosines.min() > 0.99, cosines
    assert not np.allclose(integer, floating, atol=1e-6)  # the integer graph really ran
    np.testing.assert_allclose(np.linalg.norm(integer, axis=1), 1.0, atol=1e-5)


def test_a_vector_does_not_depend_on_its_batch(
    pair: tuple[OnnxMiniLMEmbedder, OnnxMiniLMEmbedder],
) -> None:
    integer = pair[0]
    long_text = " ".join(["a much longer neighbour with other magnitudes"] * 30)
    alone = np.vstack([integer.embed_array([t]) for t in TEXTS])
    together = integer.embed_array([*TEXTS, long_text])[: len(TEXTS)]
    np.testing.assert_allclose(alone, together, atol=1e-5)


@pytest.mark.slow
def test_the_rewrite_is_cached_under_the_model_hash(tmp_path: Path) -> None:
    source = OnnxMiniLMEmbedder().model_path
    first = integer_graph(source, tmp_path)
    assert isinstance(first, str)
    cached = Path(first)
    assert cached.parent == tmp_path and cached.name.endswith(f"-int{REWRITE_VERSION}.onnx")
    mtime = cached.stat().st_mtime_ns
    assert integer_graph(source, tmp_path) == first
    assert cached.stat().st_mtime_ns == mtime  # read, not written again
    names = sorted(p.name for p in tmp_path.iterdir())
    memo = [n for n in names if n.endswith(".sha256")]
    assert names == sorted([cached.name, *memo]) and len(memo) == 1  # no temporary left behind
    assert (tmp_path / memo[0]).read_text() in cached.name  # the digest, not re-hashed next time


def test_a_cache_file_path_that_is_a_file_gives_the_graph_in_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "models"
    blocker.write_text("not a folder", encoding="utf-8")
    graph = integer_graph(OnnxMiniLMEmbedder().model_path, blocker)
    assert isinstance(graph, bytes) and len(graph) > 1_000_000


def test_cache_folder_follows_xdg_and_ignores_a_relative_value(tmp_path: Path) -> None:
    assert model_cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "ragstrata" / "models"
    assert model_cache_dir({"XDG_CACHE_HOME": "relative/dir"}) == (
        Path.home() / ".cache" / "ragstrata" / "models"
    )
    home = tmp_path / "home"
    assert model_cache_dir({"HOME": str(home)}) == home / ".cache" / "ragstrata" / "models"


def test_the_settings_carry_the_cache_folder_from_the_environment(tmp_path: Path) -> None:
    """The library reads no environment: the folder comes in the settings built at the edge."""
    env = {"XDG_CACHE_HOME": str(tmp_path), "HOME": str(tmp_path / "h")}
    settings = load_settings(tmp_path, env=env)
    assert settings.embedder.cache_dir == tmp_path / "ragstrata" / "models"
    pinned = load_settings(tmp_path, env={**env, "RAGSTRATA_EMBEDDER_CACHE_DIR": "/x/y"})
    assert pinned.embedder.cache_dir == Path("/x/y")


def test_a_model_without_int8_products_is_refused() -> None:
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "plain", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(ValueError, match="no int8 weight product"):
        rewrite_graph(model.SerializeToString())
