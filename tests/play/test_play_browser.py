"""The web page in a real browser: Playwright driving Debian's Chromium (no browser download).

The page opens on a start screen (the games, a per-game form of the engine's flags, the seats
the server gives for those flags). For each game the test then plays a whole episode by clicking
legal actions, checks the seats' score columns and status lines against the game's board, that
the result table and headline equal the record replayed through the env, downloads the record
and steps through it in the page's viewer, and saves screenshots under `runs/`
(`MAZZO_DOCS_SCREENSHOT=1` also writes `docs/play.png`, the README's picture).
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
from play.session import summary_of  # noqa: E402
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


def _expected(rec: dict) -> tuple[list[dict], list[str]]:
    """The result table's cells and the headline, from the record replayed through the env."""
    env = records.replay(rec)
    info = env.infos[env.possible_agents[0]]
    summary = summary_of(rec["game"], info["result"], info["record"]["returns"])
    rows = [{k: (f"{v:.2f}" if isinstance(v, float) and not float(v).is_integer() else str(v))
             for k, v in r.items() if k != "seat"} for r in summary["rows"]]
    return rows, summary["lines"]


def _click_and_wait(page, target) -> None:
    """Click, then wait until the page has drawn the server's answer (it counts its renders)."""
    before = page.evaluate("Number(document.body.dataset.renders || 0)")
    target.click()
    page.wait_for_function(f"Number(document.body.dataset.renders || 0) > {before}")


def _open(browser, url, height=1000):
    page = browser.new_page(viewport={"width": 1280, "height": height}, accept_downloads=True)
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page


def test_the_page_opens_on_a_start_screen_with_each_games_own_flags(server, browser):
    url, _ = server
    page = _open(browser, url)
    try:
        # a clear start screen: the games to choose from and a Start button, no empty table
        assert page.locator("[data-testid=start]").is_visible() and not page.locator("[data-testid=table]").is_visible()
        titles = page.locator(".tile h3").all_inner_texts()
        assert titles == ["Briscola in cinque", "Pigugnìn", "Picchetto"]
        assert page.locator("[data-testid=new-game]").inner_text() == "Start"
        RUNS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(RUNS / "start.png"), full_page=True)
        meta = page.evaluate("META")
        for game in ("briscola5", "pigugnin", "picchetto"):
            page.click(f"[data-testid=tile-{game}]")
            page.wait_for_function(f"document.querySelector('#flags-game').textContent === {meta['games'][game]['title']!r}")
            shown = page.locator("#flags [data-flag]").evaluate_all("els => els.map(e => e.dataset.flag)")
            assert shown == [f["name"] for f in meta["games"][game]["flags"]], game
            for f in meta["games"][game]["flags"]:
                field = page.locator(f"#flags [data-flag={f['name']}]")
                if isinstance(f["allowed"], list):  # a menu of the allowed values, the default chosen
                    assert json.loads(field.input_value()) == f["default"]
                    assert len(field.locator("option").all()) == len(f["allowed"])
                else:  # a text box showing the default
                    default = f["default"] if isinstance(f["default"], str) else json.dumps(f["default"], separators=(",", ":"))
                    assert field.get_attribute("placeholder") == default, f["name"]
        # Briscola has no `episode` flag (the old placeholder suggested one); Pigugnìn's seats follow num_players
        page.click("[data-testid=tile-briscola5]")
        assert page.locator("#flags [data-flag=episode]").count() == 0
        page.click("[data-testid=tile-pigugnin]")
        page.click("[data-testid=flags-box] summary")  # the rule variants fold out
        page.wait_for_function("document.body.dataset.seats === '4'")
        page.select_option("#flags [data-flag=num_players]", "5")
        page.wait_for_function("document.body.dataset.seats === '5'")
        assert page.locator("[data-testid=seat] option").count() == 5
        # a bad value in a text box is refused with the engine's message, before any game starts
        page.fill("#flags [data-flag=loss_threshold]", "0")
        page.dispatch_event("#flags [data-flag=loss_threshold]", "change")
        page.wait_for_function("document.querySelector('[data-testid=error]').textContent.includes('loss_threshold')")
    finally:
        page.close()


GAMES = [
    ("briscola5", {}, 2),
    ("pigugnin", {"episode": "hand"}, 1),
    ("picchetto", {"episode": "hand"}, 0),
]


