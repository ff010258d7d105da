"""``render_mode="rgb_array"``: the table as a picture, as the seat sees it (``envs/<game>/picture.py``).

* every game and phase draws a ``uint8[H, W, 3]`` frame of the game's fixed ``SIZE``;
* the same state gives the same bytes (twice, in a copy, in a fresh interpreter);
* the hand drawn is the seat's: the "Your hand" box is exactly the drawing of the dealt cards
  (legal ones in gold for the seat to act);
* no hidden card: a twin deal that differs only in cards the seat has not seen (the contract
  tests' ``hidden_variant``) gives the seat the same frame, while another seat's frame changes;
  the check fails when a hand leak is planted;
* without Pillow the envs import, build and play, and only ``render()`` raises ``ImportError``
  naming the extra;
* Gymnasium's ``RecordVideo`` and ``RenderCollection``, SB3's ``make_vec_env`` and
  ``VecVideoRecorder`` and PettingZoo's ``render_test`` work with it.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import render_test

from envs.core.cards import iter_bits
from envs.core.errors import ConfigError, IllegalActionError
from envs.core.picture import Table
from envs.registry import GAMES, make_env, make_raw_env, observation_module
from tests.envs.cases import CASES

ROOT = Path(__file__).resolve().parents[2]


def picture(game: str):
    return importlib.import_module(f"envs.{game}.picture")


def frame_shape(game: str) -> tuple[int, int, int]:
    width, height = picture(game).SIZE
    return (height, width, 3)


def seat_of(env) -> int:
    return env.agent_name_mapping[env.agent_selection]


def phase_of(game: str, env) -> str:
    """The phase as the seat to act's observation says it ("over" at the end; Pigugnìn has one phase)."""
    if env.episode_over:
        return "over"
    view = observation_module(game).decode(env.observe(env.agent_selection))
    return view.get("phase", "trick_play")


# -- every game, every phase --------------------------------------------------------------------------

#: explicit deals that reach phases random play rarely reaches (a Briscola zero-point hand: forfeit check)
_ZERO_POINTS = "2C 4C 5C 6C 7C 2D 4D 5D".split()
_REST = [c for c in (f"{r}{s}" for s in "CDSB" for r in "A234567JHK") if c not in _ZERO_POINTS]
PHASE_RUNS = {
    "briscola5": ({}, [None, {"dealer": 4, "hands": [_ZERO_POINTS] + [_REST[8 * i: 8 * i + 8] for i in range(4)]}],
                  {"forfeit_check", "auction", "call", "trick_play", "over"}),
    "pigugnin": ({"episode": "hand", "num_players": 5}, [None], {"trick_play", "over"}),
    "picchetto": ({"episode": "hand"}, [None], {"elder_exchange", "dealer_exchange", "trick_lead", "trick_follow",
                                                "over"}),
}


@pytest.mark.parametrize("game", list(GAMES))
def test_every_phase_draws_a_frame_of_the_games_fixed_size(game):
    flags, deals, phases = PHASE_RUNS[game]
    env = make_env(game, render_mode="rgb_array", **flags)
    rnd = random.Random(0)
    seen = set()
    for seed, options in enumerate(deals):
        env.reset(seed=seed, options=options)
        last = None
        while True:
            phase = phase_of(game, env)
            if phase != last:  # one frame per phase change keeps the test short
                frame = env.render()
                assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8, (game, phase)
                assert frame.shape == frame_shape(game), (game, phase, frame.shape)
                assert frame.std() > 10  # a table was drawn, not a blank image
                seen.add(phase)
                last = phase
            if env.unwrapped.episode_over:
                break
            legal = env.unwrapped.legal_actions()
            # Briscola: pass often (short auctions); otherwise uniform
            env.step(80 if game == "briscola5" and 80 in legal and rnd.random() < 0.6 else rnd.choice(legal))
    assert seen == phases


