"""`BatchedHeuristic`: what every numba heuristic port shares (checks, errors, the agent protocol).

A port subclasses it, sets `game` and `num_actions`, maps each accepted observation width to
the constants its kernel needs (`_consts_for_width`), and runs its kernel in `_decide`.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from envs.core.errors import ConfigError

__all__ = ["BatchedHeuristic", "first_legal"]


@nb.njit(cache=True, inline="always")
def first_legal(m: np.ndarray) -> int:
    """The lowest legal action id of a mask row, or -1 (the plain players' and the heuristics' fallback)."""
    for a in range(m.shape[0]):
        if m[a] != 0:
            return a
    return -1


class BatchedHeuristic:
    """The heuristic over many rows at once: an `OpponentPolicy` of the batched trainer.

    Built like the Python heuristic plus the game flags (`Class(game, seed=seed, flags=flags)`);
    the flags and the seed do not change a decision (the legal ids come from the mask, and the
    heuristics draw no random numbers).
    """

    name = "heuristic"
    game: str
    num_actions: int

    def __init__(self, game: str | None = None, seed: int | None = None, flags: dict[str, Any] | None = None,
                 **_: Any):
        if game is not None and game != self.game:
            raise ConfigError(f"{type(self).__name__} plays {self.game}, not {game!r}")
        self.flags = dict(flags or {})

    # -- the port's part ----------------------------------------------------------------
    def _widths(self) -> dict[int, str]:
        """Accepted observation widths -> how to name them in an error message."""
        raise NotImplementedError

    def _decide(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        """Write one action per row into `out` (-1 where a mask row is all zeros)."""
        raise NotImplementedError

    # -- shared ---------------------------------------------------------------------------
    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One int64 action per row of float32 observations and int8 masks of the seats to act."""
        obs = np.ascontiguousarray(obs, dtype=np.float32)
        mask = np.ascontiguousarray(mask, dtype=np.int8)
        widths = self._widths()
        if obs.ndim != 2 or obs.shape[1] not in widths or mask.shape != (obs.shape[0], self.num_actions):
            allowed = " or ".join(f"{w}{f' ({d})' if d else ''}" for w, d in widths.items())
            raise ValueError(f"expected observations ({obs.shape[0] if obs.ndim else '?'}, {allowed}) and masks "
                             f"(same rows, {self.num_actions}); got {obs.shape} and {mask.shape}")
        out = np.empty(obs.shape[0], dtype=np.int64)
        self._decide(obs, mask, out)
        if out.size and out.min() < 0:
            row = int(np.flatnonzero(out < 0)[0])
            raise ValueError(f"row {row}: the action mask is all zeros: this seat is not to act (or the episode is over)")
        return out

    def reset(self) -> None:
        pass

    def seed(self, seed: int | None) -> None:
        pass

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r})"
