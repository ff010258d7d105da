"""How a policy's sampled actions are drawn from masked logits: Gumbel-max (``gumbel_max``, and the same draws
on the legal actions only, ``gumbel_max_legal``) and inverse CDF (``sample_masked``).

| sampler | draws | used by |
|---|---|---|
| ``gumbel_max`` | an exponential per logit from the generator (torch's own ``exponential_``) | ``SAMPLERS["gumbel"]`` |
| ``gumbel_max_legal`` | ``gumbel_max``'s actions and generator state, computing only the legal entries (numba) | the batched trainer, ``ActorRows`` |
| ``sample_masked`` | one uniform per row, inverse CDF (5x faster to draw; other actions for a seed) | ``SAMPLERS["inverse_cdf"]`` |

Masked logits are ``HUGE_NEG`` (``agents/checkpoint.py``) outside the legal actions. This module imports torch
(and numba, for the fast path) only inside the functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["gumbel_max", "gumbel_max_legal", "sample_masked", "SAMPLERS"]


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
