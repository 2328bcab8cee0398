"""A damaged index is reported in one line naming the file and the fix, and `index --rebuild`
recovers every kind of damage; readers keep answering while a rebuild runs (issue 14, item 4).

Each test builds its repository and index, damages the index file one way, and checks:
``search`` exits 2 or 3 with one line that names the file and ``--rebuild`` (never ``internal
error``), ``index --rebuild`` exits 0, and ``search`` then answers as before the damage.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from ragstrata.app.facade import Ragstrata
from ragstrata.cli.app import main
from ragstrata.embed.base import ProgressCallback
from ragstrata.settings import EmbedderSettings, Settings
from ragstrata.store.sqlite import SQLiteStore
from ragstrata.testing.fakes import HashEmbedder

FILES = {
    "src/shop/payments.py": '''"""Payments."""


def charge_card(amount, card):
    """Charge a credit card; retries on a timeout."""
    return gateway_send(card, amount)


def refund_payment(payment_id):
    """Give the money back."""
    return gateway_send(payment_id, -1)
''',
    "src/shop/gateway.py": '''def gateway_send(target, amount):
    """Talk to the payment gateway."""
    return {"target": target, "amount": amount}
''',
    "docs/guide.md": "# Guide\n\n## Возврат платежа\n\nКак вернуть деньги клиенту: refund_payment.\n",
}


def _write_repo(root: Path) -> Path:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for i in range(40):  # enough rows for several pages, so mid-file damage hits data
        path = root / "src" / "shop" / f"module_{i}.py"
        path.write_text(
            "\n\n".join(f"def helper_{i}_{j}(x):\n    return x + {j}\n" for j in range(15)),
            encoding="utf-8",
        )
    return root


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def _hits(capsys: pytest.CaptureFixture[str], repo: Path, query: str) -> list[tuple[str, int]]:
    code, out, err = _cli(capsys, "search", query, "--repo", str(repo), "--json")
    assert code == 0, err
    return [(h["path"], h["start_line"]) for h in json.loads(out)["hits"]][:5]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in list(os.environ):
        if key.startswith("RAGSTRATA_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_PROVIDER", "hash")
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_DIMENSIONS", "32")
    return _write_repo(tmp_path / "shop")


# --------------------------------------------------------------------------- the damage


def _checkpointed(index: Path) -> Path:
    """Fold the WAL into the file, so damage to the file is damage to the data."""
    conn = sqlite3.connect(index)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return index


def _truncate_half(index: Path) -> None:
    size = _checkpointed(index).stat().st_size
    with index.open("r+b") as fh:
        fh.truncate(size // 2)


def _truncate_to_header(index: Path) -> None:
    with _checkpointed(index).open("r+b") as fh:
        fh.truncate(100)


def _garbage_header(index: Path) -> None:
    with _checkpointed(index).open("r+b") as fh:
        fh.write(random.Random(1).randbytes(100))


def _garbage_mid_file(index: Path) -> None:
    size = _checkpointed(index).stat().st_size
    with index.open("r+b") as fh:
        fh.seek(size // 2 - size // 8)
        fh.write(random.Random(2).randbytes(size // 4))


def _random_bytes(index: Path) -> None:
    size = _checkpointed(index).stat().st_size
    index.write_bytes(random.Random(3).randbytes(size))


def _a_folder(index: Path) -> None:
    _checkpointed(index).unlink()
    (index.parent / "index.sqlite-wal").unlink(missing_ok=True)
    (index.parent / "index.sqlite-shm").unlink(missing_ok=True)
    index.mkdir()
    (index / "stray.txt").write_text("not a database", encoding="utf-8")


def _tables_dropped(index: Path) -> None:
    conn = sqlite3.connect(index)
    conn.execute("PRAGMA foreign_keys=OFF")
    conn.execute("DROP TABLE relations")
    conn.execute("DROP TABLE rows")
    conn.commit()
    conn.close()


def _garbage_wal(index: Path) -> None:
    conn = sqlite3.connect(index)  # a committed change that lives in the WAL only
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("UPDATE rows SET n_terms = n_terms + 1")
    conn.commit()
    wal = index.parent / "index.sqlite-wal"
    data = bytearray(wal.read_bytes())
    assert len(data) > 4096
    data[32:] = random.Random(4).randbytes(len(data) - 32)  # frames garbled, header kept
    wal.write_bytes(bytes(data))
    _KEEP.append(conn)  # kept open until the end: closing it would checkpoint the WAL


_KEEP: list[sqlite3.Connection] = []


def _payloads_garbled(index: Path) -> None:
    conn = sqlite3.connect(index)
    conn.execute("UPDATE rows SET payload = '{\"layer\": \"C9\"' WHERE layer = 'C1'")
    conn.commit()
    conn.close()


def _schema_from_the_future(index: Path) -> None:
    conn = sqlite3.connect(index)
    conn.execute("PRAGMA user_version = 99")
    conn.close()


KINDS: dict[str, Callable[[Path], None]] = {
    "truncated to half": _truncate_half,
    "truncated to its header": _truncate_to_header,
    "garbage header": _garbage_header,
    "garbage mid-file": _garbage_mid_file,
    "random bytes": _random_bytes,
    "replaced by a folder": _a_folder,
    "tables dropped": _tables_dropped,
    "garbage in the WAL": _garbage_wal,
    "rows not JSON": _payloads_garbled,
    "schema from the future": _schema_from_the_future,
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_damage_is_reported_and_rebuild_recovers(
    kind: str, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli(capsys, "index", str(repo))[0] == 0
    before = _hits(capsys, repo, "refund payment gateway")
    assert ("src/shop/payments.py", 9) in before
    index = repo / ".ragstrata" / "index.sqlite"
    try:
        KINDS[kind](index)
        commands = [["search", "refund payment", "--repo", str(repo)]]
        if kind != "rows not JSON":  # counts and an incremental run need no row decoded
            commands += [["status", str(repo)], ["index", str(repo)]]
        for command in commands:
            code, _, err = _cli(capsys, *command)
            lines = err.strip().splitlines()
            assert code in (2, 3), (command, code, err)
            assert len(lines) == 1 and "internal error" not in err, err
            assert "--rebuild" in err and "index" in err, err
            if kind != "schema from the future":
                assert str(index) in err, err
        code, _, err = _cli(capsys, "index", "--rebuild", str(repo))
        assert code == 0, err
        assert index.is_file()
        assert _hits(capsys, repo, "refund payment gateway") == before
        assert not list(index.parent.glob("index.sqlite.rebuild*"))
        assert not list(index.parent.glob("index.sqlite.old*"))
    finally:
        while _KEEP:
            _KEEP.pop().close()


def test_the_kinds_are_ten() -> None:
    assert len(KINDS) == 10


# --------------------------------------------------------------------------- readers


class SlowEmbedder(HashEmbedder):
    """The hash embedder, slowed down so a rebuild lasts while readers read."""

    def embed_documents(
        self, texts: Sequence[str], progress: ProgressCallback | None = None
    ) -> list[list[float]]:
        time.sleep(0.05)
        return super().embed_documents(texts, progress)


def test_readers_answer_from_the_old_index_during_a_rebuild(repo: Path) -> None:
    settings = Settings(embedder=EmbedderSettings(provider="hash", dimensions=32))
    with Ragstrata(repo, settings) as rs:
        rs.index()
    reader_store = SQLiteStore.for_repo(repo)  # another reader, with its own connections
    reader = Ragstrata(repo, settings, store=reader_store)
    answers: list[list[str]] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def read() -> None:
        try:
            while not done.is_set():
                hits = reader.search("where is refund_payment defined?").hits
                answers.append([h.path for h in hits])
        except BaseException as exc:  # reported below
            errors.append(exc)

    (repo / "src" / "shop" / "refunds.py").write_text(
        "def refund_payment_v2(payment_id):\n    return payment_id\n", encoding="utf-8"
    )
    thread = threading.Thread(target=read)
    thread.start()
    try:
        slow = Ragstrata(repo, settings, embedder=SlowEmbedder(dimensions=32))
        seen_before = len(answers)
        slow.index(rebuild=True)
        during = answers[seen_before:]
        slow.close()
        time.sleep(0.3)
    finally:
        done.set()
        thread.join(timeout=30)
    assert not errors, errors
    assert len(during) >= 3, "the reader was not answering during the rebuild"
    assert all("src/shop/payments.py" in paths for paths in during)
    after = reader.search("where is refund_payment_v2 defined?").hits
    assert after and after[0].path == "src/shop/refunds.py"  # the reader moved to the new file
    reader.close()
    index = repo / ".ragstrata" / "index.sqlite"
    assert not list(index.parent.glob("index.sqlite.rebuild*"))
    shutil.rmtree(repo / ".ragstrata")
