"""The web page's JSON API (`play.web`), through Starlette's TestClient."""

from __future__ import annotations

import json
import re
import threading
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():  # Starlette 1.x suggests the httpx2 package for its TestClient; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from envs import records  # noqa: E402
from envs.registry import observation_module  # noqa: E402
from play.web import create_app  # noqa: E402

GAMES = [("briscola5", {}), ("pigugnin", {"episode": "hand"}), ("picchetto", {"episode": "hand"})]
_TOKEN = {
    "italian": re.compile(r"(?<![A-Za-z0-9_])([A2-7JHK][CDSB])(?![A-Za-z0-9_])"),
    "french": re.compile(r"(?<![A-Za-z0-9_])([7-9TJQKA][hdsc])(?![A-Za-z0-9_])"),
}


@pytest.fixture()
def client():
    app = create_app()
    with TestClient(app) as c:
        c.app_state = app.state
        yield c


def new(client, game="briscola5", seat=0, flags=None, seed=1, opponents="heuristic"):
    r = client.post("/api/games", json={"game": game, "seat": seat, "opponents": opponents, "seed": seed,
                                        "flags": flags or {}})
    assert r.status_code == 201, r.text
    return r.json()


def visible(client, gid: str) -> set[str]:
    """Cards the human seat may know now: its own decoded observation (hand, played, shown, ...)."""
    session, _ = client.app_state.games.get(gid)
    env, seat = session.env, session.seat
    module = observation_module(session.game)
    view = module.decode(env.observe(env.possible_agents[seat])["observation"], codes=True)
    return set(_TOKEN[env.game.deck.name].findall(json.dumps({k: view[k] for k in module.CARD_FIELDS if k in view})))


def check_no_hidden_cards(client, gid: str, answer: dict, known: set[str]) -> int:
    """``known``: what the seat has seen so far in this (one-hand) episode; updated here."""
    session, _ = client.app_state.games.get(gid)
    deck = session.env.game.deck
    body = {k: v for k, v in answer["view"].items() if k != "legal"}
    known |= visible(client, gid)
    allowed = set(known)
    for m in body["moves"]:  # the moves just made are public (another seat's discards are hidden)
        if m["id"] is not None:
            known |= set(_TOKEN[deck.name].findall(m["name"]))
            allowed |= known
    shown = set(_TOKEN[deck.name].findall(json.dumps(body)))
    assert shown <= allowed, f"hidden cards in a response: {sorted(shown - allowed)}"
    # and directly: no card held by another seat (and unseen) is in the answer
    state = session.env.state_
    for p, hand in enumerate(state.hands):
        if p != session.seat:
            held = {deck.codes[c] for c in range(deck.size) if hand >> c & 1}
            assert not (held - allowed) & shown
    # the legal actions are exactly the seat's own mask
    if answer["view"]["legal"]:
        mask = session.env.observe(session.env.possible_agents[session.seat])["action_mask"]
        assert [a["id"] for a in answer["view"]["legal"]] == [i for i, v in enumerate(mask) if v]
    return len(shown)


@pytest.mark.parametrize("game,flags", GAMES)
def test_a_whole_episode_through_the_api_never_shows_hidden_cards(client, game, flags):
    for seat in (0, 1):
        data = new(client, game, seat=seat, flags=flags, seed=5 + seat)
        gid, view = data["id"], data["view"]
        known: set[str] = set()
        check_no_hidden_cards(client, gid, data, known)
        steps = 0
        while not view["over"]:
            assert view["to_act"] == seat and view["legal"]
            r = client.post(f"/api/games/{gid}/actions", json={"action": view["legal"][-1]["id"]})
            assert r.status_code == 200, r.text
            check_no_hidden_cards(client, gid, r.json(), known)
            view = r.json()["view"]
            steps += 1
        assert steps > 0 and view["result"] and len(view["result"]) == view["num_players"]
        rec = client.get(f"/api/games/{gid}/record").json()
        assert rec["format"] == "mazzo-record/1" and rec["redacted_for"] == seat
        assert rec["seed"] is None and rec["rng"] is None
        assert all(h is None for p, h in enumerate(rec["hands"][0]["deal"]["hands"]) if p != seat)
        # the page's result is the record's, replayed through the env (the server's full record)
        session, _ = client.app_state.games.get(gid)
        env = records.replay(session.record())
        info = env.infos[env.possible_agents[0]]
        from play.session import result_rows

        assert view["result"] == result_rows(game, info["result"], info["record"]["returns"])


