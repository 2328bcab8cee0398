"""Every case of shared/conformance/recursive_splitter.json against RecursiveSplitter."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from conftest import CONFORMANCE
from ragstrata.errors import ConfigError
from ragstrata.ingest.splitter import KeepType, RecursiveSplitter

DATA = json.loads((CONFORMANCE / "recursive_splitter.json").read_text(encoding="utf-8"))

LEN_FUNCS: dict[str, Callable[[str], int]] = {
    "utf8_bytes": lambda s: len(s.encode("utf-8")),
    "code_points": len,
}


def _splitter(config: dict[str, Any]) -> RecursiveSplitter:
    return RecursiveSplitter(
        chunk_size=config["chunk_size"],
        overlap_size=config["overlap_size"],
        separators=config.get("separators"),
        len_func=LEN_FUNCS[config.get("len_func", "code_points")],
        keep_type=config.get("keep_type", "none"),
        id_generator=config.get("id_generator"),
    )


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["id"] for c in DATA["cases"]])
def test_case(case: dict[str, Any]) -> None:
    splitter = _splitter(case["config"])
    got = [doc.to_dict() for doc in splitter.transform(case["input"])]
    assert got == case["expected"]


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["id"] for c in DATA["cases"]])
def test_case_spans_are_source_slices(case: dict[str, Any]) -> None:
    """The seed's chunks are exact slices of their document, so they carry offsets and lines."""
    splitter = _splitter(case["config"])
    for doc in case["input"]:
        content = doc["content"]
        for span in splitter.split_spans(content):
            assert content[span.start_offset : span.end_offset] == span.text
            assert span.start_line == content.count("\n", 0, span.start_offset) + 1
            assert span.end_line == content.count("\n", 0, span.end_offset - 1) + 1


CONFIG_CASES = DATA["config_cases"]


@pytest.mark.parametrize("case", CONFIG_CASES, ids=[c["id"] for c in CONFIG_CASES])
def test_config_case(case: dict[str, Any]) -> None:
    cfg = case["config"]
    kwargs = {k: v for k, v in cfg.items() if k in ("separators", "keep_type")}
    if "expected_error" in case:
        with pytest.raises(ValueError, match=case["expected_error"]) as info:
            RecursiveSplitter(cfg["chunk_size"], cfg["overlap_size"], **kwargs)
        assert isinstance(info.value, ConfigError)
        # The message names the bad value.
        bad = cfg.get(
            "keep_type", cfg["overlap_size"] if cfg["chunk_size"] > 0 else cfg["chunk_size"]
        )
        assert repr(bad) in str(info.value)
    else:
        splitter = RecursiveSplitter(cfg["chunk_size"], cfg["overlap_size"], **kwargs)
        assert list(splitter.separators) == case["expected_effective_separators"]


def test_keep_type_forms() -> None:
    assert RecursiveSplitter(5, keep_type=1).keep_type is KeepType.START
    assert RecursiveSplitter(5, keep_type="END").keep_type is KeepType.END
    assert RecursiveSplitter(5, keep_type=KeepType.NONE).keep_type is KeepType.NONE
    with pytest.raises(ConfigError, match="'none', 'start', 'end'"):
        RecursiveSplitter(5, keep_type="middle")


def test_bad_id_generator_and_separators() -> None:
    with pytest.raises(ConfigError, match="unknown"):
        RecursiveSplitter(5, id_generator="{unknown}")
    with pytest.raises(ConfigError, match="string"):
        RecursiveSplitter(5, separators="\n")  # type: ignore[arg-type]


def test_callable_id_generator_and_default_len_is_code_points() -> None:
    splitter = RecursiveSplitter(12, 0, [" "], id_generator=lambda doc_id, i: f"{doc_id}#{i}")
    docs = splitter.transform([{"id": "r", "content": "привет мир", "metadata": None}])
    assert [(d.id, d.content) for d in docs] == [("r#0", "привет мир")]
