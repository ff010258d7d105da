"""The single-seat Gymnasium wrapper: what the learner gets, who acts when, masks, episode ends, seeding."""

from __future__ import annotations

import copy
import pickle

import gymnasium
import numpy as np
import pytest

from agents.base import BaseAgent, legal_actions
from envs.core.errors import ConfigError, IllegalActionError, ResetNeededError
from envs.registry import GAMES, make_env
from train.single_seat import OpponentPool, SingleSeatEnv

# Every game, player count and episode kind the wrapper must handle.
SETUPS = [
    ("briscola5", {}),
    ("briscola5", {"num_hands": 2}),
    ("pigugnin", {"num_players": 4, "episode": "hand"}),
    ("pigugnin", {"num_players": 5, "episode": "hand"}),
    ("pigugnin", {"num_players": 4}),
    ("pigugnin", {"num_players": 5, "outcome_reward": {"win": 1, "draw": 0, "lose": -1}}),
    ("picchetto", {"episode": "hand"}),
    ("picchetto", {"episode": "game"}),
    ("picchetto", {}),
]
IDS = [f"{g}-{'-'.join(f'{k}={v}' for k, v in f.items()) or 'default'}" for g, f in SETUPS]


class Recorder(BaseAgent):
    """Random legal play that logs which seat it was asked to act for (checked against the env)."""

    name = "recorder"

    def __init__(self, game, env=None, seed=None):
        super().__init__(game, seed=seed)
        self.env = env
        self.calls = []

    def act(self, observation):
        legal = legal_actions(observation)  # raises if the mask is all zeros: not this seat's turn
        raw = self.env.raw
        self.calls.append(raw.agent_selection)
        # The observation handed over is the acting seat's own, not the learner's.
        np.testing.assert_array_equal(observation["observation"], raw.observe(raw.agent_selection)["observation"])
        return int(legal[self.rng.integers(legal.size)])


def play_episode(env: SingleSeatEnv, rng: np.random.Generator, seed: int | None = None):
    """Random learner; returns (observations, masks, rewards, learner actions, last info)."""
    obs, info = env.reset(seed=seed)
    observations, masks, rewards, actions = [obs], [env.action_masks()], [], []
    while True:
        legal = np.flatnonzero(masks[-1])
        assert legal.size > 0, "the learner is asked to act with an empty mask"
        a = int(rng.choice(legal))
        actions.append(a)
        obs, r, term, trunc, info = env.step(a)
        rewards.append(r)
        observations.append(obs)
        masks.append(env.action_masks())
        if term or trunc:
            return observations, masks, rewards, actions, info


@pytest.mark.parametrize(("game", "flags"), SETUPS, ids=IDS)
def test_learner_gets_its_own_rewards_and_observations(game, flags):
    """Replay the wrapper's episode on a plain PettingZoo env and compare seat by seat."""
    for seed in range(3):
        env = SingleSeatEnv(game, flags=flags)
        log: list[int] = []
        step = env.raw.step

        def spy(a, step=step, log=log):
            log.append(int(a))
            step(a)

        env.raw.step = spy
        observations, masks, rewards, actions, info = play_episode(env, np.random.default_rng(seed), seed=seed)
        assert env.skipped_deals == 0
        me = env.learner_agent
        ref = make_env(game, **flags)
        ref.reset(seed=env._env_seed)
        totals = dict.fromkeys(ref.possible_agents, 0.0)
        mine, it, final = [], iter(log), {}
        for agent in ref.agent_iter():
            o, r, term, trunc, ref_info = ref.last()
            totals[agent] += r
            if term or trunc:
                final[agent] = (o, ref_info)
                ref.step(None)
                continue
            if agent == me:
                mine.append(o)
            ref.step(next(it))
        assert next(it, None) is None
        # every observation the learner got at its turns is its own seat's, with its own mask
        assert len(mine) == len(actions) == len(observations) - 1
        for o, got, mask in zip(mine, observations, masks, strict=False):
            np.testing.assert_array_equal(got, o["observation"])
            np.testing.assert_array_equal(mask, o["action_mask"].astype(bool))
        # the learner's return is its own seat's total and nobody else's
        assert sum(rewards) == pytest.approx(totals[me])
        assert info["episode_return"] == pytest.approx(totals[me])
        assert info["seat"] == env.learner
        assert info["result"] == final[me][1]["result"]
        # the final observation is the learner's and the mask is empty once the episode is over
        np.testing.assert_array_equal(observations[-1], final[me][0]["observation"])
        assert not masks[-1].any()


