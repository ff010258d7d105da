"""The batched trainer's fast paths give the slow paths' numbers bit for bit: Gumbel-max on the legal logits only
(``gumbel_max_legal``) and the rollout's module-free forward (``inference_layers``/``run_layers``)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("numba")

from agents.checkpoint import HUGE_NEG  # noqa: E402
from agents.rows import ActorRows  # noqa: E402
from agents.sampling import _fast_kernels, gumbel_max, gumbel_max_legal  # noqa: E402
from train.networks import build_actor, build_critic, inference_layers, run_layers  # noqa: E402


def _case(rng: np.random.Generator, rows: int, actions: int, share: float, ties: bool) -> tuple:
    legal = torch.from_numpy(rng.random((rows, actions)) < share)
    legal[:, -1] |= ~legal.any(1)  # every row has a legal action
    logits = torch.from_numpy((rng.normal(size=(rows, actions)) * rng.uniform(0.1, 20)).astype(np.float32))
    if ties:
        logits = torch.round(logits)  # equal maxima: the first one wins in both
    return logits.masked_fill(~legal, HUGE_NEG), legal


def test_gumbel_on_legal_logits_is_gumbel_max_bit_for_bit():
    assert _fast_kernels() is not None  # the fast path is on (it checks itself against torch at its first use)
    rng = np.random.default_rng(5)
    g_slow, g_fast = torch.Generator().manual_seed(11), torch.Generator().manual_seed(11)
    drawn = 0
    for k in range(300):
        rows = int(rng.integers(1, 400))  # > 312 entries: MT19937's twist runs inside a call, often
        logits, legal = _case(rng, rows, int(rng.choice([143, 102, 9])), float(rng.uniform(0.01, 1.0)), k % 5 == 0)
        slow, fast = gumbel_max(logits, g_slow), gumbel_max_legal(logits, legal, g_fast)
        assert fast.dtype == slow.dtype and torch.equal(fast, slow), k
        assert torch.equal(g_fast.get_state(), g_slow.get_state()), k  # the stream goes on identically
        assert legal[torch.arange(rows), fast].all()
        drawn += rows
    assert drawn > 30_000
    # a generator used by both in turn stays in step
    logits, legal = _case(rng, 50, 143, 0.1, False)
    g = torch.Generator().manual_seed(3)
    mixed = [gumbel_max(logits, g), gumbel_max_legal(logits, legal, g), gumbel_max(logits, g)]
    g = torch.Generator().manual_seed(3)
    assert all(torch.equal(a, gumbel_max(logits, g)) for a in mixed)


def test_the_fast_draw_follows_the_softmax():
    logits = torch.tensor([[HUGE_NEG, 0.0, HUGE_NEG, 1.0, HUGE_NEG]] * 20000)
    draws = gumbel_max_legal(logits, logits > HUGE_NEG, torch.Generator().manual_seed(0))
    assert set(draws.tolist()) == {1, 3}
    assert abs((draws == 3).float().mean().item() - 1 / (1 + np.e ** -1)) < 0.02


def test_sampling_snapshots_draw_as_before():
    actor = build_actor(20, 9, [8])
    rng = np.random.default_rng(2)
    obs = rng.normal(size=(300, 20)).astype(np.float32)
    mask = (rng.random((300, 9)) < 0.4).astype(np.int8)
    mask[:, 0] = 1
    player = ActorRows(actor, "snap", greedy=False, seed=4)
    got = player.act(obs, mask)
    gen = torch.Generator().manual_seed(4)
    with torch.inference_mode():
        logits = actor(torch.from_numpy(obs)).masked_fill(~torch.from_numpy(mask != 0), HUGE_NEG)
    assert np.array_equal(got, gumbel_max(logits, gen).numpy())


@pytest.mark.parametrize("activation", ["Tanh", "ReLU", "GELU"])
def test_module_free_forward_is_the_modules(activation):
    torch.manual_seed(0)
    actor, critic = build_actor(50, 7, [32, 16], activation), build_critic(50, [32, 16], activation)
    fast = inference_layers(actor), inference_layers(critic)
    if activation == "GELU":  # not known: the trainer calls the modules
        assert fast == (None, None)
        return
    x = torch.randn(123, 50)
    with torch.inference_mode():
        assert torch.equal(run_layers(fast[0], x), actor(x)) and torch.equal(run_layers(fast[1], x), critic(x))
