"""Opponents of the batched trainer (``train/ppo_batched.py``): players that act on many games at once.

The interface, ``OpponentPolicy``: one call decides for every game in which this opponent is to act.

| member | what |
|---|---|
| ``name`` | a short label for logs (optional) |
| ``act(obs, mask)`` | ``obs``: float32 ``(k, obs_size)``, ``mask``: int8 ``(k, num_actions)``, ``k >= 1`` rows; returns int64 ``(k,)``, a legal action per row |

Each row is one game's observation of the seat now to act (seat-relative, byte-identical to the AEC
env's ``observe(agent)["observation"]``) and its mask; rows of different games and seats come in any
order, and the arrays are the caller's (copy what you keep). An opponent decides from the row alone,
as every Mazzo player does (heuristics read ``decode(obs)``, never the env), so it keeps no per-game
memory. Its randomness comes from its own generator, seeded at construction: the same seed and the
same calls give the same actions.

| spec | opponent |
|---|---|
| ``random`` | ``MaskedRandom``: uniform over the legal actions of each row (NumPy) |
| ``heuristic`` | the game's batched heuristic (see below; all three games have one), else ``AgentRows`` over the Python heuristic |
| ``heuristic-python`` | ``AgentRows`` over the Python heuristic (``make_agent("heuristic", game)``), whatever exists |
| ``heuristic-v1`` | the frozen numba port of the 0.1 heuristic (``GameSpec.batched_heuristic_v1``, ``agents/legacy/``) |
| ``plain``, ``ducking``, ``greedy`` | ``AgentRows`` over that Python player (``agents/registry.py``): row by row, slow |
| ``ppo:PATH``, ``pretrained:GAME`` | ``ActorRows`` over the checkpoint's actor (safe format), greedy like ``make_agent`` |
| (self-play snapshots) | ``ActorRows`` over a frozen copy of the learner's actor, sampling its policy |

The search players (``pimc``, ``ismcts``) are not opponents here: they remember their seat's episode
(``agents/search``), and rows of many games arrive in any order.

Batched heuristics (numba ports, ``agents/batched/<game>.py``): ``heuristic`` uses the class named by the
game's ``GameSpec.batched_heuristic`` (``heuristic-v1``: ``GameSpec.batched_heuristic_v1``) when it has one,
built as ``Class(game, seed=seed, flags=flags)`` (the Python heuristics' signature plus the game flags) and
used through ``act(obs, mask)``
exactly like any ``OpponentPolicy``: the trainer did not change when the ports landed. ``AgentRows``
calls the Python agent once per row (decoding the observation): the same decisions, and the
bottleneck of training against heuristics (``benchmarks/train_speed.py`` measures both).

This module imports torch only to build ``ActorRows``.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol, runtime_checkable

import numpy as np

from envs.core.errors import ConfigError
from envs.registry import game_spec

__all__ = ["OpponentPolicy", "MaskedRandom", "AgentRows", "ActorRows", "make_opponent", "batched_heuristic_class",
           "OPPONENT_SPECS"]

OPPONENT_SPECS = ("random", "heuristic", "heuristic-python", "heuristic-v1", "plain", "ppo:PATH", "pretrained:GAME")


@runtime_checkable
class OpponentPolicy(Protocol):
    """Acts in many games at once (see the module docstring)."""

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray: ...


class MaskedRandom:
    """Uniform over each row's legal actions: the argmax of uniform noise on the legal entries."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        noise = self.rng.random(mask.shape, dtype=np.float32) + 1.0  # in [1, 2): a legal entry beats every illegal 0
        return np.argmax(noise * (mask != 0), axis=1).astype(np.int64)


class AgentRows:
    """Any per-observation player (the Agent protocol, ``act(obs_dict)``), called once per row."""

    def __init__(self, agent: Any, name: str | None = None):
        self.agent = agent
        self.name = name or str(getattr(agent, "name", type(agent).__name__))

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        act = self.agent.act
        return np.fromiter((act({"observation": o, "action_mask": m}) for o, m in zip(obs, mask, strict=True)),
                           dtype=np.int64, count=len(obs))