@pytest.mark.parametrize(("game", "flags"), SETUPS, ids=IDS)
def test_opponents_act_between_learner_steps(game, flags):
    env = SingleSeatEnv(game, flags=flags, opponents="random")
    recorders = {}
    env.reset(seed=11)
    for s in range(env.num_players):
        recorders[s] = Recorder(game, env=env, seed=s)
    for _ in range(3):
        env.reset()
        env.seated = {s: recorders[s] for s in env.seated}  # seat recorders for this episode
        learner = env.learner_agent
        before = {s: len(r.calls) for s, r in recorders.items()}
        done, n_learner = False, 0
        while not done:
            assert env.raw.agent_selection == learner  # it is always the learner's turn between steps
            legal = np.flatnonzero(env.action_masks())
            _, _, term, trunc, info = env.step(int(legal[0]))
            n_learner += 1
            done = term or trunc
        for s, r in recorders.items():
            new = r.calls[before[s]:]
            # each opponent acted only for its own seat, the learner's seat never by an opponent
            assert set(new) <= {env.raw.possible_agents[s]}
            assert s != env.learner or not new
        assert sum(len(r.calls) - before[s] for s, r in recorders.items()) > 0
        assert info["result"] is not None


@pytest.mark.parametrize(("game", "flags"), SETUPS[::2], ids=IDS[::2])
def test_episodes_end_once_and_reset_works(game, flags):
    env = SingleSeatEnv(game, flags=flags)
    rng = np.random.default_rng(0)
    seats = set()
    for ep in range(8):
        *_, info = play_episode(env, rng, seed=ep if ep == 0 else None)
        seats.add(info["seat"])
        with pytest.raises(RuntimeError, match="after the episode ended"):
            env.step(0)
        assert not env.action_masks().any()
    assert len(seats) > 1  # the seat is drawn each episode


def test_masks_match_the_env_and_illegal_actions_raise():
    env = SingleSeatEnv("briscola5", illegal_action="raise")
    obs, _ = env.reset(seed=3)
    mask = env.action_masks()
    assert mask.dtype == bool and mask.shape == (env.action_space.n,)
    assert np.array_equal(np.flatnonzero(mask), env.raw.legal_actions())
    illegal = int(np.flatnonzero(~mask)[0])
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(illegal)
    np.testing.assert_array_equal(env.action_masks(), mask)  # nothing changed
    np.testing.assert_array_equal(env._obs(), obs)


def test_fixed_seat_and_seeding():
    env = SingleSeatEnv("pigugnin", seat=2, flags={"num_players": 5, "episode": "hand"})
    for ep in range(3):
        *_, info = play_episode(env, np.random.default_rng(ep), seed=None if ep else 5)
        assert info["seat"] == 2
    a = SingleSeatEnv("briscola5", opponents="random")
    b = SingleSeatEnv("briscola5", opponents="random")
    runs = []
    for env in (a, b, a):
        out = []
        for ep in range(3):
            obs, _, rewards, actions, info = play_episode(env, np.random.default_rng(ep), seed=7 if ep == 0 else None)
            out.append((info["seat"], actions, rewards, [o.tobytes() for o in obs]))
        runs.append(out)
    assert runs[0] == runs[1] == runs[2]  # same seed, same learner actions: same episodes
    c = play_episode(SingleSeatEnv("briscola5"), np.random.default_rng(0), seed=8)
    assert [o.tobytes() for o in c[0]] != runs[0][0][3]


@pytest.mark.parametrize(("game", "flags"), [SETUPS[0], SETUPS[3], SETUPS[6]], ids=[IDS[0], IDS[3], IDS[6]])
def test_state_round_trip_continues_identically(game, flags):
    env = SingleSeatEnv(game, flags=flags)
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    state = env.get_state()
    first = play_episode_from_here(env, np.random.default_rng(5))
    other = SingleSeatEnv(game, flags=flags)
    other.set_state(state)
    assert play_episode_from_here(other, np.random.default_rng(5)) == first


