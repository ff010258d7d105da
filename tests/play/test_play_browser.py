"""The web page in a real browser: Playwright driving Debian's Chromium (no browser download).

For each game the test starts the server on a free port, plays a whole episode by clicking
legal actions, checks that the page's result table equals the record replayed through the env,
downloads the record and steps through it in the page's viewer, and saves a screenshot under
`runs/` (`MAZZO_DOCS_SCREENSHOT=1` also writes `docs/play.png`, the README's picture).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (the dev extra)")

from envs import records  # noqa: E402
from play.session import result_rows  # noqa: E402
from play.web import create_app  # noqa: E402

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "runs" / "play"

# A real browser playing whole episodes: the full suite (make test) runs it, the fast tier does not.
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium on this machine: install the Debian package (apt-get install -y chromium; .ci/run does); "
           "Playwright's own browser download is not reachable here and is never used",
)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    import uvicorn

    app = create_app()
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app
    srv.should_exit = True
    thread.join(timeout=30)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


def _expected_rows(rec: dict) -> list[dict]:
    env = records.replay(rec)
    info = env.infos[env.possible_agents[0]]
    rows = result_rows(rec["game"], info["result"], info["record"]["returns"])
    out = []
    for r in rows:
        out.append({k: (f"{v:.2f}" if isinstance(v, float) and not float(v).is_integer() else str(v))
                    for k, v in r.items() if k != "seat"})
    return out


def _click_and_wait(page, target) -> None:
    """Click, then wait until the page has drawn the server's answer (it counts its renders)."""
    before = page.evaluate("Number(document.body.dataset.renders || 0)")
    target.click()
    page.wait_for_function(f"Number(document.body.dataset.renders || 0) > {before}")


GAMES = [
    ("briscola5", "", 2),
    ("pigugnin", "episode=hand", 1),
    ("picchetto", "episode=hand", 0),
]


@pytest.mark.parametrize("game,flags,seat", GAMES)
def test_play_a_whole_episode_in_the_browser(server, browser, game, flags, seat, tmp_path):
    url, app = server
    rnd = random.Random(game)
    page = browser.new_page(viewport={"width": 1280, "height": 1000}, accept_downloads=True)
    try:
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']")
        page.select_option("[data-testid=game]", game)
        page.fill("[data-testid=flags]", flags)
        page.dispatch_event("[data-testid=flags]", "change")
        page.select_option("[data-testid=seat]", str(seat))
        page.fill("[data-testid=seed]", "11")
        _click_and_wait(page, page.locator("[data-testid=new-game]"))
        status = page.locator("[data-testid=status]")
        clicks = 0
        shot_taken = False
        while "over" not in status.inner_text():
            actions = page.locator("[data-action]")
            n = actions.count()
            assert n > 0, f"no clickable action, status {status.inner_text()!r}"
            # greyed cards are never clickable: every card in the hand without data-action is marked illegal
            assert page.locator("#hand .card:not([data-action]):not(.illegal)").count() == 0
            if clicks == 3 and not shot_taken:
                RUNS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(RUNS / f"{game}-playing.png"), full_page=True)
                if game == "briscola5" and os.environ.get("MAZZO_DOCS_SCREENSHOT"):
                    page.screenshot(path=str(ROOT / "docs" / "play.png"), full_page=True)
                shot_taken = True
            target = actions.nth(rnd.randrange(n))
            with page.expect_response("**/actions") as resp:
                _click_and_wait(page, target)
            assert resp.value.status == 200, resp.value.text()
            assert page.locator("[data-testid=error]").inner_text() == ""
            clicks += 1
            assert clicks < 500
        assert "over" in status.inner_text() and clicks > 0
        page.screenshot(path=str(RUNS / f"{game}-over.png"), full_page=True)
        # the page's result table equals the record (the server's full record) replayed through the env
        gid = page.evaluate("document.body.dataset.gameId")
        session, _ = app.state.games.get(gid)
        expected = _expected_rows(session.record())
        table = page.locator("[data-testid=result]")
        shown = []
        for i in range(table.locator("tr[data-seat]").count()):
            row = table.locator("tr[data-seat]").nth(i)
            cells = row.locator("td[data-key]")
            shown.append({cells.nth(j).get_attribute("data-key"): cells.nth(j).inner_text() for j in range(cells.count())})
        assert shown == expected
        # the moves appear in order, the human's last one among them
        assert page.locator("[data-testid=moves] li").count() >= clicks
        # download the record: redacted for the seat
        with page.expect_download() as dl:
            page.click("[data-testid=download]")
        path = tmp_path / "record.json"
        dl.value.save_as(str(path))
        rec = json.loads(path.read_text())
        assert rec["format"] == "mazzo-record/1" and rec["redacted_for"] == seat and rec["rng"] is None
        # ... and step through it in the viewer
        page.click("[data-testid=tab-view]")
        page.set_input_files("[data-testid=record-file]", str(path))
        with page.expect_response(lambda r: "/api/records/view" in r.url):
            page.click("[data-testid=open]")
        label = page.locator("[data-testid=frame-label]")
        page.wait_for_function("document.querySelector('[data-testid=frame-label]').textContent.startsWith('position 0')")
        page.click("[data-testid=next]")
        page.click("[data-testid=next]")
        page.click("[data-testid=prev]")
        assert label.inner_text().startswith("position 1 of ")
        page.screenshot(path=str(RUNS / f"{game}-viewer.png"), full_page=True)
    finally:
        page.close()