@pytest.mark.parametrize("game", list(GAMES))
def test_render_follows_render_seat_and_refuses_all_for_pictures(game):
    env = make_raw_env(game, render_mode="rgb_array")
    blank = env.render()  # before reset: an empty table of the same size
    assert blank.shape == frame_shape(game)
    env.reset(seed=1)
    actor = seat_of(env)
    default = env.render()
    env.render_seat = actor
    assert np.array_equal(env.render(), default)  # None means the seat to act
    env.render_seat = (actor + 1) % len(env.possible_agents)
    assert not np.array_equal(env.render(), default)
    env.render_seat = "all"
    with pytest.raises(ConfigError, match=r"render_seat 'all' is for the text modes.*allowed render_seat None"):
        env.render()
    env.render_seat = 9
    with pytest.raises(ConfigError, match="invalid render_seat 9; allowed"):
        env.render()


@pytest.mark.parametrize("game", list(GAMES))
def test_pettingzoo_render_test_passes(game, capsys):
    render_test(lambda render_mode=None: make_env(game, render_mode=render_mode))


# -- determinism --------------------------------------------------------------------------------------


def _frames_of_a_seeded_game(game: str, seed: int, steps: int) -> list[np.ndarray]:
    env = make_raw_env(game, render_mode="rgb_array")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    frames = [env.render()]
    for _ in range(steps):
        if env.episode_over:
            break
        env.step(int(rng.choice(env.legal_actions())))
        frames.append(env.render())
    return frames


@pytest.mark.parametrize("game", list(GAMES))
def test_same_state_same_bytes(game):
    a = _frames_of_a_seeded_game(game, seed=3, steps=12)
    b = _frames_of_a_seeded_game(game, seed=3, steps=12)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert len({f.tobytes() for f in a}) > len(a) // 2  # and the frames follow the game
    env = make_raw_env(game, render_mode="rgb_array")
    env.reset(seed=3)
    first = env.render()
    assert np.array_equal(env.render(), first)  # rendering changes nothing
    first[:] = 0  # the caller owns the frame: writing to it changes the next one in nothing
    assert np.array_equal(copy.deepcopy(env).render(), env.render())