def play_episode_from_here(env, rng, episodes=3):
    out = []
    for _ in range(episodes):
        done = False
        while not done:
            _, r, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            out.append((r, env._obs().tobytes()))
            done = term or trunc
        env.reset()
    return out


def test_deals_that_end_before_the_learner_acts_are_skipped():
    zero = ["2C", "4C", "5C", "6C", "7C", "2D", "4D", "5D"]  # no card points: may forfeit
    rest = ["6D", "7D", "2S", "4S", "5S", "6S", "7S", "2B", "4B", "5B", "6B", "7B"]
    points = [f"{r}{s}" for s in "CDSB" for r in "A3JHK"]
    hands = [points[0:5] + rest[0:3], zero, points[5:10] + rest[3:6], points[10:15] + rest[6:9],
             points[15:20] + rest[9:12]]

    class Forfeiter(BaseAgent):
        def act(self, observation):
            legal = legal_actions(observation)
            return 141 if 141 in legal else int(legal[0])

    env = SingleSeatEnv("briscola5", opponents=Forfeiter("briscola5"), seat=3)
    env.reset(seed=0, options={"dealer": 0, "hands": hands})
    assert env.skipped_deals >= 1
    assert env.action_masks().any() and env.raw.agent_selection == "player_3"


def test_opponent_pool_draws_and_snapshots():
    pool = OpponentPool({"random": 1, "heuristic": 3}, snapshot_share=0.5, max_snapshots=2)
    rng = np.random.default_rng(0)
    draws = [pool.draw(rng) for _ in range(4000)]
    assert 0.7 < draws.count("heuristic") / len(draws) < 0.8
    for i in range(3):
        pool.add(f"ppo:/x/{i}.zip")
    assert pool.snapshots == ["ppo:/x/1.zip", "ppo:/x/2.zip"]
    draws = [pool.draw(rng) for _ in range(4000)]
    share = sum(d.startswith("ppo:") for d in draws) / len(draws)
    assert 0.45 < share < 0.55 and "ppo:/x/0.zip" not in draws
    assert OpponentPool("random, heuristic").base == {"random": 1.0, "heuristic": 1.0}


def test_heuristic_opponents_and_gymnasium_registration():
    env = gymnasium.make("mazzo/Briscola5-v0", opponents="heuristic")
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert {type(a).__name__ for a in env.unwrapped.seated.values()} == {"Briscola5Heuristic"}
    env5 = gymnasium.make("mazzo/Pigugnin-v0", num_players=5, episode="hand")
    assert env5.observation_space.shape == (672,) and env5.unwrapped.num_players == 5
    assert {spec.gym_id: name for name, spec in GAMES.items()} == {
        "mazzo/Briscola5-v0": "briscola5", "mazzo/Pigugnin-v0": "pigugnin", "mazzo/Picchetto-v0": "picchetto"}
    assert all(gymnasium.spec(spec.gym_id).kwargs == {"game": name} for name, spec in GAMES.items())
    # Gymnasium's own checks that do not step with random (possibly illegal) actions.
    from gymnasium.utils import env_checker

    pic = gymnasium.make("mazzo/Picchetto-v0", episode="hand").unwrapped
    env_checker.check_reset_seed_determinism(pic)
    env_checker.check_reset_return_type(pic)
    env_checker.check_reset_options(pic)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"game": "scopa"}, "unknown game 'scopa'; known games: briscola5, pigugnin, picchetto"),
        ({"game": "briscola5", "num_hand": 2}, "num_hand"),
        ({"game": "pigugnin", "flags": {"num_players": 6}}, "allowed: 4, 5"),
        ({"game": "briscola5", "seat": 5}, "seat must be 'random' or an int 0..4"),
        ({"game": "briscola5", "opponents": "strong"}, "unknown agent 'strong'"),
        ({"game": "briscola5", "opponents": {"random": 0}}, "must be a number > 0"),
        ({"game": "briscola5", "opponents": []}, "opponents must be"),
        ({"game": "briscola5", "reward_scale": 0}, "reward_scale must be a number > 0"),
        ({"game": "briscola5", "opponents": "ppo:/nonexistent/model.zip"}, "checkpoint not found"),
        ({"game": "briscola5", "illegal_action": "ignore"}, "illegal_action must be one of 'raise', 'terminate'; got 'ignore'"),
        ({"game": "pigugnin", "illegal_action": None}, "illegal_action must be one of 'raise', 'terminate'; got None"),
        ({"game": "picchetto", "illegal_action": "terminate", "illegal_reward": float("nan")}, "illegal_reward must be a finite number"),
        ({"game": "picchetto", "illegal_reward": "-1"}, "illegal_reward must be a finite number; got '-1'"),
    ],
)
def test_bad_input_is_rejected_before_play(kwargs, message):
    with pytest.raises((ConfigError, FileNotFoundError), match=message.replace("(", r"\(").replace(")", r"\)")):
        SingleSeatEnv(**kwargs)


