"""Draw docs/render_<game>.png: a position of a seeded game between heuristic players, as the seat to act sees it.

Run from the repository root: `python docs/render_frames.py` (needs `pip install -e ".[render]"`).
The frames are `env.render()` of `render_mode="rgb_array"`, reduced to 256 colours to keep the files small.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from agents.registry import make_agent
from envs.registry import make_raw_env

#: game -> (seed, actions played before the frame)
POSITIONS = {"briscola5": (7, 14), "pigugnin": (7, 22), "picchetto": (7, 13)}


def frame(game: str, seed: int, steps: int):
    env = make_raw_env(game, render_mode="rgb_array")
    env.reset(seed=seed)
    players = [make_agent("heuristic", game, seed=seed + p) for p in range(len(env.possible_agents))]
    for _ in range(steps):
        agent = env.agent_selection
        env.step(players[env.agent_name_mapping[agent]].act(env.observe(agent)))
    return env.render()


if __name__ == "__main__":
    for game, (seed, steps) in POSITIONS.items():
        path = Path(__file__).with_name(f"render_{game}.png")
        image = Image.fromarray(frame(game, seed, steps))
        image.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)
        print(path)