@pytest.mark.parametrize("game,flags,seat", GAMES)
def test_play_a_whole_episode_in_the_browser(server, browser, game, flags, seat, tmp_path):
    url, app = server
    rnd = random.Random(game)
    page = _open(browser, url)
    try:
        page.click(f"[data-testid=tile-{game}]")
        if flags:
            page.click("[data-testid=flags-box] summary")
        for name, value in flags.items():
            page.select_option(f"#flags [data-flag={name}]", json.dumps(value))
        page.wait_for_function(f"document.body.dataset.seatsGame === {game!r}")
        page.select_option("[data-testid=seat]", str(seat))
        page.fill("[data-testid=seed]", "11")
        _click_and_wait(page, page.locator("[data-testid=new-game]"))
        assert not page.locator("[data-testid=start]").is_visible()
        assert page.evaluate("GAME.seat") == seat
        status = page.locator("[data-testid=status]")
        clicks = 0
        shot_taken = False
        while "over" not in status.inner_text():
            actions = page.locator("[data-action]")
            n = actions.count()
            assert n > 0, f"no clickable action, status {status.inner_text()!r}"
            # greyed cards are never clickable: every card in the hand without data-action is marked illegal
            assert page.locator("#hand .card:not([data-action]):not(.illegal)").count() == 0
            # the seats show the game's score columns (the board), the table its status lines
            gid = page.evaluate("document.body.dataset.gameId")
            board = app.state.games.get(gid)[0].view()["board"]
            first = page.locator(f"#seats [data-seat='{seat}'] [data-col]").all_inner_texts()
            assert first == [f"{name} {values[seat]}" for name, values in board["columns"]]
            assert page.locator("[data-testid=board-lines] div").all_inner_texts() == board["lines"]
            if clicks == 4 and not shot_taken:
                RUNS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(RUNS / f"{game}-playing.png"), full_page=True)
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
        # the page's result table and headline equal the record (the server's full record) replayed through the env
        gid = page.evaluate("document.body.dataset.gameId")
        session, _ = app.state.games.get(gid)
        rows, lines = _expected(session.record())
        table = page.locator("[data-testid=result]")
        shown = []
        for i in range(table.locator("tr[data-seat]").count()):
            row = table.locator("tr[data-seat]").nth(i)
            cells = row.locator("td[data-key]")
            shown.append({cells.nth(j).get_attribute("data-key"): cells.nth(j).inner_text() for j in range(cells.count())})
        assert shown == rows
        assert page.locator("[data-testid=summary-lines] div").all_inner_texts() == lines
        # the tricks are listed with their winners
        if game != "briscola5" or session.record()["hands"][0]["result"]["void"] is None:
            assert page.locator("[data-testid=moves] li[data-winner]").count() > 0
        # download the record: redacted for the seat
        with page.expect_download() as dl:
            page.click("[data-testid=download]")
        path = tmp_path / "record.json"
        dl.value.save_as(str(path))
        rec = json.loads(path.read_text())
        assert rec["format"] == "mazzo-record/1" and rec["redacted_for"] == seat and rec["rng"] is None
        # ... and step through it in the viewer: the person's seat is labelled from the record
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
        assert page.locator(f"#v-seats [data-seat='{seat}'] .name").inner_text() == f"player_{seat} (human)"
        page.locator("[data-testid=frame]").fill(str(len(rec["views"]) - 1))
        page.wait_for_function("document.querySelector('#v-result table') !== null")
        assert page.locator("[data-testid=v-board-lines] div").all_inner_texts() == lines
        page.screenshot(path=str(RUNS / f"{game}-viewer.png"), full_page=True)
        # a new game from the end: back to the start screen
        page.click("[data-testid=tab-play]")
        page.click("[data-testid=again]")
        assert page.locator("[data-testid=start]").is_visible()
    finally:
        page.close()


@pytest.mark.skipif(not os.environ.get("MAZZO_DOCS_SCREENSHOT"), reason="set MAZZO_DOCS_SCREENSHOT=1 to redraw docs/play.png")
def test_the_readme_picture(server, browser):
    """docs/play.png: Briscola in cinque at seat 0 against four heuristic players (seed 7), after
    passing in the auction and playing the first card of the hand in three tricks."""
    url, _ = server
    page = _open(browser, url, height=700)
    try:
        page.fill("[data-testid=seed]", "7")
        _click_and_wait(page, page.locator("[data-testid=new-game]"))
        _click_and_wait(page, page.locator("[data-action]", has_text="pass"))
        for _ in range(3):
            _click_and_wait(page, page.locator("#hand [data-action]").first)
        page.screenshot(path=str(ROOT / "docs" / "play.png"), full_page=True)
    finally:
        page.close()
