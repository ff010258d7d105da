"""`VectorEnv`: many games of one kind held in NumPy arrays and stepped by numba kernels.

Each game's `envs/<game>/batched.py` subclasses `VectorEnv` and supplies its kernels; this
module holds what is the same for every game: validation, seeding, explicit deals, the
seat-relative observation gather, state copies in and out. It imports numba, so it is
imported only by `vector_env()` (the AEC envs never need it).

The public entry is `envs.<game>_v0.vector_env(num_envs, threads=1, autoreset=True, step_obs=True, **flags)`:

| member | returns | notes |
|---|---|---|
| `reset(seed=None, options=None)` | `(obs, mask)` | `options`: None or one dict per game, anything the AEC env's `reset(options=...)` accepts |
| `step(actions, active=None)` | `(obs, mask, rewards, terminated, truncated, info)` | `actions`: int `(num_envs,)`, the action of the seat to act in each game; `active`: None (every game) or bool `(num_envs,)`, the games to step (the others, and their entries of `actions`, are left alone) |
| `deal(indices)` | None | a fresh episode, from its own stream, in each listed game (what a finished game gets by itself under `autoreset=True`) |
| `current_player` | int64 `(num_envs,)` | the absolute seat to act in each game |
| `observe(seats)` | float32 `(num_envs, obs_size)` | any seat's observation per game (an int or one seat per game) |
| `observe_rows(rows, seats, out=None)` | float32 `(len(rows), obs_size)` | the observation of seat `seats[k]` in game `rows[k]`, packed (no other game gathered) |
| `privileged(seats, out=None)` | float32 `(num_envs, privileged_size)` | what seat `seats[i]` cannot see in game `i`, seat-relative: for a critic in training, never for a player (layout below) |
| `get_state(i)` / `set_state(i, state)` | dict of arrays / None | copy one game out or in (search agents clone states) |
| `episode_result(i)` | dict | `autoreset=False`, a finished game: the AEC env's `info["result"]` of its episode without the per-hand records (the summary keys: totals, outcome ...) |

Arrays:

| name | dtype, shape | meaning |
|---|---|---|
| `obs` | float32 `(num_envs, obs_size)` | byte-identical to the AEC env's `observe(agent)["observation"]` for the seat now to act |
| `mask` | int8 `(num_envs, num_actions)` | that seat's action mask |
| `rewards` | float32 `(num_envs, num_players)` | what each absolute seat received in this step; over an episode they sum to the AEC return |
| `terminated`, `truncated` | bool `(num_envs,)` | the game ended in this step |
| `finished` | bool `(num_envs,)` | `autoreset=False` only: the game is over and held at its end until `deal` or `reset` |

The privileged vector (`privileged_size` floats per game; the table of each game is in its
`envs/<game>/privileged.py`, which also holds `privileged(game, state, seat)`, the pure-Python
reference on an AEC engine state):

| slice | meaning |
|---|---|
| `[D (k - 1), D k)`, k = 1 .. n - 1 | the current hand of seat `(seat + k) % n`: 1.0 per card id held (D: the deck size, 40 or 32) |
| `[D (n - 1), privileged_size)` | the game's other hidden state: Picchetto the opponent's discards, the undrawn talon and its order; nothing in Briscola and Pigugnìn |

A finished game is dealt again at once from its own seeded stream: the step that ends it
carries its final rewards, and the `obs` and `mask` it returns are the first of the next game.
The same seed gives the same deals, whatever else runs in the process.

With `autoreset=False` a finished game is held at its end instead: its buffer is the AEC
observer's at the end of the episode (so `observe(seat)` is any seat's final observation, and
`privileged(seat)` its final hidden state), its mask is all zeros, `finished[i]` is set and its
`current_player` means nothing; stepping it raises until `deal([i])` starts its next episode,
from the same stream, with the same cards `autoreset=True` would have dealt it at once. With
`active` a caller steps some games while others wait (the Gymnasium vector env of one seat,
`train/vector_single_seat.py`, steps the opponents' games while the learner's wait). With
`step_obs=False`, `step` does not write `obs` (it is then stale; `reset`, `deal` and `load` still
write it): a caller that needs only some views gathers them with `observe_rows`, once each.

Outputs are fresh arrays by default; set `copy_outputs = False` to receive the engine's own
buffers instead (faster; they are overwritten by the next call), as the batched trainer does.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba as nb
import numpy as np

from envs.core.errors import ConfigError, DealError, IllegalActionError
from envs.core.game import CardGame, Observer

__all__ = [
    "VectorEnv", "Shared", "first_illegal", "first_illegal_active", "gather_active", "gather_obs", "gather_one",
    "gather_into", "gather_rows", "gather_seats", "gather_tables", "rand_below", "seed_streams", "write_cards",
]


# -- kernels shared by every game ---------------------------------------------------------


@nb.njit(cache=True, inline="always")
def rand_below(rng: np.ndarray, i: int, n: int) -> int:
    """A uniform int in `0..n-1` from game `i`'s xorshift64* stream (`rng[i]` is its state)."""
    x = rng[i]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[i] = x
    return int((x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(33)) % n


@nb.njit(cache=True, nogil=True)
def gather_obs(buf: np.ndarray, gather: np.ndarray, seats: np.ndarray, obs: np.ndarray) -> None:
    """`obs[i] = buf[i][gather[seats[i]]]`: the seat-relative view of every game (reference form;
    the engines use the faster `gather_seats` on the same layout)."""
    size = obs.shape[1]
    for i in range(obs.shape[0]):
        g = gather[seats[i]]
        b = buf[i]
        o = obs[i]
        for j in range(size):
            o[j] = b[g[j]]


#: a contiguous run of at least this many values is copied as a block, shorter ones value by value
MIN_RUN = 8


def gather_tables(gather: np.ndarray, min_run: int = MIN_RUN) -> tuple[np.ndarray, ...]:
    """The per-seat gather index arrays `(num_players, obs_size)` as copy tables for `gather_one`.

    Most of an observation is whole fields that the rotation to the observer leaves contiguous
    (hands, card planes, the bids of a seat); copying those as blocks, and only the rest (the
    card-by-seat planes rotated inside each card) value by value, measured 2x faster than the
    plain gather. Returns `(runs, nruns, dst, src, nidx)`:

    | array | dtype, shape | meaning |
    |---|---|---|
    | `runs` | uint32 `(P, R, 3)` | seat `s`'s blocks: obs offset, buffer offset, length |
    | `nruns` | uint32 `(P,)` | how many rows of `runs[s]` are used |
    | `dst`, `src` | uint32 `(P, M)` | the single values: `obs[dst] = buf[src]` |
    | `nidx` | uint32 `(P,)` | how many of them |

    Unsigned indices spare numba's negative-index checks, which keep the loops from vectorizing.
    """
    blocks, singles = [], []
    for g in np.asarray(gather, dtype=np.int64):
        ends = np.flatnonzero(np.diff(g) != 1) + 1
        starts = np.concatenate(([0], ends))
        stops = np.concatenate((ends, [len(g)]))
        long_runs = [(a, g[a], b - a) for a, b in zip(starts, stops, strict=True) if b - a >= min_run]
        short = np.concatenate([np.arange(a, b) for a, b in zip(starts, stops, strict=True) if b - a < min_run]
                               or [np.zeros(0, dtype=np.int64)])
        blocks.append(long_runs)
        singles.append((short, g[short]))
    n = len(blocks)
    runs = np.zeros((n, max(1, max(map(len, blocks))), 3), dtype=np.uint32)
    width = max(1, max(len(d) for d, _ in singles))
    dst = np.zeros((n, width), dtype=np.uint32)
    src = np.zeros((n, width), dtype=np.uint32)
    for s in range(n):
        if blocks[s]:
            runs[s, : len(blocks[s])] = blocks[s]
        dst[s, : len(singles[s][0])] = singles[s][0]
        src[s, : len(singles[s][1])] = singles[s][1]
    nruns = np.array([len(b) for b in blocks], dtype=np.uint32)
    nidx = np.array([len(d) for d, _ in singles], dtype=np.uint32)
    return runs, nruns, dst, src, nidx


@nb.njit(cache=True, nogil=True, inline="always", _nrt=False)
def gather_into(k, i, seat, buf, out, runs, nruns, dst, src, nidx) -> None:
    """`out[k]` = seat `seat`'s view of `buf[i]`, from the tables of `gather_tables`."""
    for r in range(nruns[seat]):
        d = runs[seat, r, 0]
        s = runs[seat, r, 1]
        for j in range(runs[seat, r, 2]):
            out[k, d + j] = buf[i, s + j]
    for j in range(nidx[seat]):
        out[k, dst[seat, j]] = buf[i, src[seat, j]]


@nb.njit(cache=True, nogil=True, inline="always", _nrt=False)
def gather_one(i, seat, buf, obs, runs, nruns, dst, src, nidx) -> None:
    """`obs[i]` = seat `seat`'s view of `buf[i]`, from the tables of `gather_tables`."""
    gather_into(i, i, seat, buf, obs, runs, nruns, dst, src, nidx)


@nb.njit(cache=True, nogil=True, _nrt=False)
def gather_seats(buf, seats, obs, runs, nruns, dst, src, nidx) -> None:
    """`obs[i]` = seat `seats[i]`'s view of `buf[i]` for every game (`gather_obs`, faster)."""
    for i in range(obs.shape[0]):
        gather_one(i, seats[i], buf, obs, runs, nruns, dst, src, nidx)


@nb.njit(cache=True, nogil=True, inline="always", _nrt=False)
def write_cards(out, i, offset, cards, num_cards) -> None:
    """`out[i, offset + c]` = 1.0 if bit `c` of the card set `cards` is set, else 0.0, for `c < num_cards`."""
    for c in range(num_cards):
        out[i, offset + c] = np.float32((cards >> c) & 1)


@nb.njit(cache=True)
def first_illegal(mask: np.ndarray, actions: np.ndarray) -> int:
    """The first game whose action is out of range or not set in its mask row, or -1."""
    num_actions = mask.shape[1]
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= num_actions or mask[i, a] != 1:
            return i
    return -1


@nb.njit(cache=True)
def first_illegal_active(mask: np.ndarray, actions: np.ndarray, active: np.ndarray) -> int:
    """`first_illegal` among the games with `active[i]`."""
    num_actions = mask.shape[1]
    for i in range(actions.shape[0]):
        a = actions[i]
        if active[i] and (a < 0 or a >= num_actions or mask[i, a] != 1):
            return i
    return -1


@nb.njit(cache=True, nogil=True, _nrt=False)
def gather_rows(buf, rows, seats, out, runs, nruns, dst, src, nidx) -> None:
    """`out[k]` = seat `seats[k]`'s view of game `rows[k]` (packed: one output row per listed game)."""
    for k in range(rows.shape[0]):
        gather_into(k, rows[k], seats[k], buf, out, runs, nruns, dst, src, nidx)


@nb.njit(cache=True, nogil=True, _nrt=False)
def gather_active(buf, seats, active, obs, runs, nruns, dst, src, nidx) -> None:
    """`gather_seats` for the games with `active[i]` only."""
    for i in range(obs.shape[0]):
        if active[i]:
            gather_one(i, seats[i], buf, obs, runs, nruns, dst, src, nidx)


class Shared:
    """An argument of `VectorEnv._run` that every chunk of games gets whole (not sliced by game)."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value


_POOLS: dict[int, ThreadPoolExecutor] = {}


def _pool(threads: int) -> ThreadPoolExecutor:
    """One executor per thread count, shared by every VectorEnv (the caller's thread runs a chunk too)."""
    if threads not in _POOLS:
        _POOLS[threads] = ThreadPoolExecutor(max_workers=threads - 1, thread_name_prefix="mazzo-vector")
    return _POOLS[threads]


def seed_streams(seed: int | None, count: int) -> np.ndarray:
    """`count` non-zero uint64 stream states derived from `seed` (None: fresh entropy)."""
    states = np.random.SeedSequence(seed).generate_state(count, dtype=np.uint64)
    states[states == 0] = np.uint64(0x9E3779B97F4A7C15)  # xorshift must not start at 0
    return states


class VectorEnv:
    """Base of the batched engines; subclasses set the class attributes and the hooks below.

    Hooks (each game's `batched.py`):

    * `_allocate(num_envs)` -> dict of state arrays, first axis the game index;
    * `_deal(indices)`: start a fresh episode in the listed games from their streams
      (writes the state, `buf`, `current_player` and `mask`);
    * `_load(i, state)`: copy an AEC engine state (made by `game.new_state`) into game `i`;
    * `_step(actions, active=None)`: apply one action per game `i` with `active[i]` (None: every game; legal:
      checked here), write `buf`, `rewards`, `terminated`, `truncated`, `current_player`, `mask` (and `obs`
      when `obs_in_step` and `step_obs`), and re-deal finished games, or, when `self.autoreset` is False,
      hold them: the buffer of the final state (the AEC observer's at the end), an all-zero mask, a valid
      seat in `current_player`;
    * `_privileged(seats, out)`: write the privileged vector of `seats[i]` in game `i` into `out[i]`
      (`privileged_size` floats, the layout of `envs/<game>/privileged.py`);
    * `_episode_result(i)`: the summary of the finished episode held in game `i` (`episode_result`).
    """

    game_class: type[CardGame]
    observer_class: type[Observer]
    #: True when `_step` writes `obs` itself (each game's view gathered right after its move, while its
    #: buffer row is still in cache); otherwise the base gathers every game after `_step`
    obs_in_step: bool = False
    #: flags whose non-default values the engine cannot play: {flag: why}
    unsupported: dict[str, str] = {}
    #: floats per game of `privileged()` (the layout: `envs/<game>/privileged.py`)
    privileged_size: int = 0

    def __init__(self, num_envs: int, threads: int = 1, autoreset: bool = True, step_obs: bool = True, **flags: Any):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ConfigError(f"num_envs must be an int >= 1; got {num_envs!r}")
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
            raise ConfigError(f"threads must be an int >= 1 (games stepped on that many cores at once); got {threads!r}")
        if not isinstance(autoreset, (bool, np.bool_)):
            raise ConfigError(f"autoreset must be True (a finished game is dealt again at once) or False (it waits "
                              f"for deal()); got {autoreset!r}")
        #: True: a finished game is dealt again in the step that ends it; False: it is held until `deal`
        self.autoreset = bool(autoreset)
        if not isinstance(step_obs, (bool, np.bool_)):
            raise ConfigError(f"step_obs must be True (step() writes `obs`) or False (it does not); got {step_obs!r}")
        #: False: `step` leaves `obs` unwritten (callers gather the views they need with `observe_rows`)
        self.step_obs = bool(step_obs)
        #: `step` runs the kernels over this many contiguous chunks of games at once (numba releases the GIL);
        #: every game only touches its own rows, so the results do not depend on it.
        self.threads = min(int(threads), int(num_envs))
        self.game = self.game_class(**flags)  # the AEC engine validates the flags: same errors
        self.flags = self.game.flags
        self._check_supported()
        self._observer = self.observer_class(self.game)
        layout = self._observer.layout
        self.layout = layout
        self.num_envs = int(num_envs)
        self.num_players = self.game.num_players
        self.num_actions = self.game.num_actions
        self.obs_size = layout.obs_size
        self.gather = np.ascontiguousarray(np.stack(layout.gather).astype(np.int64))
        #: `gather_tables(self.gather)`: the same gather as block copies (what the kernels use)
        self.gather_tables = gather_tables(self.gather)
        n, b = self.num_players, self.num_envs
        self.buf = np.zeros((b, layout.abs_size), dtype=np.float32)
        self.obs = np.zeros((b, self.obs_size), dtype=np.float32)
        self.mask = np.zeros((b, self.num_actions), dtype=np.int8)
        self.rewards = np.zeros((b, n), dtype=np.float32)
        self.terminated = np.zeros(b, dtype=np.bool_)
        self.truncated = np.zeros(b, dtype=np.bool_)
        self.current_player = np.zeros(b, dtype=np.int64)
        self.finished = np.zeros(b, dtype=np.bool_)
        self._every_game = np.ones(b, dtype=np.bool_)  # `active` of a step of every game
        self.rng = seed_streams(None, b)
        self.state = self._allocate(b)
        self.copy_outputs = True
        self._ready = False

    # -- hooks --------------------------------------------------------------------------
    def _allocate(self, num_envs: int) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def _deal(self, indices: np.ndarray) -> None:
        raise NotImplementedError

    def _load(self, i: int, state: Any) -> None:
        raise NotImplementedError

    def _step(self, actions: np.ndarray, active: np.ndarray | None = None) -> None:
        raise NotImplementedError

    def _privileged(self, seats: np.ndarray, out: np.ndarray) -> None:
        raise NotImplementedError

    def _episode_result(self, i: int) -> dict[str, Any]:
        raise NotImplementedError

    # -- API ----------------------------------------------------------------------------
    def _check_supported(self) -> None:
        for flag, why in self.unsupported.items():
            default = next(f.default for f in self.game.FLAGS if f.name == flag)
            if self.flags[flag] != default:
                raise ConfigError(
                    f"{self.game.name}: vector_env cannot play {flag}={self.flags[flag]!r} ({why}); "
                    f"use env() for it, or {flag}={default!r}"
                )

    def reset(self, seed: int | None = None, options: Sequence[dict | None] | None = None):
        setups = self._parse_options(options)  # validate everything before touching any game
        self.rng = seed_streams(seed, self.num_envs)
        self.rewards[:] = 0.0
        self.terminated[:] = False
        self.truncated[:] = False
        self.finished[:] = False
        dealt = np.array([i for i, s in enumerate(setups) if s is None], dtype=np.int64)
        if len(dealt):
            self._deal(dealt)
        for i, setup in enumerate(setups):
            if setup is not None:
                # An explicit deal is built by the AEC engine itself, seeded from this game's stream.
                rng = np.random.default_rng(int(self.rng[i]))
                self._copy_in(i, self.game.new_state(rng, setup))
        self._ready = True
        gather_seats(self.buf, self.current_player, self.obs, *self.gather_tables)
        return self._out(self.obs), self._out(self.mask)

    def _parse_options(self, options: Sequence[dict | None] | None) -> list:
        if options is None:
            return [None] * self.num_envs
        if isinstance(options, dict) or not hasattr(options, "__len__") or len(options) != self.num_envs:
            raise DealError(
                f"{self.game.name}: vector_env options must be None or a list of {self.num_envs} dicts "
                f"(one per game, None for a random deal); got {type(options).__name__}"
            )
        setups = []
        for i, opt in enumerate(options):
            if opt is None:
                setups.append(None)
                continue
            try:
                setups.append(self.game.parse_options(opt))
            except DealError as err:
                raise DealError(f"game {i}: {err}") from None
        return setups

    def _run(self, kernel: Any, *args: Any) -> None:
        """`kernel(*args)` over every game, split into `threads` chunks run at once. Array arguments are
        sliced by game (first axis); wrap the ones every game shares (flag tables) in `Shared`."""
        if self.threads == 1:
            kernel(*(a.value if isinstance(a, Shared) else a for a in args))
            return
        bounds = np.linspace(0, self.num_envs, self.threads + 1).astype(int)
        chunks = [
            tuple(a.value if isinstance(a, Shared) else a[lo:hi] for a in args)
            for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)
        ]
        pending = [_pool(self.threads).submit(kernel, *chunk) for chunk in chunks[1:]]
        kernel(*chunks[0])
        for job in pending:
            job.result()

    def step(self, actions: Any, active: Any = None):
        if not self._ready:
            raise RuntimeError(f"{self.game.name}: vector_env.step() before reset(); call reset() first")
        on = self._check_active(active)
        acts = self._check_actions(actions, on)
        self.rewards[:] = 0.0
        self.terminated[:] = False
        self.truncated[:] = False
        self._step(acts, self._every_game if on is None else on)
        if not self.autoreset:
            self.finished |= self.terminated | self.truncated
        if self.step_obs and not self.obs_in_step:
            if on is None:
                self._run(gather_seats, self.buf, self.current_player, self.obs, *map(Shared, self.gather_tables))
            else:
                gather_active(self.buf, self.current_player, on, self.obs, *self.gather_tables)
        return (
            self._out(self.obs), self._out(self.mask), self._out(self.rewards),
            self._out(self.terminated), self._out(self.truncated), {},
        )

    def _check_active(self, active: Any) -> np.ndarray | None:
        if active is None:
            return None
        on = np.asarray(active)
        if on.dtype != np.bool_ or on.shape != (self.num_envs,):
            raise ConfigError(f"{self.game.name}: active must be None or a bool array of shape ({self.num_envs},) "
                              f"(the games to step); got {on.dtype} {on.shape}")
        return np.ascontiguousarray(on)

    def _check_actions(self, actions: Any, active: np.ndarray | None = None) -> np.ndarray:
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalActionError(
                f"{self.game.name}: actions must be an int array of shape ({self.num_envs},); "
                f"got {acts.dtype} {acts.shape}"
            )
        acts = acts.astype(np.int64)
        if not self.autoreset:
            held = self.finished if active is None else self.finished & active
            if held.any():
                i = int(np.flatnonzero(held)[0])
                raise IllegalActionError(
                    f"{self.game.name}: game {i} is over (autoreset=False holds it): deal([{i}]) or reset() "
                    f"starts its next episode, or leave it out of `active` (no game was changed)"
                )
        i = first_illegal(self.mask, acts) if active is None else first_illegal_active(self.mask, acts, active)
        if i >= 0:
            names = ", ".join(f"{a} ({self.game.action_name(int(a))})" for a in np.flatnonzero(self.mask[i]))
            raise IllegalActionError(
                f"{self.game.name}: game {i}: action {int(acts[i])} is not legal for player_"
                f"{int(self.current_player[i])}; legal actions: {names} (no game was changed)"
            )
        return acts

    def _seats(self, seats: Any) -> np.ndarray:
        """`seats` (one int for every game, or one per game) as a contiguous int64 `(num_envs,)` array, checked."""
        arr = np.asarray(seats)
        if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer) or arr.shape not in ((), (self.num_envs,)):
            raise ConfigError(f"{self.game.name}: seats must be an int or {self.num_envs} ints (one per game); "
                              f"got {seats!r}")
        seat = np.ascontiguousarray(np.broadcast_to(arr.astype(np.int64), (self.num_envs,)))
        if ((seat < 0) | (seat >= self.num_players)).any():
            raise ConfigError(f"{self.game.name}: seats must be 0..{self.num_players - 1}; got {seats!r}")
        return seat

    def observe(self, seats: Any) -> np.ndarray:
        """The observation of `seats` (one int for every game, or one seat per game)."""
        out = np.empty((self.num_envs, self.obs_size), dtype=np.float32)
        gather_seats(self.buf, self._seats(seats), out, *self.gather_tables)
        return out

    def observe_rows(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of seat `seats[k]` in game `rows[k]`, packed into `out[k]` (float32 `(len(rows), obs_size)`;
        `out` may be larger: its first rows are written). Int arrays of equal length; unchecked beyond their types
        (a fast path for callers that made the indices themselves)."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        seats = np.ascontiguousarray(seats, dtype=np.int64)
        if out is None:
            out = np.empty((len(rows), self.obs_size), dtype=np.float32)
        gather_rows(self.buf, rows, seats, out, *self.gather_tables)
        return out[: len(rows)]

    def privileged(self, seats: Any, out: np.ndarray | None = None) -> np.ndarray:
        """What seat `seats[i]` cannot see in game `i` (one int for every game, or one seat per game), seat-relative:
        float32 `(num_envs, privileged_size)`, the layout of `envs/<game>/privileged.py` (module docstring).

        For a critic in training (an oracle value function), never for a player: a policy that reads it cheats.
        `out`, if given, is a C-contiguous float32 array of that shape, filled and returned (no allocation).
        """
        seat = self._seats(seats)
        shape = (self.num_envs, self.privileged_size)
        if out is None:
            out = np.empty(shape, dtype=np.float32)
        elif not (isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == shape
                  and out.flags.c_contiguous and out.flags.writeable):
            got = f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
            raise ConfigError(f"{self.game.name}: privileged(out=...) must be a writable C-contiguous float32 array of "
                              f"shape {shape}; got {got}")
        self._privileged(seat, out)
        return out

    def deal(self, indices: Any) -> None:
        """A fresh episode in each listed game, from its own stream (the cards `autoreset=True` would have dealt it
        when its last episode ended); the games' `obs`, `mask` and `current_player` are those of the new deal."""
        if not self._ready:
            raise RuntimeError(f"{self.game.name}: vector_env.deal() before reset(); call reset() first")
        idx = np.asarray(indices)
        if idx.ndim != 1 or (idx.size and not np.issubdtype(idx.dtype, np.integer)) or idx.dtype == np.bool_:
            raise ConfigError(f"{self.game.name}: deal() takes a list of game indices; got {indices!r}")
        idx = np.ascontiguousarray(idx, dtype=np.int64)
        if ((idx < 0) | (idx >= self.num_envs)).any() or len(np.unique(idx)) != len(idx):
            raise ConfigError(f"{self.game.name}: deal() takes distinct game indices 0..{self.num_envs - 1}; "
                              f"got {indices!r}")
        if not len(idx):
            return
        self.rewards[idx] = 0.0
        self.terminated[idx] = False
        self.truncated[idx] = False
        self.finished[idx] = False
        self._deal(idx)
        on = np.zeros(self.num_envs, dtype=np.bool_)
        on[idx] = True
        gather_active(self.buf, self.current_player, on, self.obs, *self.gather_tables)

    def episode_result(self, i: int) -> dict[str, Any]:
        """The result of the finished episode held in game `i` (`autoreset=False`): the keys of the AEC env's
        `info["result"]` (`game.result`) but its per-hand (and per-game) records, which the engine does not keep."""
        if not (0 <= i < self.num_envs and self.finished[i]):
            raise ConfigError(f"{self.game.name}: episode_result({i!r}) needs a finished game held at its end "
                              f"(autoreset=False, finished[i] set)")
        return self._episode_result(int(i))

    def get_state(self, i: int) -> dict[str, np.ndarray]:
        """A copy of game `i` (every state array, its observation buffer and its random stream)."""
        out = {name: arr[i].copy() for name, arr in self.state.items()}
        out["_buf"] = self.buf[i].copy()
        out["_rng"] = self.rng[i : i + 1].copy()
        out["_current_player"] = self.current_player[i : i + 1].copy()
        out["_mask"] = self.mask[i].copy()
        out["_finished"] = self.finished[i : i + 1].copy()
        return out

    def set_state(self, i: int, state: dict[str, np.ndarray]) -> None:
        """Overwrite game `i` with a copy made by `get_state` (of this or another VectorEnv of the same flags)."""
        missing = [k for k in (*self.state, "_buf", "_rng", "_current_player", "_mask") if k not in state]
        if missing:
            raise ConfigError(f"{self.game.name}: set_state needs a get_state() dict; missing {missing}")
        for name, arr in self.state.items():
            arr[i] = state[name]
        self.buf[i] = state["_buf"]
        self.rng[i] = state["_rng"][0]
        self.current_player[i] = state["_current_player"][0]
        self.mask[i] = state["_mask"]
        self.finished[i] = bool(state["_finished"][0]) if "_finished" in state else False
        self._ready = True
        self._gather_game(i)

    def _copy_in(self, i: int, state: Any) -> None:
        """Game `i` becomes the AEC engine state: its observation buffer rebuilt, its arrays copied."""
        self._observer.reset(state)
        self.buf[i] = self._observer.buf
        self._load(i, state)

    def load(self, i: int, state: Any) -> None:
        """Copy an AEC engine state (`game.new_state`, then any number of `game.apply`) into game `i`.

        Any point of an episode, mid-hand included (the search players load determinized worlds
        this way). The state is read, never kept; the random stream of game `i` is left as it is.
        """
        if not 0 <= i < self.num_envs:
            raise ConfigError(f"{self.game.name}: game index must be 0..{self.num_envs - 1}; got {i!r}")
        self._copy_in(i, state)
        self.rewards[i] = 0.0
        self.terminated[i] = False
        self.truncated[i] = False
        self.finished[i] = False
        self._ready = True
        self._gather_game(i)

    def _gather_game(self, i: int) -> None:
        gather_seats(self.buf[i : i + 1], self.current_player[i : i + 1], self.obs[i : i + 1], *self.gather_tables)

    def _out(self, arr: np.ndarray) -> np.ndarray:
        return arr.copy() if self.copy_outputs else arr
