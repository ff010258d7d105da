"""Briscola's cheating training opponent (``heuristic-seer[:SHIFT]``, ``Briscola5BatchedSeer``).

It must be the heuristic in the auction and the call (the overbidder's auction with a shift), use exactly two
hidden facts in the tricks (who the partner is; which cards the foes still to play hold), defend better than the
heuristic for it, reach it only through the hidden rows of a batched engine (``agents.rows.decide``), and never
be an exported player.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.registry import make_agent  # noqa: E402
from agents.rows import OPPONENT_SPECS, decide, make_opponent  # noqa: E402
from envs.briscola5.game import AUCTION, CALL_CARD, DECK, NUM_PLAYERS  # noqa: E402
from envs.briscola5.observation import LAYOUT  # noqa: E402
from envs.core.errors import ConfigError  # noqa: E402
from envs.registry import make_vector_env  # noqa: E402
from train.evaluation.batched import play_table  # noqa: E402

N, CARDS = NUM_PLAYERS, DECK.size


def _at(name: str) -> int:
    return LAYOUT.fields[name].obs_offset


def _rows(obs: np.ndarray, name: str) -> np.ndarray:
    return obs[:, _at(name):_at(name) + int(np.prod(LAYOUT.fields[name].shape))]


def seer_decisions(spec: str = "heuristic-seer", num_games: int = 600, seed: int = 5):
    """Five seers at every seat; every decision's observation, mask and hidden row, and the seer's move."""
    seers = [make_opponent(spec, "briscola5", {}, s) for s in range(N)]
    env = make_vector_env("briscola5", num_games, autoreset=False)
    env.reset(seed=seed)
    actions = np.zeros(num_games, dtype=np.int64)
    obs, mask, hidden, moves = [], [], [], []
    while not env.finished.all():
        live = ~env.finished
        for s, seer in enumerate(seers):
            rows = np.flatnonzero(live & (env.current_player == s))
            if len(rows):
                actions[rows] = decide(seer, env, rows)
                obs.append(env.obs[rows].copy())
                mask.append(env.mask[rows].copy())
                hidden.append(env.privileged(env.current_player)[rows])
                moves.append(actions[rows].copy())
        env.step(actions, active=live)
    return tuple(np.concatenate(x) for x in (obs, mask, hidden, moves))


@pytest.fixture(scope="module")
def decisions():
    return seer_decisions()


def _phase(obs: np.ndarray) -> np.ndarray:
    return np.argmax(_rows(obs, "phase"), axis=1)


def test_the_heuristic_before_the_tricks(decisions):
    obs, mask, _, moves = decisions
    early = np.isin(_phase(obs), (AUCTION, CALL_CARD))
    heuristic = make_opponent("heuristic", "briscola5", {}, 0)
    assert early.sum() > 600 and np.array_equal(moves[early], heuristic.act(obs[early], mask[early]))
    # with a shift, the overbidder's auction
    obs10, mask10, _, moves10 = seer_decisions("heuristic-seer:10", num_games=300)
    early10 = np.isin(_phase(obs10), (AUCTION, CALL_CARD))
    overbidder = make_opponent("heuristic-overbid:10", "briscola5", {}, 0)
    assert np.array_equal(moves10[early10], overbidder.act(obs10[early10], mask10[early10]))


def _tricks(obs: np.ndarray) -> np.ndarray:
    return ~np.isin(_phase(obs), (AUCTION, CALL_CARD)) & (_rows(obs, "caller").sum(1) > 0)


def _knows_partner(obs: np.ndarray) -> np.ndarray:
    return (obs[:, _at("partner_revealed")] != 0) | (obs[:, _at("holds_called")] != 0)


def _last_to_play(obs: np.ndarray) -> np.ndarray:
    return _rows(obs, "current_trick").sum(1) == N - 1


def test_it_knows_the_partner(decisions):
    """Last to play in a trick (no one after it, so no card can threaten) and the partner not yet public, the
    seer plays as the heuristic would if the partner had been revealed: the holder of the called card."""
    obs, mask, hidden, moves = decisions
    rows = np.flatnonzero(_tricks(obs) & ~_knows_partner(obs) & _last_to_play(obs))
    assert len(rows) > 300
    told = obs[rows].copy()
    called = np.argmax(_rows(obs[rows], "called_card"), axis=1)
    caller = np.argmax(_rows(obs[rows], "caller"), axis=1)
    partner = caller.copy()  # nobody else holds the called card: the caller does (a solo)
    for r in range(1, N):
        partner[hidden[rows, (r - 1) * CARDS + called] != 0] = r
    told[:, _at("partner_revealed")] = 1.0
    told[:, _at("partner"):_at("partner") + N] = 0.0
    told[np.arange(len(rows)), _at("partner") + partner] = 1.0
    heuristic = make_opponent("heuristic", "briscola5", {}, 0)
    assert np.array_equal(moves[rows], heuristic.act(told, mask[rows]))
    # and it is knowledge: the heuristic, not told, differs on some of these rows
    assert (heuristic.act(obs[rows], mask[rows]) != moves[rows]).mean() > 0.02


def test_it_knows_the_foes_cards(decisions):
    """With the partner known to both, the seer differs from the heuristic only in which cards can still beat
    its play: told that every foe after it may hold every unseen card, it plays exactly as the heuristic."""
    obs, mask, hidden, moves = decisions
    rows = np.flatnonzero(_tricks(obs) & _knows_partner(obs))
    seen = (_rows(obs[rows], "hand") != 0) | (_rows(obs[rows], "played_by").reshape(len(rows), CARDS, N) != 0).any(2)
    anything = np.tile(~seen, (1, N - 1)).astype(np.float32)
    seer = make_opponent("heuristic-seer", "briscola5", {}, 0)
    heuristic = make_opponent("heuristic", "briscola5", {}, 0)
    assert np.array_equal(seer.act(obs[rows], mask[rows], anything), heuristic.act(obs[rows], mask[rows]))
    mid_trick = ~_last_to_play(obs[rows])
    assert mid_trick.sum() > 1000
    # the real hidden cards change some of those moves
    assert (moves[rows][mid_trick] != heuristic.act(obs[rows][mid_trick], mask[rows][mid_trick])).mean() > 0.02


def test_it_defends_better_than_the_heuristic():
    """The same heuristic caller makes fewer contracts among seers than among heuristics, on the same deals."""
    made = {}
    for field in ("heuristic", "heuristic-seer"):
        hands = won = 0
        for seat in range(N):
            lineup = [make_opponent(field, "briscola5", {}, s) for s in range(N)]
            lineup[seat] = make_opponent("heuristic", "briscola5", {}, 0)
            returns, env = play_table("briscola5", {}, lineup, 500, 11)
            mine = np.flatnonzero(env.state["caller"] == seat)
            hands += len(mine)
            won += int((returns[mine, seat] > 0).sum())
        made[field] = won / hands
    assert made["heuristic-seer"] < made["heuristic"] - 0.08, made


def test_it_needs_the_hidden_rows():
    env = make_vector_env("briscola5", 3, autoreset=False)
    env.reset(seed=0)
    seer = make_opponent("heuristic-seer", "briscola5", {}, 0)
    with pytest.raises(ValueError, match="needs the hidden cards"):
        seer.act(env.obs, env.mask)
    with pytest.raises(ValueError, match=r"expected hidden rows \(3, 160\)"):
        seer.act(env.obs, env.mask, np.zeros((3, 40), dtype=np.float32))
    assert decide(seer, env, np.arange(3)).shape == (3,)


def test_decide_passes_the_privileged_rows_of_the_seats_to_act():
    env = make_vector_env("briscola5", 6, autoreset=False)
    env.reset(seed=1)
    seen = {}

    class Spy:
        sees_hidden = True

        def act(self, obs, mask, hidden):
            seen["hidden"] = hidden.copy()
            return np.argmax(mask, axis=1)

    rows = np.array([1, 4])
    decide(Spy(), env, rows)
    assert np.array_equal(seen["hidden"], env.privileged(env.current_player)[rows])


def test_the_spec_is_listed_checked_and_never_a_player():
    assert "heuristic-seer[:SHIFT]" in OPPONENT_SPECS
    assert make_opponent("heuristic-seer", "briscola5", {}, 0).shift == 0
    assert make_opponent("heuristic-seer:10", "briscola5", {}, 0).shift == 10
    with pytest.raises(ConfigError, match="'heuristic-seer' or 'heuristic-seer:SHIFT'"):
        make_opponent("heuristic-seer:x", "briscola5", {}, 0)
    for game in ("pigugnin", "picchetto"):
        with pytest.raises(ConfigError, match="no seer written for it; games with one: briscola5"):
            make_opponent("heuristic-seer", game, {}, 0)
    with pytest.raises(ConfigError):
        make_agent("heuristic-seer", "briscola5")


def test_the_batched_gymnasium_env_seats_it():
    """The one-seat Gymnasium vector env on the batched engine passes the seer its hidden rows (else it raises)."""
    gym = pytest.importorskip("gymnasium")
    import train  # noqa: F401  (registers the vector entry points)

    venv = gym.make_vec("mazzo/Briscola5-v0", num_envs=4, vectorization_mode="vector_entry_point",
                        opponents="heuristic-seer", seat=0)
    obs, info = venv.reset(seed=0)
    for _ in range(40):
        action = np.argmax(info["action_mask"], axis=1)
        obs, _, _, _, info = venv.step(action)
    venv.close()


def test_the_batched_trainer_seats_it(monkeypatch):
    """The batched PPO's opponents act through ``decide``: a seer slot gets its hidden rows (else it raises)."""
    pytest.importorskip("torch")
    from pathlib import Path

    from train.batched.args import Args, check_args
    from train.batched.ppo import BatchedPPO
    from train.config import parse_args

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    args = parse_args(Args, ["--config", "configs/briscola5/ppo_batched.yaml", "--num_envs", "8", "--num_steps", "16",
                             "--net_arch", "[16]", "--all_seats_share", "0.0", "--opponents", "[heuristic-seer:10]",
                             "--progress", "false"])
    check_args(args)
    trainer = BatchedPPO(args, np.random.SeedSequence(1).generate_state(6))
    trainer.collect()
    assert trainer.opponent_decisions > 8 * 16 // 2  # four seats of five are the seers'
