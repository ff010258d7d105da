"""The games' public summaries (`envs.<game>.summary`, `GameSpec.summary_module()`), checked
against the engines over random episodes of every game: the trick winners, the score columns
of the table against the end-of-episode rows, each hand's headline against the engine's hand
record, and the summary of a seat's redacted record against the live one (public by construction).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from envs import records
from envs.briscola5.game import AUCTION, CALL_CARD
from envs.registry import GAMES, game_spec
from play.moves import Tricks
from play.session import Session, record_summary, summary_of
from play.views import frames

CASES = [
    ("briscola5", {}), ("briscola5", {"num_hands": 3, "forfeit_enabled": True}),
    ("pigugnin", {"episode": "hand"}), ("pigugnin", {"num_players": 5}),
    ("picchetto", {"episode": "hand"}), ("picchetto", {"trick_scoring": "classic", "episode": "game"}),
]
FUNCTIONS = ("TITLE", "ABOUT", "board", "trick_winner", "caution", "hand_lines", "summary")


def test_every_game_has_the_same_summary_functions():
    for name, spec in GAMES.items():
        module = spec.summary_module()
        assert module.__name__ == f"envs.{name}.summary"
        assert all(hasattr(module, f) for f in FUNCTIONS), name


def random_session(game: str, flags: dict, seed: int, seat: int = 0) -> Session:
    s = Session(game, seat=seat, opponents="random", seed=seed, flags=flags)
    rng = np.random.default_rng(seed)
    while not s.over:
        s.act(int(rng.choice([a["id"] for a in s.legal()])))
    return s


@pytest.mark.parametrize("game,flags", CASES)
def test_trick_winners_are_the_engines(game, flags):
    """Every trick's winner leads the next trick of its hand (all three games), and in Pigugnìn
    the hand record's trick history names the same winners."""
    spec = game_spec(game)
    summary = spec.summary_module()
    for seed in range(4):
        env = spec.raw_env(**flags)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        tracker = records.Tracker(env)
        tricks = Tricks(len(env.possible_agents), summary.trick_winner)
        pending, checked, winners = None, 0, {}
        while not env.game.is_over(env.state_):
            hand_no = env.state_.hand_no
            actor = env.agent_name_mapping[env.agent_selection]
            if pending is not None and pending[0] == hand_no:
                if env.game.move_name(int(env.legal_actions()[0])).startswith("play "):
                    assert actor == pending[1], (seed, hand_no)
                    checked += 1
            pending = None
            tag = tricks.add(dict(tracker.step(int(rng.choice(env.legal_actions()))), hand_no=hand_no))
            if tag["won_by"] is not None:
                pending = (hand_no, tag["won_by"])
                winners.setdefault(hand_no, []).append(tag["won_by"])
        assert checked > 0
        if game == "pigugnin":
            for hand in env.state_.records:
                assert [w for _, _, w in hand["trick_history"]] == winners[hand["hand_no"]]


@pytest.mark.parametrize("game,flags", CASES)
def test_the_tables_score_columns_are_the_result_rows_at_the_end(game, flags):
    for seed in range(3):
        s = random_session(game, flags, seed)
        view = s.view()
        rows = view["summary"]["rows"]
        assert [r["seat"] for r in rows] == list(range(view["num_players"]))
        assert [r["return"] for r in rows] == view["returns"]
        for name, values in view["board"]["columns"]:
            assert [r[name] for r in rows] == values, (seed, name)
        assert view["result"] == rows


@pytest.mark.parametrize("game,flags", CASES)
def test_each_hands_headline_says_what_the_hand_record_says(game, flags):
    spec = game_spec(game)
    summary = spec.summary_module()
    for seed in range(3):
        s = random_session(game, flags, seed)
        hands = s.env.infos[s.names[0]]["result"]["hands"]
        for hand in hands:
            text = "\n".join(summary.hand_lines(hand))
            assert text.startswith(f"hand {hand['hand_no']}")
            if game == "briscola5" and hand["void"] is None:
                verdict = "contract made" if hand["caller_team_won"] else "contract lost"
                assert f"{verdict}: " in text and f"took {hand['caller_team_points']} of 120 card points" in text
                assert ("solo" if hand["solo"] else f"partner player_{hand['partner']}") in text
            elif game == "briscola5":
                assert "the hand is void" in text
            elif game == "pigugnin":
                trickless = [f"player_{p}" for p, t in enumerate(hand["tricks"]) if t == 0]
                if hand["cappotto"]:
                    assert f"cappotto: player_{hand['cappotto_maker']}" in text
                elif trickless:
                    assert f"without a trick: {', '.join(trickless)}" in text
                else:
                    assert "every player took a trick" in text
                for p, b in enumerate(hand["busche_paid"]):
                    assert (f"player_{p} {b}" in text) == bool(b)
            else:
                kinds = {e[0] for e in hand["events"]}
                for kind in ("pique", "repique", "capot"):
                    assert bool(re.search(rf"player_\d {kind} ", text)) == (kind in kinds), (kind, text)
                if not kinds & {"pique", "repique", "capot"}:
                    assert "no pique, repique or capot" in text
                assert "declarations: " in text
        # one headline per finished hand reached the person as the hands ended
        ended = [e["hand_no"] for k in sorted(s.hand_ends) for e in s.hand_ends[k]]
        assert ended == [h["hand_no"] for h in hands]