class ActorRows:
    """A policy network (the safe checkpoint's actor: ``logits = actor(obs)``): greedy or sampled, batched.

    Greedy: the most probable legal action, computed as ``TrainedAgent`` does (``masked_probs``, first of
    equal maxima). Sampled: ``gumbel_max`` or ``sample_masked`` (``sampling``) on the masked logits with its own
    seeded generator.
    """

    def __init__(self, actor: Any, name: str, greedy: bool, seed: int | None = None, sampling: str = "gumbel"):
        import torch

        self.actor, self.name, self.greedy = actor, name, greedy
        self.sample = SAMPLERS[sampling]
        self.gen = torch.Generator().manual_seed(int(seed or 0))

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        import torch

        from agents.checkpoint import HUGE_NEG, masked_probs

        with torch.inference_mode():
            logits = self.actor(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)))
            legal = torch.from_numpy(np.ascontiguousarray(mask)) != 0
            if self.greedy:
                return masked_probs(logits, legal).argmax(-1).numpy().astype(np.int64)
            if self.sample is gumbel_max:  # the same draws, on the legal logits only
                return gumbel_max_legal(logits.masked_fill(~legal, HUGE_NEG), legal, self.gen).numpy().astype(np.int64)
            return self.sample(logits.masked_fill(~legal, HUGE_NEG), self.gen).numpy().astype(np.int64)


def gumbel_max(logits: Any, generator: Any) -> Any:
    """One action per row of masked ``logits``, drawn from their softmax by Gumbel-max (an exponential per logit)."""
    import torch

    noise = torch.empty(logits.shape).exponential_(generator=generator).log_()
    return (logits - noise).argmax(-1)


# -- Gumbel-max on the legal actions only, bit for bit torch's ----------------------------------------------------
#
# ``gumbel_max`` draws an exponential per logit with ``Tensor.exponential_(generator)``: on CPU, torch's default
# kernel takes, for every element in order, one ``random64()`` of the generator's MT19937 (two 32-bit outputs, the
# first the high half), ``u = (r & (2**53 - 1)) * 2**-53`` and ``float(-log1p(-u))`` in double; ``log_`` then
# runs MKL's vsLn on the float32 array. ``gumbel_max_legal`` advances the same MT19937 (read from and written back
# to the torch generator's state) by the same two outputs per element, but computes the exponential, its log and
# the difference only for the legal actions (a few of Briscola's 143): the same actions and the same generator
# state after, several times faster. An illegal action's noisy logit (-1e8 minus a log in [-37, 4]) never wins
# unless its exponential is exactly 0, a chance of 2**-53 per element, where torch's own draw would pick an illegal
# action. The first call checks itself against torch on a copy of the generator and falls back to ``gumbel_max``
# for good if they differ (another torch, another kernel).

_MT_STATE_BYTES, _MT_OFFSET = 5056, 24  # CPUGeneratorImplState: seed u64, left i32, seeded i32, next u64, state[624] u64, ...


def _gumbel_legal_py(mt: np.ndarray, pos: np.ndarray, legal: np.ndarray, e_out: np.ndarray,
                     idx_out: np.ndarray) -> int:  # pragma: no cover - compiled by numba
    left, nxt = pos[0], pos[1]
    upper, lower, matrix = np.uint32(0x80000000), np.uint32(0x7FFFFFFF), np.uint32(0x9908B0DF)
    mask53, scale = np.uint64((1 << 53) - 1), 1.0 / 9007199254740992.0
    k = 0
    for i in range(legal.size):
        hi = np.uint32(0)
        for half in range(2):
            left -= 1
            if left == 0:  # MT19937's twist, as torch's mt19937 next_state()
                for j in range(624):
                    j1 = j + 1 if j < 623 else 0
                    jm = j + 397 if j < 227 else j - 227
                    y = (mt[j] & upper) | (mt[j1] & lower)
                    x = mt[jm] ^ (y >> np.uint32(1))
                    if mt[j1] & np.uint32(1):
                        x ^= matrix
                    mt[j] = x
                left, nxt = 624, 0
            y = mt[nxt]
            nxt += 1
            y ^= y >> np.uint32(11)
            y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
            y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
            y ^= y >> np.uint32(18)
            if half == 0:
                hi = y
            elif legal[i]:
                r = (np.uint64(hi) << np.uint64(32)) | np.uint64(y)
                u = np.float64(r & mask53) * scale
                e_out[k] = np.float32(-1.0 * np.log1p(-u))
                idx_out[k] = i
                k += 1
    pos[0], pos[1] = left, nxt
    return k