def test_add_opponent_rejects_bad_specs():
    env = SingleSeatEnv("briscola5")
    with pytest.raises(FileNotFoundError, match="checkpoint not found"):
        env.add_opponent("ppo:/nonexistent.zip")
    with pytest.raises(ConfigError, match="agent spec string"):
        env.add_opponent(3)
    assert env.pool.snapshots == []


@pytest.mark.slow
def test_subproc_vec_env_matches_dummy():
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    def fn():
        return SingleSeatEnv("briscola5", opponents="random")

    results = []
    for cls in (DummyVecEnv, SubprocVecEnv):
        vec = cls([fn, fn])
        vec.seed(3)
        obs = vec.reset()
        trace = [obs.copy()]
        rng = np.random.default_rng(0)
        for _ in range(40):
            masks = np.stack(vec.env_method("action_masks"))
            actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
            obs, rewards, dones, infos = vec.step(np.array(actions))
            trace.append((obs.copy(), rewards.copy(), dones.copy()))
        vec.close()
        results.append(trace)
    for x, y in zip(*results, strict=True):
        for u, v in zip(x if isinstance(x, tuple) else (x,), y if isinstance(y, tuple) else (y,), strict=True):
            np.testing.assert_array_equal(u, v)
    assert any(t[2].any() for t in results[0][1:])  # episodes ended (and auto-reset) along the way