def test_a_fresh_interpreter_draws_the_same_bytes():
    """No hidden state (caches, import order) reaches a frame."""
    script = textwrap.dedent("""
        import hashlib, numpy as np
        from envs.registry import make_raw_env
        for game in ("briscola5", "pigugnin", "picchetto"):
            env = make_raw_env(game, render_mode="rgb_array")
            env.reset(seed=11)
            rng = np.random.default_rng(11)
            for _ in range(9):
                env.step(int(rng.choice(env.legal_actions())))
            print(hashlib.sha256(env.render().tobytes()).hexdigest())
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    here = []
    for game in GAMES:
        env = make_raw_env(game, render_mode="rgb_array")
        env.reset(seed=11)
        rng = np.random.default_rng(11)
        for _ in range(9):
            env.step(int(rng.choice(env.legal_actions())))
        here.append(hashlib.sha256(env.render().tobytes()).hexdigest())
    assert out.stdout.split() == here


# -- the cards drawn are the seat's --------------------------------------------------------------------

_ITALIAN = [f"{r}{s}" for s in "CDSB" for r in "A234567JHK"]
_FRENCH = [f"{r}{s}" for s in "hdsc" for r in "789TJQKA"]
DEALS = {
    "briscola5": ({"forfeit_enabled": False}, {"dealer": 0, "hands": [_ITALIAN[i::5] for i in range(5)]}),
    "pigugnin": ({}, {"dealer": 3, "hands": [_ITALIAN[i::4] for i in range(4)]}),
    "picchetto": ({}, {"dealer": 1, "hands": [_FRENCH[0:24:2], _FRENCH[1:24:2]], "talon": _FRENCH[24:]}),
}


def _hand_box(game: str, seat: int, codes: list[str], legal: set[str] | None) -> np.ndarray:
    """The "Your hand" box as the primitives draw exactly these cards (the reference)."""
    top, height = picture(game).HAND_BOX
    table = Table(*picture(game).SIZE)
    table.hand(top, height, seat, codes, legal)
    return table.array()[top: top + height]


@pytest.mark.parametrize("game", list(GAMES))
def test_the_hand_drawn_is_exactly_the_seats_dealt_cards(game):
    flags, options = DEALS[game]
    env = make_raw_env(game, render_mode="rgb_array", **flags)
    env.reset(seed=0, options=options)
    deck = env.game.deck
    top, height = picture(game).HAND_BOX
    actor = seat_of(env)
    boxes = []
    for seat, dealt in enumerate(options["hands"]):
        codes = [deck.codes[c] for c in sorted(deck.parse_many(dealt))]
        legal = None
        if seat == actor:
            # the cards it may play now (id c) or discard (Picchetto: id 32 + c), in gold; Briscola's
            # first actor bids, and no card is highlighted
            ids = set(env.legal_actions())
            legal = {deck.codes[c] for c in deck.parse_many(dealt) if c in ids or c + deck.size in ids} or None
            assert (legal is None) == (game == "briscola5")
        env.render_seat = seat
        box = env.render()[top: top + height]
        assert np.array_equal(box, _hand_box(game, seat, codes, legal)), (game, seat)
        boxes.append(box.tobytes())
    assert len(set(boxes)) == len(boxes)  # and each seat's box is its own


# -- no hidden card -----------------------------------------------------------------------------------


def _plant_hand_leak(env) -> None:
    """The next seat's hand is written into every seat's own hand rows (a leak the picture would show)."""
    sl = env.observer.layout.obs_slice("hand")
    n = len(env.possible_agents)
    inner = env.observer.observe

    def observe(seat: int) -> np.ndarray:
        obs = inner(seat)
        for c in iter_bits(env.state_.hands[(seat + 1) % n]):
            obs[sl.start + c] = 1.0
        return obs

    env.observer.observe = observe


def check_frames_hide_hidden_cards(game: str, flags: dict, episodes: int, plant=None) -> dict:
    """Random histories within hand 1; for each seat a twin deal that differs only in cards the seat has
    not seen, with the same public history: the seat's frame is the same (asserted), another seat's
    usually differs (counted: the control that the twin moved cards and that frames show hands)."""
    case = CASES[game]
    rnd = random.Random(7)

    def make():
        env = make_raw_env(game, render_mode="rgb_array", **flags)
        if plant is not None:
            plant(env)
        return env

    variants = changed = 0
    env = make()
    for episode in range(episodes):
        env.reset(seed=episode)
        history: list[tuple[int, int]] = []
        stop = rnd.randrange(1, case.no_leak_steps)
        while len(history) < stop and not env.episode_over:
            actor, action = seat_of(env), case.choose(rnd, env.legal_actions(), env)
            env.step(action)
            if env.state_.hand_no != 1:  # a twin cannot follow into hand 2: back to before this action
                env.reset(seed=episode)
                for _, a in history:
                    env.step(a)
                break
            history.append((actor, action))
        n = len(env.possible_agents)
        for seat in range(n):
            variant = case.hidden_variant(env, seat, history, rnd)
            if variant is None:
                continue
            options, replay = variant
            twin = make()
            twin.reset(seed=episode, options=options)
            try:
                for action in replay:
                    twin.step(action)
            except IllegalActionError:
                continue  # the other cards make a past action illegal
            if case.public(twin) != case.public(env):
                continue  # a fact the rules make public came out differently
            variants += 1
            env.render_seat = twin.render_seat = seat
            assert np.array_equal(env.render(), twin.render()), (
                f"leak: {game} {flags} seat {seat}'s frame shows the hidden cards change (episode {episode}, "
                f"after {len(history)} actions, twin deal {options})"
            )
            env.render_seat = twin.render_seat = (seat + 1) % n
            changed += not np.array_equal(env.render(), twin.render())
    return {"variants": variants, "changed": changed}


NO_LEAK_CONFIGS = [pytest.param(game, "defaults", id=f"{game}-defaults") for game in GAMES] + [
    pytest.param(game, name, id=f"{game}-{name}", marks=pytest.mark.slow)
    for game in GAMES for name in list(CASES[game].configs)[1:]
]


#: random histories per game (fewer seats: more histories)
NO_LEAK_EPISODES = {"briscola5": 6, "pigugnin": 6, "picchetto": 16}


@pytest.mark.parametrize("game,config", NO_LEAK_CONFIGS)
def test_no_hidden_card_in_a_seats_frame(game, config):
    counts = check_frames_hide_hidden_cards(game, CASES[game].configs[config], episodes=NO_LEAK_EPISODES[game])
    assert counts["variants"] >= 15, counts
    # the control: in many twins another seat's frame did change (a Picchetto twin often moves
    # talon cards only, which nobody has seen)
    assert counts["changed"] >= 0.3 * counts["variants"], counts


@pytest.mark.parametrize("game", list(GAMES))
def test_the_frame_check_fails_on_a_planted_hand_leak(game):
    with pytest.raises(AssertionError, match=f"leak: {game}"):
        check_frames_hide_hidden_cards(game, {}, episodes=8, plant=_plant_hand_leak)


# -- Pillow is an extra ---------------------------------------------------------------------------------

_WITHOUT_PILLOW = """
import sys

class NoPillow:
    def find_spec(self, name, path=None, target=None):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError(f"No module named {name!r} (blocked by the test)")
        return None

sys.meta_path.insert(0, NoPillow())
import numpy as np
from envs.registry import make_env

for game in ("briscola5", "pigugnin", "picchetto"):
    env = make_env(game, render_mode="rgb_array")
    env.reset(seed=0)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert "PIL" not in sys.modules
    try:
        env.render()
    except ImportError as err:
        print(game, "ImportError:", err)
    else:
        print(game, "rendered without Pillow")
"""


def test_without_pillow_envs_build_and_play_and_render_names_the_extra():
    out = subprocess.run([sys.executable, "-c", _WITHOUT_PILLOW], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 3, out.stdout
    for line in lines:
        assert "ImportError:" in line and "pip install 'mazzo[render]'" in line, line


# -- Gymnasium, Stable-Baselines3 ---------------------------------------------------------------------------


def _single_seat(game: str, **kwargs):
    import train  # noqa: F401  (registers the mazzo/* ids)

    return gym.make(GAMES[game].gym_id, **kwargs)


def _play(env, seed: int = 0, max_steps: int = 200) -> int:
    env.reset(seed=seed)
    for steps in range(1, max_steps + 1):
        mask = env.unwrapped.action_masks()
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
        if terminated or truncated:
            return steps
    return max_steps


@pytest.mark.parametrize("game", list(GAMES))
def test_single_seat_env_renders_the_learners_seat(game):
    from gymnasium.utils.passive_env_checker import env_render_passive_checker

    env = _single_seat(game, render_mode="rgb_array", seat=1)
    env.reset(seed=4)
    frame = env.render()
    assert frame.shape == frame_shape(game) and frame.dtype == np.uint8
    raw = env.unwrapped.raw
    raw.render_seat = 1
    assert np.array_equal(frame, raw.render())
    env_render_passive_checker(env)
    with pytest.raises(ConfigError, match="invalid render_mode 'rgb'; allowed: None, 'ansi', 'rgb_array'"):
        _single_seat(game, render_mode="rgb")


def test_render_collection_collects_one_frame_per_step():
    env = gym.wrappers.RenderCollection(_single_seat("picchetto", render_mode="rgb_array", episode="hand"))
    steps = _play(env)
    frames = env.render()
    assert len(frames) == steps + 1  # the reset and every step
    assert all(f.shape == frame_shape("picchetto") for f in frames)
    assert len({f.tobytes() for f in frames}) > steps // 2


def test_record_video_records_an_episode(tmp_path):
    pytest.importorskip("moviepy", reason="RecordVideo writes with moviepy (in the dev extra)")
    env = gym.wrappers.RecordVideo(
        _single_seat("pigugnin", render_mode="rgb_array", episode="hand"), str(tmp_path),
        episode_trigger=lambda episode: True, disable_logger=True,
    )
    steps = _play(env)
    env.close()
    videos = sorted(tmp_path.glob("*.mp4"))
    assert steps > 5 and [v.name for v in videos] == ["rl-video-episode-0.mp4"]
    assert videos[0].stat().st_size > 10_000


def test_sb3_make_vec_env_with_a_plain_id_steps_and_records(tmp_path):
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("moviepy", reason="VecVideoRecorder writes with moviepy (in the dev extra)")
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecVideoRecorder

    import train  # noqa: F401

    venv = make_vec_env("mazzo/Picchetto-v0", n_envs=2, seed=0)  # SB3 asks for render_mode="rgb_array"
    assert venv.render_mode == "rgb_array"
    rec = VecVideoRecorder(venv, str(tmp_path), record_video_trigger=lambda step: step == 0, video_length=8)
    rec.reset()
    for _ in range(12):
        masks = rec.env_method("action_masks")
        rec.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    images = venv.get_images()
    rec.close()
    assert [img.shape for img in images] == [frame_shape("picchetto")] * 2
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 10_000
