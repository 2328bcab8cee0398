"""The web page in Debian's headless Chromium, driven over the Chrome DevTools Protocol.

Opens ``/`` of a real server over the answer fixture repository, types a Russian question,
submits it with Enter, waits for the answer, the evidence and the router plan panel, asks a
follow-up in English (the session continues), and saves ``test-artifacts/web.png``.
Without Chromium the test skips locally but fails when ``CI=true``.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from answer_fixture import write_repo
from ragstrata.app.facade import Ragstrata
from ragstrata.http import create_app
from test_http_api import SETTINGS, LiveServer, indexed_repo

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--window-size=1280,900",
    "--remote-debugging-port=0",
]


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        reason = "Chromium not installed (apt-get install chromium; see scripts/ci/chromium.sh)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " — CI must not skip the browser test")
        pytest.skip(reason)
    return found


class Cdp:
    """A minimal DevTools Protocol client for one page target."""

    def __init__(self, ws_url: str) -> None:
        from websockets.sync.client import connect

        self._stack = contextlib.ExitStack()
        self.ws = self._stack.enter_context(
            connect(ws_url, max_size=64 * 1024 * 1024, open_timeout=10)
        )
        self.ids = itertools.count(1)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        msg_id = next(self.ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            reply = json.loads(self.ws.recv(timeout=30))
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))

    def js(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"JS error in {expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.js(f"!!({expression})")
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {expression}")

    def press_enter(self) -> None:
        for kind in ("keyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                type=kind,
                key="Enter",
                code="Enter",
                windowsVirtualKeyCode=13,
                nativeVirtualKeyCode=13,
            )

    def close(self) -> None:
        self._stack.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[str]:
    """Start Chromium with a fresh profile; yield its DevTools HTTP endpoint."""
    exe = _chromium()
    profile = tempfile.mkdtemp(prefix="ragstrata-chromium-")
    proc = subprocess.Popen(
        [exe, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = Path(profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.is_file() and port_file.read_text().strip()):
            assert proc.poll() is None, f"chromium exited with {proc.returncode}"
            assert time.monotonic() < deadline, "chromium did not open its DevTools port"
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    rs = indexed_repo(tmp_path_factory.mktemp("web_repo"))
    fresh = Ragstrata(write_repo(tmp_path_factory.mktemp("web_fresh")), SETTINGS)
    with LiveServer(create_app({"payments": rs, "fresh": fresh})) as live:
        yield live.url


def _page(devtools: str) -> Cdp:
    targets = httpx.get(devtools + "/json/list", timeout=10).json()
    page = next(t for t in targets if t["type"] == "page")
    return Cdp(page["webSocketDebuggerUrl"])


def _ask(cdp: Cdp, question: str, turns: int) -> None:
    cdp.js("document.querySelector('#question').focus()")
    cdp.call("Input.insertText", text=question)
    cdp.press_enter()
    cdp.wait_for(
        f"document.querySelectorAll('.turn').length === {turns} && "
        "!document.querySelector('.answer.pending') && "
        "document.querySelectorAll('.turn')[" + str(turns - 1) + "].querySelector('details.plan')"
    )


def test_ask_in_the_browser(browser: str, site: str) -> None:
    cdp = _page(browser)
    try:
        cdp.call("Page.enable")
        cdp.call("Runtime.enable")
        cdp.call(
            "Emulation.setDeviceMetricsOverride",
            width=1280,
            height=900,
            deviceScaleFactor=1,
            mobile=False,
        )
        cdp.call("Page.navigate", url=site + "/")
        cdp.wait_for("document.readyState === 'complete' && document.querySelector('#repo option')")
        assert cdp.js("document.querySelector('#repo').value") == "payments"
        assert "rows indexed" in cdp.js("document.querySelector('#repo-status').textContent")
        session = cdp.js("document.querySelector('#session-id').textContent")
        assert session.startswith("web-")

        _ask(cdp, "кто вызывает функцию charge?", 1)
        turn = "document.querySelectorAll('.turn')[0]"
        assert cdp.js(f"{turn}.querySelector('.answer.error')") is None
        answer = cdp.js(f"{turn}.querySelector('.answer-text').innerText")
        assert "payments.gateway.charge" in answer and "tests/test_gateway.py" in answer
        cites = cdp.js(f"[...{turn}.querySelectorAll('button.cite')].map(b => b.textContent)")
        assert "src/payments/gateway.py:25-27" in cites
        hits = cdp.js(f"{turn}.querySelectorAll('.evidence .hit').length")
        assert hits >= 3
        # Server-side highlighting with line numbers.
        assert cdp.js(f"{turn}.querySelectorAll('.hit .hl .linenos').length") > 0
        assert cdp.js(f"{turn}.querySelectorAll('.hit .hl .k').length") > 0
        # The plan panel: collapsed, then opened by a click on its summary.
        assert cdp.js(f"{turn}.querySelector('details.plan').open") is False
        cdp.js(f"{turn}.querySelector('details.plan > summary').click()")
        plan_text = cdp.js(f"{turn}.querySelector('details.plan').innerText")
        assert "CODE_QA" in plan_text and "CodeQAGraph" in plan_text
        assert "SYMBOL charge" in plan_text and "C1 top" in plan_text and "NEW" in plan_text
        # A citation click brings its evidence card into view (and flashes it).
        cdp.js(f"{turn}.querySelector('button.cite').click()")
        cdp.wait_for(f"{turn}.querySelector('.hit.flash')")

        _ask(cdp, "and what does it use?", 2)
        second = "document.querySelectorAll('.turn')[1]"
        cdp.js(f"{second}.querySelector('details.plan > summary').click()")
        assert "CONTINUE" in cdp.js(f"{second}.querySelector('details.plan').innerText")
        assert cdp.js("document.querySelector('#session-id').textContent") == session
        # A viewport as tall as the page, so the sticky header and the fixed composer sit
        # where a reader sees them instead of being painted mid-page.
        height = int(cdp.js("document.documentElement.scrollHeight"))
        cdp.call(
            "Emulation.setDeviceMetricsOverride",
            width=1280,
            height=min(height, 8000),
            deviceScaleFactor=1,
            mobile=False,
        )
        cdp.js("window.scrollTo(0, 0)")
        time.sleep(0.2)  # let the resize repaint
        ARTIFACTS.mkdir(exist_ok=True)
        shot = cdp.call("Page.captureScreenshot", format="png")
        png = base64.b64decode(shot["data"])
        assert png.startswith(b"\x89PNG") and len(png) > 10_000
        (ARTIFACTS / "web.png").write_bytes(png)
    finally:
        cdp.close()


def test_index_a_second_repository_from_the_page(browser: str, site: str) -> None:
    cdp = _page(browser)
    try:
        cdp.call("Page.navigate", url=site + "/")
        cdp.wait_for("document.querySelectorAll('#repo option').length === 2")
        cdp.js(
            "const s = document.querySelector('#repo'); s.value = 'fresh';"
            "s.dispatchEvent(new Event('change'))"
        )
        cdp.wait_for(
            "document.querySelector('#repo-status').textContent.includes('not indexed yet')"
        )
        assert cdp.js("document.querySelector('#index-button').hidden") is False
        cdp.js("document.querySelector('#index-button').click()")
        cdp.wait_for("document.querySelector('#repo-status').textContent.includes('rows indexed')")
        assert cdp.js("document.querySelector('#index-button').hidden") is True
        _ask(cdp, "who calls charge?", 1)
        cites = cdp.js("[...document.querySelectorAll('button.cite')].map(b => b.textContent)")
        assert "tests/test_gateway.py:6" in cites
    finally:
        cdp.close()


def test_generated_docs_page_with_its_diagram(browser: str, site: str) -> None:
    """A docs request renders the generated page, its Mermaid diagram drawn as SVG by the
    server (no script from any other host), headings in the question's language."""
    cdp = _page(browser)
    try:
        cdp.call("Page.navigate", url=site + "/")
        cdp.wait_for("document.readyState === 'complete' && document.querySelector('#repo option')")
        _ask(cdp, "сгенерируй документацию для модуля payments", 1)
        turn = "document.querySelectorAll('.turn')[0]"
        text = cdp.js(f"{turn}.querySelector('.answer-text').innerText")
        assert "Пакет" in text and "Публичный API" in text and "Gateway" in text
        labels = cdp.js(
            f"[...{turn}.querySelectorAll('svg.diagram .node text')].map(t => t.textContent)"
        )
        assert "Gateway" in labels and "validate" in labels
        assert cdp.js(f"{turn}.querySelectorAll('svg.diagram .edge').length") >= 1
        box = cdp.js(f"{turn}.querySelector('svg.diagram').getBoundingClientRect().width")
        assert box > 100  # laid out, not a collapsed element
        scripts = cdp.js("[...document.scripts].map(s => s.src)")
        assert all(s.startswith(site) for s in scripts if s)
    finally:
        cdp.close()


def test_page_address_names_repo_and_question(browser: str, site: str) -> None:
    """``/?repo=…&q=…`` opens that repository and asks the question; asking on the page
    writes the question back into the address, so an answer can be linked and reloaded."""
    from urllib.parse import parse_qs, quote, urlsplit

    cdp = _page(browser)
    try:
        cdp.call("Page.navigate", url=site + "/?repo=payments&q=" + quote("кто вызывает charge?"))
        cdp.wait_for(
            "document.querySelectorAll('.turn').length === 1 && "
            "!document.querySelector('.answer.pending') && "
            "document.querySelector('.turn details.plan')"
        )
        assert cdp.js("document.querySelector('#repo').value") == "payments"
        assert "кто вызывает charge?" in cdp.js("document.querySelector('.question').innerText")
        cites = cdp.js("[...document.querySelectorAll('button.cite')].map(b => b.textContent)")
        assert "src/payments/gateway.py:25-27" in cites
        _ask(cdp, "where is Gateway defined?", 2)
        query = parse_qs(urlsplit(cdp.js("location.href")).query)
        assert query == {"repo": ["payments"], "q": ["where is Gateway defined?"]}
    finally:
        cdp.close()