def test_import_train_registers_the_envs_without_torch():
    import subprocess
    import sys

    code = ("import sys, gymnasium, train; env = gymnasium.make('mazzo/Pigugnin-v0', opponents='heuristic', "
            "num_players=5); env.reset(seed=0); assert 'torch' not in sys.modules; print(env.observation_space.shape)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(672,)"


# -- illegal actions: "raise" or "terminate" --------------------------------------------------------

GAME_IDS = {"briscola5": "mazzo/Briscola5-v0", "pigugnin": "mazzo/Pigugnin-v0", "picchetto": "mazzo/Picchetto-v0"}


@pytest.mark.parametrize("game", list(GAME_IDS))
def test_the_ecosystems_checkers_pass_with_the_default_arguments(game):
    """``gymnasium.make(id)`` as a new user writes it: SB3's and Gymnasium's own env checkers (which step
    with ids sampled from the action space, mostly illegal ones) pass without any Mazzo keyword."""
    from gymnasium.utils.env_checker import check_env as gymnasium_check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    for seed in range(3):
        env = gymnasium.make(GAME_IDS[game])
        env.action_space.seed(seed)
        sb3_check_env(env)
        sb3_check_env(env.unwrapped)
        gymnasium_check_env(env.unwrapped, skip_render_check=False)
        env.close()


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAME_IDS))
def test_make_vec_env_trains_maskable_ppo_on_a_plain_id(game, tmp_path):
    """SB3's ``make_vec_env`` with a string id (which asks for ``render_mode="rgb_array"``) and MaskablePPO
    for a few hundred steps: the single-agent path a researcher tries first."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env(GAME_IDS[game], n_envs=2, seed=0)
    assert venv.render_mode == "rgb_array" and venv.num_envs == 2
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    obs = venv.reset()
    masks = np.stack(venv.env_method("action_masks"))
    actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert all(masks[i, a] for i, a in enumerate(actions))  # the masked policy plays legal moves only
    frame = venv.render()
    assert frame is not None and frame.dtype == np.uint8 and frame.ndim == 3
    venv.close()


@pytest.mark.parametrize("game", list(GAME_IDS))
@pytest.mark.parametrize("kind", ["illegal", "out_of_range"])
def test_terminate_ends_the_episode_with_the_penalty(game, kind):
    env = gymnasium.make(GAME_IDS[game], illegal_action="terminate", reward_scale=0.5)
    obs, _ = env.reset(seed=2)
    single = env.unwrapped
    # one legal step first, so that the episode has a return before the illegal action
    obs, r0, *_ = env.step(int(np.flatnonzero(single.action_masks())[0]))
    mask = single.action_masks()
    state = copy.deepcopy(single.raw.state_)
    action = int(np.flatnonzero(~mask)[0]) if kind == "illegal" else single.action_space.n
    obs2, reward, terminated, truncated, info = env.step(action)
    assert reward == -1.0  # the default penalty, not multiplied by reward_scale
    assert terminated is True and truncated is False
    assert info["illegal_action"] == action and info["seat"] == single.learner
    assert f"action {action}" in info["reason"] and "legal actions:" in info["reason"]
    assert info["result"] is None
    assert info["episode_return"] == pytest.approx(r0 / 0.5 - 1.0)
    np.testing.assert_array_equal(obs2, obs)  # nothing was played
    assert pickle.dumps(single.raw.state_) == pickle.dumps(state)
    assert not single.action_masks().any()
    with pytest.raises(ResetNeededError, match="after the episode ended; call reset"):
        env.step(int(np.flatnonzero(mask)[0]))
    # the next episode is a normal one
    env.reset()
    assert single.action_masks().any()
    _, _, terminated, _, info = env.step(int(np.flatnonzero(single.action_masks())[0]))
    assert "illegal_action" not in info


def test_illegal_reward_is_configurable_and_terminate_is_the_default():
    env = SingleSeatEnv("picchetto", illegal_reward=-7)
    assert env.illegal_action == "terminate"  # PettingZoo's classic env() default (TerminateIllegalWrapper)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    assert env.step(illegal)[1:3] == (-7.0, True)
    strict = SingleSeatEnv("picchetto", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="legal actions"):
        strict.step(illegal)
    assert strict.action_masks().any()  # nothing changed, the episode goes on


def test_step_before_reset_says_to_reset():
    env = SingleSeatEnv("briscola5")
    with pytest.raises(ResetNeededError, match="reset\\(\\) needs to be called before step\\(\\); call reset\\(\\) first"):
        env.step(0)


# -- copying and pickling -------------------------------------------------------------------------

def _freeze(out) -> tuple:
    """A comparable record of what ``reset`` or ``step`` returned."""
    obs, *rest, info = out
    return (obs.tobytes(), *rest, repr(sorted(info.items())))


def _reference(make, moves_wanted: int, illegal_at: int | None = None) -> tuple[list, list]:
    """Moves (reset / step) over several episodes with a fixed choice rule, and what each returned."""
    env = make()
    moves, records = [], []
    done = True
    for i in range(moves_wanted):
        if done:
            move = ("reset", 3 if i == 0 else None)
        else:
            legal = np.flatnonzero(env.unwrapped.action_masks())
            move = ("step", env.action_space.n if i == illegal_at else int(legal[(i * 7) % legal.size]))
        out = _apply(env, move)
        done = move[0] == "step" and (out[2] or out[3])
        moves.append(move)
        records.append(_freeze(out) + (env.unwrapped.action_masks().tobytes(),))
    return moves, records


def _apply(env, move):
    return env.reset(seed=move[1]) if move[0] == "reset" else env.step(move[1])


COPY_SETUPS = [
    ("briscola5", {"num_hands": 2}, "random", None),
    ("pigugnin", {"num_players": 5, "episode": "hand"}, "heuristic", None),
    ("pigugnin", {"num_players": 4}, "random", None),
    ("picchetto", {"episode": "game", "game_target": 60}, "random", 30),
    ("picchetto", {"episode": "hand"}, "heuristic", None),
]


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("through", ["SingleSeatEnv", "gymnasium.make"])
@pytest.mark.parametrize(("game", "flags", "opponents", "illegal_at"), COPY_SETUPS,
                         ids=[f"{g}-{o}-{i}" for i, (g, _, o, _) in enumerate(COPY_SETUPS)])
def test_copies_continue_like_the_original(game, flags, opponents, illegal_at, through, how):
    def make():
        kwargs = dict(opponents=opponents, illegal_action="terminate" if illegal_at is not None else "raise", **flags)
        if through == "SingleSeatEnv":
            return SingleSeatEnv(game, **kwargs)
        return gymnasium.make(GAME_IDS[game], **kwargs)

    def dup(env):
        return copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))

    moves, records = _reference(make, 120, illegal_at)
    assert sum(m[0] == "reset" for m in moves) >= 2
    assert illegal_at is None or moves[illegal_at][0] == "step"  # the illegal action is really played
    ends = [i for i, m in enumerate(moves) if m[0] == "reset"][1:]
    points = sorted({0, 1, 2, 15, 40, 77, *ends, *(e - 1 for e in ends)} - {len(moves) - 1})
    env = make()
    twin = dup(env)  # a copy made before the first reset plays like a fresh env
    for j, move in enumerate(moves):
        assert _freeze(_apply(twin, move)) + (twin.unwrapped.action_masks().tobytes(),) == records[j]
    for i, move in enumerate(moves):
        assert _freeze(_apply(env, move)) + (env.unwrapped.action_masks().tobytes(),) == records[i], (
            f"the original diverged at move {i} (disturbed by a copy?)")
        if i not in points:
            continue
        twin = dup(env)
        for j in range(i + 1, len(moves)):
            got = _freeze(_apply(twin, moves[j])) + (twin.unwrapped.action_masks().tobytes(),)
            assert got == records[j], f"copy made after move {i} ({how}) diverged at move {j}"


# -- rewards paid before the learner's first action ------------------------------------------------------------

#: Picchetto, dealer player_0: the elder (player_1) is dealt no J/Q/K, a Bianco paid at the deal (+10 to the elder,
#: -10 to the dealer) before the dealer's first action
BIANCO_DEAL = {"dealer": 0, "hands": ["Jh Qh Kh Ah Jd Qd Kd Ad Js Qs Ks As".split(),
                                      "7h 8h 9h Th 7d 8d 9d Td 7s 8s 9s Ts".split()],
               "talon": "7c 8c 9c Tc Jc Qc Kc Ac".split()}


def _aec_return(seat: int, actions: list[int]) -> float:
    """The seat's whole return in the AEC env, replaying every action of the episode."""
    from envs import picchetto_v0

    env = picchetto_v0.raw_env(episode="hand")
    env.reset(options=BIANCO_DEAL)
    total = 0.0
    for a in actions:
        env.step(a)
        total += env.rewards[env.possible_agents[seat]]
    assert env.episode_over
    return total


@pytest.mark.parametrize("reward_scale", [1.0, 0.5])
def test_rewards_before_the_learners_first_action_come_with_its_first_step(reward_scale):
    """The dealer learner pays the elder's Bianco before it acts: its first step's reward carries the -10, and the
    step rewards add up to the AEC env's return (they used to drop it)."""
    env = SingleSeatEnv("picchetto", opponents="heuristic", seat=0, episode="hand", reward_scale=reward_scale)
    env.reset(seed=0, options=BIANCO_DEAL)
    rewards, first = [], None
    done = False
    while not done:
        _, r, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        first = r if first is None else first
        rewards.append(r)
        done = term or trunc
    moves = [m["id"] for h in env.raw.episode_record()["hands"] for m in h["moves"]]
    want = _aec_return(0, moves)
    assert first <= -10 * reward_scale  # the Bianco, with whatever the first exchange scored
    assert sum(rewards) == pytest.approx(want * reward_scale) and info["episode_return"] == pytest.approx(want)
