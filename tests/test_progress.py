"""Index progress while vectors fill: vectors done / total and a smoothed ETA, no empty
counters; plain lines on a non-terminal, rich bars on a terminal."""

from __future__ import annotations

import io
import re

from rich.console import Console

from ragstrata.cli.progress import PlainProgress, RichProgress, Smoothed, progress_view
from ragstrata.indexer import IndexEvent


def _vector_fill(view: PlainProgress, now: list[float], total: int = 1000) -> None:
    """A run with rows already written: the model loads for 5 s, then 50 texts/s, slowing to
    25 texts/s half-way."""
    view(IndexEvent("embed", 0, total))
    done, t = 50, 5.0
    while done <= total:
        now[0] = t
        view(IndexEvent("embed", done, total))
        done += 50
        t += 1.0 if done <= total // 2 else 2.0
    view(IndexEvent("done", 1, 1))


def _etas(lines: list[str]) -> list[tuple[int, int]]:
    out = []
    for line in lines:
        m = re.search(r"vectors (\d+)/\d+ .*ETA (\d+)s", line)
        if m:
            out.append((int(m.group(1)), int(m.group(2))))
    return out


def test_a_vector_only_run_shows_vectors_and_a_smoothed_eta() -> None:
    now = [0.0]
    out = io.StringIO()
    view = PlainProgress(out, every=2.0, clock=lambda: now[0])
    _vector_fill(view, now)
    lines = out.getvalue().splitlines()
    assert lines and not any("files 0/0" in line or "rows 0" in line for line in lines)
    assert all(line.startswith("index: ") for line in lines)
    etas = _etas(lines)
    assert len(etas) >= 5, lines
    # true time left: 50/s to 500 done, then 25/s; the ETA is never off by more than half
    for done, eta in etas:
        left = (1000 - max(done, 500)) / 25 + max(500 - done, 0) / 50
        assert abs(eta - left) <= max(0.5 * left, 3), (done, eta, left, lines)
    assert "vectors 1000/1000" in lines[-1] and "ETA" not in lines[-1]


def test_the_warm_up_step_does_not_shape_the_rate() -> None:
    rate = Smoothed(0, 0.0)
    assert rate.update(64, 8.0) is None  # the first batch carried the model load
    assert rate.update(128, 9.0) == 64.0
    assert rate.eta(128, 1000) == (1000 - 128) / 64
    slower = rate.update(160, 10.0)
    assert slower is not None and 32 < slower < 64  # moves toward the new rate, not to it
    assert rate.eta(1000, 1000) is None


def test_the_terminal_view_shows_vectors_done_of_total_and_an_eta() -> None:
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=True, color_system=None)
    assert isinstance(progress_view(console), RichProgress)
    with RichProgress(console) as view:
        for done in (0, 64, 128, 192):
            view(IndexEvent("embed", done, 2621))
    text = out.getvalue()
    assert "192/2621" in text and "vectors" in text
    assert "files" not in text and "rows" not in text.replace("rows written", "")


def test_shortest_first_batches_keep_the_eta_steady() -> None:
    """Texts sorted shortest first: the text rate falls 10x, the work rate holds, and the ETA
    (drawn from the share of work the events carry) tracks the true time left."""
    now = [0.0]
    out = io.StringIO()
    view = PlainProgress(out, every=1.0, clock=lambda: now[0])
    costs = [100 + 20 * i for i in range(100)]  # batch i costs this much; 1000 units/s
    whole, done_cost, t = sum(costs), 0, 2.0
    view(IndexEvent("embed", 0, 3200))
    for i, cost in enumerate(costs):
        done_cost += cost
        t += cost / 1000
        now[0] = t
        view(IndexEvent("embed", 32 * (i + 1), 3200, work=done_cost / whole))
    etas = _etas(out.getvalue().splitlines())
    assert len(etas) >= 10
    for done, eta in etas:
        left = sum(costs[done // 32 :]) / 1000
        assert abs(eta - left) <= max(0.15 * left, 1.5), (done, eta, left)


def test_fill_vectors_reports_the_share_of_work() -> None:
    from ragstrata.indexer.embed_fill import _Work

    work = _Work(total=4)
    work.fetched([10, 30])  # two texts fetched of four: the other two cost the mean, 20
    assert work.share(10) == 10 / 80
    assert work.share(30) == 40 / 80
    work.fetched([20, 20])
    assert work.share(40) == 1.0