def test_illegal_and_malformed_actions_are_refused_and_change_nothing(client):
    data = new(client, "briscola5", flags={"forfeit_enabled": False})
    gid = data["id"]
    legal = data["view"]["legal"]
    before = client.get(f"/api/games/{gid}").json()["view"]
    illegal = next(a for a in range(143) if a not in {x["id"] for x in legal})
    for body, status in [({"action": illegal}, 409), ({"action": "80"}, 409), ({"action": 999}, 409),
                         ({"action": True}, 409), ({"move": 80}, 400), ([80], 400), ({}, 400)]:
        r = client.post(f"/api/games/{gid}/actions", json=body)
        assert r.status_code == status, (body, r.text)
        assert r.json()["legal"] == legal and r.json()["error"]
    r = client.post(f"/api/games/{gid}/actions", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"] and r.json()["legal"] == legal
    after = client.get(f"/api/games/{gid}").json()["view"]
    assert {k: v for k, v in after.items() if k != "moves"} == {k: v for k, v in before.items() if k != "moves"}
    assert "is not legal now" in client.post(f"/api/games/{gid}/actions", json={"action": illegal}).json()["error"]


def test_unknown_ids_and_bad_games(client):
    for method, path in [("get", "/api/games/nope"), ("post", "/api/games/nope/actions"), ("get", "/api/games/nope/record")]:
        r = getattr(client, method)(path, **({"json": {"action": 1}} if method == "post" else {}))
        assert r.status_code == 404 and "no game 'nope'" in r.json()["error"]
    for body, text in [({"game": "scopa"}, "unknown game 'scopa'"), ({"game": "briscola5", "seat": 5}, "seat must be 0..4"),
                       ({"game": "briscola5", "flags": {"num_hand": 2}}, "unknown flag 'num_hand'"),
                       ({"game": "pigugnin", "flags": {"episode": "set"}}, "'game', 'hand'"),
                       ({"game": "briscola5", "opponents": "heuristic,random"}, "give one opponent for all or 4"),
                       ({"game": "briscola5", "opponents": "wizard"}, "unknown agent 'wizard'"),
                       ({"game": "briscola5", "colour": "red"}, "unknown key(s) 'colour'"),
                       ({"game": "briscola5", "seed": -1}, "seed must be an int >= 0")]:
        r = client.post("/api/games", json=body)
        assert r.status_code == 400 and text in r.json()["error"], (body, r.text)


def test_concurrent_games_are_isolated(client):
    a = new(client, "picchetto", flags={"episode": "hand"}, seed=9)
    b = new(client, "picchetto", flags={"episode": "hand"}, seed=9)
    assert a["id"] != b["id"] and a["view"] == b["view"]
    first = a["view"]["legal"][0]["id"]
    client.post(f"/api/games/{a['id']}/actions", json={"action": first})
    assert client.get(f"/api/games/{b['id']}").json()["view"]["hands"] == b["view"]["hands"]
    # many games played at once from threads: each ends exactly as the same game played alone
    ids = [new(client, "pigugnin", flags={"episode": "hand"}, seed=3)["id"] for _ in range(4)]
    errors = []

    def play(gid):
        try:
            view = client.get(f"/api/games/{gid}").json()["view"]
            while not view["over"]:
                view = client.post(f"/api/games/{gid}/actions", json={"action": view["legal"][0]["id"]}).json()["view"]
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=play, args=(g,)) for g in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    recs = [client.app_state.games.get(g)[0].record() for g in ids]
    assert all(r["hands"] == recs[0]["hands"] for r in recs)