@pytest.mark.parametrize("game,flags", CASES)
def test_a_redacted_record_gives_the_live_summary_and_boards(game, flags):
    """What the summary says is public: the seat's redacted record gives the same lines and rows,
    and its views carry the boards a full replay computes for that seat."""
    for seat in (0, 1):
        s = random_session(game, flags, seed=seat + 10, seat=seat)
        live = s.summary_now()
        mine = s.record(redacted=True)
        assert record_summary(mine) == live == record_summary(s.record())
        full = frames(s.record(), seat)
        shown = frames(mine)
        assert [f["board"] for f in shown] == [f["board"] for f in full]
        assert [f["trick_done"] for f in shown] == [f["trick_done"] for f in full]
        assert [f["ended"] for f in shown] == [f["ended"] for f in full]
        assert shown[-1]["summary"] == live


def test_briscola_cautions_jump_bids_and_solo_calls_only():
    summary = game_spec("briscola5").summary_module()
    env = game_spec("briscola5").raw_env(forfeit_enabled=False)
    env.reset(seed=7)  # player_0 to bid first, holding 6C 7C 4D 5D 3S AB 6B JB
    game, state = env.game, env.state_
    bid = {v: 81 + v - 61 for v in range(61, 121)}
    assert summary.caution(game, state, bid[71]) is None and summary.caution(game, state, 80) is None
    assert summary.caution(game, state, bid[72]) == ("bid 72 is 11 over the lowest bid now (61): your side "
                                                    "will need 72 of the 120 card points")
    env.step(bid[120])
    while env.state_.phase == AUCTION:
        env.step(80)
    assert env.state_.phase == CALL_CARD and env.state_.caller == 0
    ab = 40 + game.deck.parse("AB")
    assert "playing alone (solo)" in summary.caution(game, env.state_, ab)
    assert summary.caution(game, env.state_, 40 + game.deck.parse("AC")) is None


def test_the_secret_partner_is_you_live_and_named_in_a_replay():
    """Until the called card is played only its holder knows the partner: live play tells that seat "you are the
    partner"; a replay of its view (`mazzo replay --seat 2`, its redacted record) names it, since the reader sat
    nowhere; the other seats' views, and the full record's, say "partner hidden"."""
    seat = 2
    for seed in range(60):  # a hand where seat 2 is the partner, not the caller
        s = Session("briscola5", seat=seat, opponents="random", seed=seed)
        rng = np.random.default_rng(seed)
        live = []
        while not s.over:
            live += s.view()["board"]["lines"]
            s.act(int(rng.choice([a["id"] for a in s.legal()])))
        result = s.record()["hands"][-1]["result"]
        if not result.get("void") and result["partner"] == seat != result["caller"]:
            break
    else:
        pytest.fail("no hand with player_2 as the partner in 60 seeds")
    assert any(line.endswith("· you are the partner") for line in live)
    full, mine = s.record(), s.record(redacted=True)

    def contract_lines(rec, who):
        return [line for f in frames(rec, who) for line in f["board"]["lines"] if line.startswith("contract ")]

    named = contract_lines(full, seat)
    assert any(line.endswith(f"· player_{seat} is the partner") for line in named)
    assert not [line for line in named if "you" in line]
    assert contract_lines(mine, None) == named  # the boards kept in the seat's redacted record
    for who in (0, None):
        hidden = contract_lines(full, who)
        assert any(line.endswith("· partner hidden") for line in hidden)
        assert not [line for line in hidden if "is the partner" in line or "you" in line]


def test_a_summary_of_a_record_needs_its_hands_results():
    s = random_session("briscola5", {}, seed=1)
    rec = s.record()
    assert summary_of("briscola5", rec["result"], rec["returns"], [h["result"] for h in rec["hands"]]) == s.summary_now()
    rec["over"] = False
    assert record_summary(rec) is None