def _argmax_rows_py(logits: np.ndarray, idx: np.ndarray, noise: np.ndarray, k: int, num_actions: int,
                    out: np.ndarray) -> None:  # pragma: no cover - compiled by numba
    best = np.empty(out.size, dtype=np.float32)
    out[:] = -1
    for j in range(k):
        i = idx[j]
        r = i // num_actions
        v = np.float32(logits[i] - noise[j])
        if out[r] < 0 or v > best[r]:  # the first of equal maxima, as argmax
            best[r] = v
            out[r] = i - r * num_actions


_FAST: dict[str, Any] = {}


def _fast_kernels() -> tuple[Any, Any] | None:
    """The compiled kernels, or None when the fast path is off (no numba, or it disagreed with torch once)."""
    if "kernels" not in _FAST:
        try:
            import numba as nb
        except ImportError:
            _FAST["kernels"] = None
        else:
            _FAST["kernels"] = (nb.njit(cache=True, nogil=True)(_gumbel_legal_py),
                                nb.njit(cache=True, nogil=True)(_argmax_rows_py))
            _FAST["kernels"] = _FAST["kernels"] if _self_check() else None
    return _FAST["kernels"]


def _fast_draw(kernels: tuple[Any, Any], logits: Any, legal: Any, generator: Any) -> Any:
    import torch

    state = generator.get_state().numpy().copy()
    if state.size != _MT_STATE_BYTES:
        return None
    mt = state[_MT_OFFSET: _MT_OFFSET + 624 * 8].view(np.uint64).astype(np.uint32)
    pos = np.array([state[8:12].view(np.int32)[0], state[16:24].view(np.uint64)[0]], dtype=np.int64)
    rows, num_actions = logits.shape
    legal_np = np.ascontiguousarray(legal.numpy()).reshape(-1)
    e = np.empty(legal_np.size, dtype=np.float32)
    idx = np.empty(legal_np.size, dtype=np.int64)
    k = kernels[0](mt, pos, legal_np, e, idx)
    state[8:12] = np.array([pos[0]], dtype=np.int32).view(np.uint8)
    state[16:24] = np.array([pos[1]], dtype=np.uint64).view(np.uint8)
    state[_MT_OFFSET: _MT_OFFSET + 624 * 8] = mt.astype(np.uint64).view(np.uint8)
    generator.set_state(torch.from_numpy(state))
    noise = torch.from_numpy(e[:k]).log_()  # torch's own log (MKL's vsLn), as gumbel_max's log_
    out = np.empty(rows, dtype=np.int64)
    kernels[1](np.ascontiguousarray(logits.numpy()).reshape(-1), idx, noise.numpy(), k, num_actions, out)
    return torch.from_numpy(out)


def _self_check() -> bool:
    import torch

    kernels = _FAST["kernels"]
    rng = np.random.default_rng(0)
    for rows, share in ((1, 1.0), (37, 0.1), (700, 0.05), (5, 0.5)):  # 700 x 143 > 624 draws: the twist runs
        legal = torch.from_numpy(rng.random((rows, 143)) < share)
        legal[:, 0] |= ~legal.any(1)
        logits = torch.from_numpy(rng.normal(size=(rows, 143)).astype(np.float32)).masked_fill(~legal, -1e8)
        g1, g2 = torch.Generator().manual_seed(rows), torch.Generator().manual_seed(rows)
        for _ in range(3):
            fast = _fast_draw(kernels, logits, legal, g2)
            if fast is None or not torch.equal(fast, gumbel_max(logits, g1)) or not torch.equal(g1.get_state(),
                                                                                              g2.get_state()):
                return False
    return True