def test_records_view_endpoint(client):
    data = new(client, "picchetto", flags={"episode": "hand"}, seed=2)
    gid, view = data["id"], data["view"]
    while not view["over"]:
        view = client.post(f"/api/games/{gid}/actions", json={"action": view["legal"][0]["id"]}).json()["view"]
    redacted = client.get(f"/api/games/{gid}/record").text
    shown = client.post("/api/records/view", content=redacted).json()
    assert shown["redacted_for"] == 0 and len(shown["frames"]) > 10 and shown["result"] == view["result"]
    full = json.dumps(client.app_state.games.get(gid)[0].record())
    every = client.post("/api/records/view?seat=all", content=full).json()
    assert all(h is not None for h in every["frames"][0]["hands"])
    one = client.post("/api/records/view?seat=1", content=full).json()
    assert one["frames"][0]["hands"][0] is None and one["frames"][0]["hands"][1]
    for body, text in [("{not json", "not JSON"), ('{"format": "x"}', "'format' must be"), ("[1]", "JSON object")]:
        r = client.post("/api/records/view", content=body)
        assert r.status_code == 400 and text in r.json()["error"], r.text
    r = client.post("/api/records/view?seat=1", content=redacted)
    assert r.status_code == 400 and "redacted for player_0" in r.json()["error"]


def test_the_page_and_meta(client):
    page = client.get("/")
    assert page.status_code == 200 and 'data-testid="status"' in page.text
    meta = client.get("/api/meta").json()
    assert set(meta["games"]) == {"briscola5", "pigugnin", "picchetto"} and "heuristic" in meta["opponents"]


def test_meta_gives_each_games_title_seats_and_flags_from_its_engine(client):
    from envs.registry import GAMES

    meta = client.get("/api/meta").json()["games"]
    for name, spec in GAMES.items():
        g = meta[name]
        assert g["title"] == spec.summary_module().TITLE and g["about"]
        assert [f["name"] for f in g["flags"]] == [f.name for f in spec.engine_class().FLAGS]
        assert g["num_players"] == spec.num_players() and spec.num_players() in g["seat_counts"]
    assert meta["pigugnin"]["seat_counts"] == [4, 5] and meta["briscola5"]["seat_counts"] == [5]
    assert "episode" not in {f["name"] for f in meta["briscola5"]["flags"]}  # the old placeholder's flag


def test_setup_gives_the_seats_for_the_flags_and_names_a_bad_flag(client):
    r = client.post("/api/setup", json={"game": "pigugnin", "flags": {"num_players": 5}})
    assert r.status_code == 200 and r.json()["num_players"] == 5 and r.json()["flags"]["episode"] == "game"
    assert client.post("/api/setup", json={"game": "picchetto", "flags": {}}).json()["num_players"] == 2
    for body, text in [({"game": "briscola5", "flags": {"episode": "hand"}}, "unknown flag 'episode'"),
                       ({"game": "pigugnin", "flags": {"num_players": 6}}, "allowed: 4, 5"),
                       ({"game": "scopa"}, "unknown game 'scopa'"), ({"game": "pigugnin", "flags": [1]}, "JSON object")]:
        r = client.post("/api/setup", json=body)
        assert r.status_code == 400 and text in r.json()["error"], (body, r.text)


def test_a_view_has_the_board_the_moves_by_trick_and_at_the_end_the_summary(client):
    data = new(client, "briscola5", seat=0, seed=7)
    view = data["view"]
    assert view["title"] == "Briscola in cinque" and view["summary"] is None
    assert view["board"]["columns"] == [["points", [0] * 5], ["classifica", [0] * 5]]
    assert view["board"]["lines"][-1] == "auction: no bid yet (lowest 61)"
    gid = data["id"]
    view = client.post(f"/api/games/{gid}/actions", json={"action": 80}).json()["view"]  # pass
    tricks = []
    while not view["over"]:
        tricks += [g for g in view["recent"] if g["kind"] == "trick" and g["winner"] is not None]
        view = client.post(f"/api/games/{gid}/actions", json={"action": view["legal"][0]["id"]}).json()["view"]
    tricks += [g for g in view["recent"] if g["kind"] == "trick" and g["winner"] is not None]
    assert [g["trick"] for g in tricks] == list(range(1, 9)) and all(len(g["moves"]) == 5 for g in tricks)
    ends = [g for g in view["recent"] if g["kind"] == "hand end"]
    assert len(ends) == 1 and ends[0]["lines"] == view["summary"]["lines"]
    assert any(line.startswith(("contract made", "contract lost")) for line in view["summary"]["lines"])
