"""Game records (`envs.records`): the format, JSON round trips, replay, redaction, positions.

The large playouts (1,000+ random episodes per game over its flag sets) are marked slow; the
fast tier runs the same checks on fewer episodes.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import re

import numpy as np
import pytest

from envs import records
from envs.core.cards import FRENCH, ITALIAN
from envs.records import FORMAT, RecordError, redact, replay
from envs.registry import GAMES, make_raw_env, observation_module
from tests.envs.cases import CASES, PICCHETTO_GOOD_OPTIONS

CONFIGS = [(game, name) for game in GAMES for name in CASES[game].configs]
START_OPTIONS = {
    "pigugnin": {"busche": [3, 0, 5, 1]},
    "picchetto": {"scores": [40, 55]},
    "briscola5": {"dealer": 2},
}


def play(game: str, flags: dict, seed: int, rnd: random.Random, env=None, reseed: bool = True, options=None):
    """One random episode (the game's case chooser); returns (env, record)."""
    env = env or make_raw_env(game, **flags)
    env.reset(seed=seed if reseed else None, options=options)
    choose = CASES[game].choose
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(choose(rnd, env.legal_actions(), env))
    infos = [env.infos[a] for a in env.possible_agents]
    rec = infos[0]["record"]
    assert all(i["record"] is rec for i in infos)
    return env, rec


def check_round_trips(game: str, flags: dict, episodes: int, seed: int) -> int:
    rnd = random.Random(seed)
    env = make_raw_env(game, **flags)
    moves = 0
    for ep in range(episodes):
        options = START_OPTIONS[game] if ep % 7 == 3 and not (game == "pigugnin" and flags.get("num_players") == 5) else None
        # every third episode continues the generator's stream (no seed): the record's rng state replays it
        env, rec = play(game, flags, seed * 100_003 + ep, rnd, env=env, reseed=ep % 3 != 2, options=options)
        text = json.dumps(rec)
        back = json.loads(text)
        assert back == rec
        assert back["format"] == FORMAT and back["over"] and back["result"] is not None
        assert back["returns"] == [sum(h["rewards"][p] for h in back["hands"]) for p in range(back["num_players"])]
        end = replay(back)
        again = end.infos[end.possible_agents[0]]["record"]
        assert {**again, "seed": rec["seed"]} == rec  # the replay starts from the rng state, without the seed
        moves += sum(len(h["moves"]) for h in rec["hands"])
    return moves


@pytest.mark.parametrize("game,config", CONFIGS)
def test_round_trip_and_replay(game, config):
    flags = CASES[game].configs[config]
    assert check_round_trips(game, flags, episodes=12, seed=1) > 0


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAMES))
def test_round_trip_and_replay_many(game):
    """1,000+ random episodes per game, spread over every flag set of the game (non-default ones too)."""
    configs = CASES[game].configs
    per = -(-1000 // len(configs))
    for i, flags in enumerate(configs.values()):
        check_round_trips(game, flags, episodes=per, seed=100 + i)


def test_record_keys_and_names():
    env, rec = play("briscola5", {"forfeit_enabled": False}, 3, random.Random(0))
    assert list(rec) == ["format", "game", "env", "flags", "seed", "rng", "options", "players", "num_players",
                         "hands", "over", "truncated", "returns", "result"]
    assert rec["game"] == "briscola5" and rec["env"] == "briscola5_v0" and rec["seed"] == 3
    assert rec["flags"]["forfeit_enabled"] is False and rec["flags"]["num_hands"] == 1
    hand = rec["hands"][0]
    assert set(hand) == {"hand_no", "dealer", "deal", "moves", "rewards", "result"}
    assert sorted(sum(hand["deal"]["hands"], [])) == sorted(ITALIAN.codes)
    names = {m["name"].split(" ")[0] for m in hand["moves"]}
    assert names <= {"bid", "pass", "call", "play", "forfeit", "no"}
    assert all(m["name"] == env.game.move_name(m["id"]) for m in hand["moves"])
    assert hand["rewards"] == hand["result"]["credits"]
    names = [env.game.move_name(a) for a in (0, 40 + 12, 80, 81 + 14, 141, 142)]
    assert names == ["play AC", "call 3D", "pass", "bid 75", "forfeit", "no forfeit"]
    pig = make_raw_env("pigugnin").game
    assert pig.move_name(27) == "play JS"
    pic = make_raw_env("picchetto").game
    assert [pic.move_name(a) for a in (19, 32 + 5, 64)] == ["play Ts", "discard Qh", "end exchange"]


def test_picchetto_deal_includes_the_talon_and_explicit_options_replay():
    env, rec = play("picchetto", {"episode": "hand"}, None, random.Random(1), options=PICCHETTO_GOOD_OPTIONS)
    hand = rec["hands"][0]
    assert hand["deal"]["talon"] == PICCHETTO_GOOD_OPTIONS["talon"]
    assert hand["dealer"] == 1 and rec["options"]["scores"] == [10, 20]
    replay(json.loads(json.dumps(rec)))


@pytest.mark.parametrize("episode", ["game", "match"])
def test_picchetto_game_won_at_the_deal(episode):
    """An elder's Bianco that passes the target ends a game before any move: the episode ends at
    reset (episode="game") or the next game's hand starts inside reset (a hand with no moves)."""
    plain = [c for c in FRENCH.codes if c[0] not in "JQK"]  # 20 cards without J, Q, K
    elder = plain[:12]
    rest = [c for c in FRENCH.codes if c not in elder]
    options = {"dealer": 1, "hands": [elder, rest[:12]], "talon": rest[12:], "scores": [145, 0]}
    env, rec = play("picchetto", {"episode": episode}, 5, random.Random(2), options=options)
    first = rec["hands"][0]
    assert first["moves"] == [] and first["result"]["game_ended"] and first["rewards"][0] >= 10
    if episode == "game":
        assert len(rec["hands"]) == 1 and rec["returns"] == first["rewards"]
    else:
        assert len(rec["hands"]) > 1 and rec["hands"][1]["hand_no"] == 2
    replay(json.loads(json.dumps(rec)))


def test_record_mid_episode_and_positions():
    env = make_raw_env("pigugnin", num_players=5)
    env.reset(seed=11)
    rnd = random.Random(0)
    for _ in range(13):
        env.step(rnd.choice(env.legal_actions()))
    rec = env.episode_record()
    assert not rec["over"] and rec["result"] is None and rec["hands"][0]["result"] is None
    assert len(rec["hands"][0]["moves"]) == 13
    pos = list(records.positions(rec))
    assert [p.index for p in pos] == list(range(14)) and pos[0].move is None
    assert pos[-1].env.state_.hands == env.state_.hands
    frames = records.views(rec, 2)
    assert len(frames) == 14 and frames[-1]["hands"][2] == [ITALIAN.codes[c] for c in range(40) if env.state_.hands[2] >> c & 1]
    assert frames[-1]["hands"][0] is None and sum(frames[-1]["counts"]) == 40 - 13
    # 13 plays with 5 players: the trick in progress holds the last 3
    assert [t["card"] for t in frames[-1]["trick"]] == [m["name"][5:] for m in rec["hands"][0]["moves"][-3:]]


def test_annotations_survive_and_do_not_change_replay():
    env, rec = play("picchetto", {"episode": "hand"}, 4, random.Random(3))
    records.annotate(rec, 2, {"probs": {"discard 7h": 0.25}, "value": -0.5})
    assert rec["hands"][0]["moves"][2]["note"]["value"] == -0.5
    replay(json.loads(json.dumps(rec)))
    with pytest.raises(RecordError, match="no move 10000"):
        records.annotate(rec, 10_000, {"value": 0})
    red = redact(rec, rec["hands"][0]["moves"][2]["seat"])
    assert red["hands"][0]["moves"][2]["note"]["value"] == -0.5
    other = redact(rec, 1 - rec["hands"][0]["moves"][2]["seat"])
    assert "note" not in other["hands"][0]["moves"][2]


# -- tampering -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def briscola_record():
    rnd = random.Random(5)
    while True:
        _, rec = play("briscola5", {"forfeit_enabled": False}, rnd.randrange(10**6), rnd)
        if rec["hands"][0]["result"]["void"] is None:
            return rec


def _tampered(rec, change):
    bad = copy.deepcopy(rec)
    change(bad)
    return bad


@pytest.mark.parametrize("change,message", [
    (lambda r: r["hands"][0]["moves"][0].update(seat=(r["hands"][0]["moves"][0]["seat"] + 1) % 5),
     r"hand 1, move 1: the record has player \d act; in the replay player_\d is to act"),
    (lambda r: r["hands"][0]["moves"][-1].update(id=(r["hands"][0]["moves"][-1]["id"] + 1) % 40),
     r"hand 1, move \d+: (player_\d's action \d+ \(play ..\) is not legal in the replay|action \d+ is named)"),
    (lambda r: r["hands"][0]["moves"][1].update(name="pass" if r["hands"][0]["moves"][1]["name"] != "pass" else "bid 61"),
     r"hand 1, move 2: action \d+ is named '.*' in the record; it is"),
    (lambda r: r["hands"][0]["deal"]["hands"][0].reverse(), r"hand 1: the deal of player_0 differs"),
    (lambda r: r["hands"][0].update(dealer=(r["hands"][0]["dealer"] + 1) % 5), r"hand 1: the dealer differs"),
    (lambda r: r["hands"][0]["moves"].pop(), r"hand 1: the rewards differs|hand 1, |the episode's"),
    (lambda r: r["hands"][0]["moves"].append(dict(r["hands"][0]["moves"][-1])),
     r"hand 1, move \d+: the hand is already over after \d+ moves in the replay \(the record has \d+\)"),
    (lambda r: r["hands"][0]["rewards"].__setitem__(0, 99), r"hand 1: the rewards differs: \[99, "),
    (lambda r: r["hands"][0]["result"].update(bid=200), r"hand 1: the result differs \(bid: 200 in the record, \d+ replayed\)"),
    (lambda r: r.update(returns=[1, 2, 3, 4, 5]), r"the episode's 'returns' differs"),
    (lambda r: r["flags"].update(min_bid=10), r"record: briscola5_v0: invalid value 10 for flag 'min_bid'"),
    (lambda r: r.update(format="other/1"), r"'format' must be 'mazzo-record/1'"),
    (lambda r: r.update(rng={"bit_generator": "MT19937"}), r"unknown bit generator 'MT19937'"),
])
def test_tampered_record_fails_replay(briscola_record, change, message):
    replay(briscola_record)  # the original replays
    with pytest.raises(RecordError, match=message):
        replay(_tampered(briscola_record, change))


def test_tampered_seed_changes_the_deal(briscola_record):
    bad = _tampered(briscola_record, lambda r: r.update(rng=None, seed=(r["seed"] or 0) + 1))
    with pytest.raises(RecordError, match=r"hand 1: the (deal of player_\d|dealer) differs"):
        replay(bad)


def test_redacted_record_cannot_be_replayed(briscola_record):
    with pytest.raises(RecordError, match="redacted for player_2.*cannot be replayed"):
        replay(redact(briscola_record, 2))
    with pytest.raises(RecordError, match="redacted for player_2; only that seat's view"):
        records.views(redact(briscola_record, 2), 1)


# -- redaction -------------------------------------------------------------------------------------

_TOKEN = {
    "italian": re.compile(r"(?<![A-Za-z0-9_])([A2-7JHK][CDSB])(?![A-Za-z0-9_])"),
    "french": re.compile(r"(?<![A-Za-z0-9_])([7-9TJQKA][hdsc])(?![A-Za-z0-9_])"),
}


def cards_in(obj, deck) -> set[str]:
    return set(_TOKEN[deck.name].findall(json.dumps(obj)))


def seen_by(env, seat: int, game: str) -> set[str]:
    """Every card in the seat's own decoded observation (hand, played, shown, drawn, ...)."""
    module = observation_module(game)
    view = module.decode(env.observe(env.possible_agents[seat])["observation"], codes=True)
    return cards_in({k: view[k] for k in module.CARD_FIELDS if k in view and k != "legal"}, env.game.deck)


def check_redaction(rec: dict, seat: int) -> int:
    """Every card in the redacted record was visible to ``seat``: each view against what the seat
    had seen by then in that hand, each hand against all it saw in that hand. Returns checks made."""
    game = rec["game"]
    red = redact(rec, seat)
    assert red["redacted_for"] == seat and red["seed"] is None and red["rng"] is None
    text = json.dumps(red)
    assert json.loads(text) == red
    known: dict[int, set[str]] = {}
    checks = 0
    for k, pos in enumerate(records.positions(rec)):
        env = pos.env
        deck = env.game.deck
        h = env.state_.hand_no
        known.setdefault(h, set()).update(seen_by(env, seat, game))
        allowed = set(known[h])
        if pos.move is not None and (pos.move["seat"] == seat or not pos.move["name"].startswith("discard")):
            allowed |= cards_in(pos.move["name"], deck)  # the move just made (it may have ended the hand)
            known.setdefault(rec["hands"][pos.hand]["hand_no"], set()).update(cards_in(pos.move["name"], deck))
        frame = red["views"][k]
        leaked = cards_in(frame, deck) - allowed
        assert not leaked, f"view {k} shows {sorted(leaked)} to player_{seat}"
        checks += 1
    deck = ITALIAN if game != "picchetto" else FRENCH
    for hand in red["hands"]:
        leaked = cards_in(hand, deck) - known.get(hand["hand_no"], set())
        assert not leaked, f"hand {hand['hand_no']} shows {sorted(leaked)} to player_{seat}"
        assert all(h is None for p, h in enumerate(hand["deal"]["hands"]) if p != seat)
        for move in hand["moves"]:
            if move["seat"] != seat and move["name"].startswith("discard"):
                assert move == {"seat": move["seat"], "id": None, "name": "discard"}, "another seat's discard is shown"
        checks += 1
    assert cards_in({k: v for k, v in red.items() if k not in ("hands", "views")}, deck) <= set().union(*known.values())
    return checks


def redaction_checks(game: str, config: str, episodes: int) -> int:
    flags = CASES[game].configs[config]
    rnd = random.Random(7)
    checks = 0
    for ep in range(episodes):
        _, rec = play(game, flags, 1000 + ep, rnd)
        for seat in range(rec["num_players"]):
            checks += check_redaction(rec, seat)
    return checks


@pytest.mark.parametrize("game,config", CONFIGS)
def test_redaction_reveals_only_what_the_seat_saw(game, config):
    assert redaction_checks(game, config, episodes=1) > 50


@pytest.mark.slow
@pytest.mark.parametrize("game,config", CONFIGS)
def test_redaction_reveals_only_what_the_seat_saw_many(game, config):
    assert redaction_checks(game, config, episodes=15) > 800


def test_redaction_hides_what_it_must():
    rnd = random.Random(9)
    flags = {"episode": "hand", "allow_peek": False, "reveal_leftover_talon": False}
    for ep in range(30):
        _, rec = play("picchetto", flags, 50 + ep, rnd)
        hand = rec["hands"][0]
        if not hand["moves"]:
            continue
        elder = 1 - hand["dealer"]
        red = redact(rec, elder)
        talon = red["hands"][0]["deal"]["talon"]
        drawn = sum(1 for m in hand["moves"] if m["seat"] == elder and m["name"].startswith("discard"))
        assert talon[:drawn] == hand["deal"]["talon"][:drawn] and all(c is None for c in talon[drawn:])
        decl = (red["hands"][0]["result"] or {}).get("declarations") or {}
        for name, d in decl.items():
            if d["answer"] == "va bene":
                assert d["dealer"] is None, name
        dealer_view = redact(rec, hand["dealer"])
        assert all(m["id"] is None for m in dealer_view["hands"][0]["moves"] if m["seat"] == elder and m["name"] == "discard")
        assert dealer_view["hands"][0]["deal"]["hands"][elder] is None


def test_views_of_a_full_record_show_every_hand(briscola_record):
    frames = records.views(briscola_record)
    assert len(frames) == 1 + sum(len(h["moves"]) for h in briscola_record["hands"])
    assert all(h is not None for h in frames[0]["hands"]) and frames[0]["seat"] is None
    assert frames[-1]["over"] and frames[-1]["returns"] == briscola_record["returns"]


def test_player_info_and_set_players(tmp_path):
    ckpt = tmp_path / "p.mazzo.zip"
    ckpt.write_bytes(b"weights")

    class Agent:
        path = str(ckpt)

    info = records.player_info("ppo:" + str(ckpt), Agent())
    assert info["sha256"] == hashlib.sha256(b"weights").hexdigest()
    _, rec = play("picchetto", {"episode": "hand"}, 1, random.Random(0))
    records.set_players(rec, ["heuristic", info])
    assert rec["players"][0] == {"seat": 0, "spec": "heuristic"} and rec["players"][1]["sha256"] == info["sha256"]
    replay(rec)
    with pytest.raises(RecordError, match="2 seats but 3 players"):
        records.set_players(rec, ["a", "b", "c"])


def test_load_records_json_and_jsonl(tmp_path):
    recs = [play("briscola5", {}, s, random.Random(s))[1] for s in range(3)]
    (tmp_path / "a.jsonl").write_text("\n".join(records.dumps(r) for r in recs) + "\n")
    (tmp_path / "b.json").write_text(json.dumps(recs[0], indent=1))
    assert records.load_records(tmp_path / "a.jsonl") == recs
    assert records.load_records(tmp_path / "b.json") == [recs[0]]


def test_the_recorder_costs_one_int_per_step():
    env = make_raw_env("briscola5")
    env.reset(seed=1)
    env.step(env.legal_actions()[0])
    assert len(env._rec_moves) == 1 and isinstance(env._rec_moves[0], int)
    assert np.all(np.asarray(env._rec_moves) >= 0)


def test_the_redaction_check_can_fail(monkeypatch):
    """A planted leak (every hand in the seat's views) is caught by the redaction check."""
    real = records.seat_view
    monkeypatch.setattr(records, "seat_view", lambda env, seat=None, tracker=None: real(env, None, tracker))
    _, rec = play("briscola5", {}, 3, random.Random(0))
    with pytest.raises(AssertionError, match="view 0 shows"):
        check_redaction(rec, 0)


def test_info_builds_the_record_when_first_read_by_any_path():
    import pickle

    def fresh():
        env = make_raw_env("pigugnin", episode="hand")
        env.reset(seed=2)
        rnd = random.Random(1)
        while not env.terminations[env.agent_selection]:
            env.step(rnd.choice(env.legal_actions()))
        return env, env.infos["player_0"]

    env, info = fresh()
    assert dict.__contains__(info, "record") is False  # not built yet
    assert "record" in info and set(info) == {"result", "record"} and len(info) == 2
    expected = env.episode_record(info["result"])
    reads = [
        lambda i: i["record"], lambda i: i.get("record"), lambda i: dict(i)["record"], lambda i: {**i}["record"],
        lambda i: json.loads(json.dumps(i))["record"], lambda i: copy.deepcopy(i)["record"],
        lambda i: pickle.loads(pickle.dumps(i))["record"], lambda i: dict(i.items())["record"],
        lambda i: list(i.values())[1], lambda i: i.copy()["record"],
    ]
    for read in reads:
        _, info = fresh()
        assert read(info) == expected
    _, info = fresh()
    assert info == {"result": info["result"], "record": expected}
    assert info["record"] is info["record"] and env.infos["player_1"] is env.infos["player_0"]
    assert info.get("nothing") is None and "nothing" not in info
    with pytest.raises(KeyError):
        info["nothing"]


def test_a_record_read_after_the_next_reset_is_still_the_old_episode():
    rnd = random.Random(5)
    env, _ = play("pigugnin", {}, 5, rnd)
    old = env.infos["player_0"]  # not read yet
    expected = env.episode_record(old["result"])
    env.reset(seed=99)
    for _ in range(7):
        env.step(env.legal_actions()[0])
    assert old["record"] == expected and old["record"]["seed"] == 5
    replay(old["record"])