def gumbel_max_legal(logits: Any, legal: Any, generator: Any) -> Any:
    """``gumbel_max(logits, generator)`` for logits masked to ``HUGE_NEG`` outside the bool ``legal`` (every row
    with a legal action): the same actions, the generator left in the same state, faster (see above)."""
    import torch

    kernels = _fast_kernels()
    if kernels is not None and logits.dtype == torch.float32 and logits.dim() == 2 and legal.dtype == torch.bool:
        out = _fast_draw(kernels, logits.contiguous(), legal.contiguous(), generator)
        if out is not None:
            return out
    return gumbel_max(logits, generator)


def sample_masked(logits: Any, generator: Any, uniform: Any = None) -> Any:
    """One action per row of masked ``logits`` (illegal ones at ``HUGE_NEG``), drawn from their softmax.

    Inverse CDF with one uniform ``u`` per row (``uniform``, else drawn from ``generator``): the first
    action whose cumulative probability exceeds ``u`` times the row's total. An action of probability 0
    never raises the cumulative sum, so it is never the first to exceed it, even at ``u = 0``; rounding
    at ``u`` near 1 is clamped to the row's last action of positive probability. 5x faster than
    Gumbel-max, which draws an exponential per logit (measured at 150 rows x 102 actions).
    """
    import torch

    probs = torch.softmax(logits, -1)
    cdf = probs.cumsum(-1)
    if uniform is None:
        uniform = torch.rand((logits.shape[0],), generator=generator, dtype=cdf.dtype)
    picked = (cdf <= (uniform * cdf[:, -1])[:, None]).sum(-1)
    last_possible = (probs > 0).cumsum(-1).argmax(-1)  # argmax: the first column where the count peaks
    return torch.minimum(picked, last_possible)


#: how the batched trainer draws sampled actions (``Args.sampling``)
SAMPLERS = {"gumbel": gumbel_max, "inverse_cdf": sample_masked}


def batched_heuristic_class(game: str, kind: str = "batched_heuristic") -> type | None:
    """The numba heuristic named by the game's ``GameSpec.batched_heuristic`` (``kind="batched_heuristic_v1"``:
    the 0.1 port), or None when the game has none."""
    path = getattr(game_spec(game), kind)
    if path is None:
        return None
    module, _, cls_name = path.partition(":")
    cls = getattr(importlib.import_module(module), cls_name, None)
    if cls is None:
        raise ConfigError(f"{module} exists but defines no {cls_name} (GameSpec.{kind} of {game})")
    return cls


def make_opponent(spec: str, game: str, flags: dict[str, Any], seed: int) -> Any:
    """The ``OpponentPolicy`` of an opponent spec (see the module table); ``ConfigError`` if unknown."""
    from agents.registry import PLAIN_ALIASES, make_agent

    if not isinstance(spec, str):
        raise ConfigError(f"an opponent must be an agent spec string; got {spec!r}")
    if spec == "random":
        return MaskedRandom(seed)
    if spec in ("heuristic", "heuristic-python"):
        cls = batched_heuristic_class(game) if spec == "heuristic" else None
        if cls is not None:
            return cls(game, seed=seed, flags=dict(flags))
        return AgentRows(make_agent("heuristic", game, seed=seed), name=spec)
    if spec == "heuristic-v1":
        cls = batched_heuristic_class(game, "batched_heuristic_v1")
        if cls is None:
            raise ConfigError(f"opponent 'heuristic-v1' is not available for {game} (no GameSpec.batched_heuristic_v1)")
        return cls(game, seed=seed, flags=dict(flags))
    kind, _, arg = spec.partition(":")
    if kind in ("ppo", "pretrained") and arg:
        agent = make_agent(spec, game, seed=seed, flags=dict(flags))  # the safe loader and its checks
        return ActorRows(agent.actor, name=spec, greedy=True, seed=seed)
    if spec == "plain" or spec in PLAIN_ALIASES:
        return AgentRows(make_agent(spec, game, seed=seed), name=spec)
    raise ConfigError(f"unknown opponent {spec!r}; known opponents: {', '.join(OPPONENT_SPECS)}")
