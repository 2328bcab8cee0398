"""Generated docs: golden Markdown for file, package and symbol targets of a fixture package;
target resolution; unknown targets raise a UserError with near candidates.

Regenerate the goldens after a deliberate change with
``UPDATE_GOLDEN=1 pytest tests/test_gendocs.py`` and review the diff.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from answer_fixture import load_store, write_repo
from ragstrata.answer.docs.targets import build_docs, generate_docs, resolve_target
from ragstrata.errors import UserError
from ragstrata.retrieve.reader import IndexReader
from ragstrata.store.sqlite import SQLiteStore

GOLDEN = Path(__file__).resolve().parent / "golden" / "gendocs"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SQLiteStore]:
    s = load_store(write_repo(tmp_path_factory.mktemp("repo")))
    yield s
    s.close()


@pytest.mark.parametrize(
    ("target", "language", "golden"),
    [
        ("src/payments/gateway.py", "en", "file_en.md"),
        ("src/payments", "en", "package_en.md"),
        ("Gateway", "en", "symbol_en.md"),
        ("payments.gateway.charge", "ru", "symbol_ru.md"),
    ],
)
def test_golden(store: SQLiteStore, target: str, language: str, golden: str) -> None:
    markdown = generate_docs(target, reader=IndexReader(store), language=language)
    path = GOLDEN / golden
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(markdown, encoding="utf-8")
    assert markdown == path.read_text(encoding="utf-8")
    assert (
        generate_docs(target, reader=IndexReader(store), language=language) == markdown
    )  # deterministic


def test_file_doc_content(store: SQLiteStore) -> None:
    docs = build_docs("src/payments/gateway.py", reader=IndexReader(store))
    md = docs.markdown
    assert md.startswith(
        "# Module `src/payments/gateway.py`\n\n## Overview\n\nTalks to the payment"
    )
    assert "### Class `Gateway`" in md and "### Function `charge`" in md
    # private members are left out, public methods listed with signature and docstring
    assert "_secret" not in md
    assert "- `def send(self, amount):` — Send an amount to the provider." in md
    # relations and an example quoted from the tests, with its span
    assert "- `payments.gateway.validate` (`src/payments/gateway.py:14`)" in md
    assert "`tests/test_gateway.py:4-6` — `tests.test_gateway.test_charge`" in md
    assert "6 |     assert charge(gw, 5)" in md
    spans = {(c.path, c.start_line, c.end_line) for c in docs.citations}
    assert {("src/payments/gateway.py", 6, 17), ("tests/test_gateway.py", 4, 6)} <= spans


@pytest.mark.parametrize(
    ("target", "kind", "value"),
    [
        ("src/payments/gateway.py", "file", "src/payments/gateway.py"),
        ("./src/payments/", "package", "src/payments"),
        ("payments", "package", "src/payments"),
        ("gateway.py", "file", "src/payments/gateway.py"),
        ("payments.gateway", "file", "src/payments/gateway.py"),
        ("Gateway", "symbol", "payments.gateway.Gateway"),
        ("Gateway.send", "symbol", "payments.gateway.Gateway.send"),
        ("validate", "symbol", "payments.gateway.validate"),
    ],
)
def test_resolve_target(store: SQLiteStore, target: str, kind: str, value: str) -> None:
    resolved = resolve_target(target, IndexReader(store))
    assert (resolved.kind, resolved.value) == (kind, value)


def test_unknown_target_lists_near_candidates(store: SQLiteStore) -> None:
    with pytest.raises(UserError) as err:
        generate_docs("paymnts", reader=IndexReader(store))
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("no file, folder or symbol 'paymnts' in the index; near candidates:")
    assert "src/payments/" in message


def test_unknown_target_without_candidates(store: SQLiteStore) -> None:
    with pytest.raises(UserError, match=r"'qqqqqqqq' in the index; no similar names"):
        generate_docs("qqqqqqqq", reader=IndexReader(store))


def test_empty_target_is_a_user_error(store: SQLiteStore) -> None:
    with pytest.raises(UserError, match="empty gendocs target"):
        generate_docs("  ", reader=IndexReader(store))
