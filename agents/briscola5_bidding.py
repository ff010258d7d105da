"""Briscola in cinque: a learned contract model, and the sound bidder that bids only what it can make.

**The contract model** estimates the chance that a caller makes a contract: P(made | the caller's hand,
where the dealer sits, the contract). It is a small network (``build_actor``: Linear/ReLU layers and one
output logit) trained by ``benchmarks/briscola5_contracts.py`` on hands whose auction was forced (one seat,
drawn at random, bids a contract drawn from ``[61, 110]`` and the others pass) and whose call and play were
left to a trained player at every seat. Its input, 46 floats:

| slice | meaning |
|---|---|
| ``[0, 40)`` | the caller's hand (card id), as in the observation's ``hand`` |
| ``[40, 45)`` | the dealer, relative to the caller (one-hot), as in the observation's ``dealer`` |
| ``[45]`` | ``(contract - 60) / 60``, as the observation's ``contract`` |

An **auction-aware** model (48 inputs, ``benchmarks/briscola5_contracts.py --auction``) also sees the auction so
far, since the rivals' bids say what they hold (outbidding a player who bid 97 means facing its best hands):

| slice | meaning |
|---|---|
| ``[46]`` | ``(highest bid of any rival - 60) / 60``, 0 if no rival has bid (from the observation's ``bids``) |
| ``[47]`` | the share of the four rivals who have bid at least once |

Its output is the logit of P(made). The file is a safe checkpoint (``agents/checkpoint.py``: JSON and
tensors, nothing is unpickled) of that network, with ``"role": "contract-model"`` in its metadata;
``load_contract_model`` refuses any other file, saying why.

**The sound bidder** (spec ``sound[:K=V,...]``) plays as its ``play`` player (``pretrained:briscola5_expert``
by default) in every phase but the auction. In the auction it considers the lowest legal bid, and 71 and 81
(where the stake doubles and triples) when they are above it, and bids the highest of them whose estimated
P(made) is at least ``tau``; if none is, it passes. ``tau`` trades the share of contracts made against the
contracts it leaves to others: under the default scoring a made contract of 81 or more pays the caller 6 and a
lost one costs 2, so the credits are best served by bidding down to P(made) of about 0.25, and a share of
60% made asks the bidder to leave paying contracts to the table (docs/results/learning.md, point 6).

| parameter | default | meaning |
|---|---|---|
| ``tau`` | 0.5 | the least estimated P(made) at which it bids |
| ``play`` | ``pretrained:briscola5_expert`` | the player of every other decision (any agent spec but ``sound``) |
| ``model`` | ``expert`` | the contract model: a shipped one by name (table below) or a file's path |
| ``max_bids`` | no limit | how many times it bids in one auction at most; ``max_bids=1`` opens (or enters) once and passes when outbid, so it wins only the auctions nobody contests |

The shipped contract models (``agents/pretrained/contracts/``; each file's metadata holds the command that made it):

| name | file | its hands were defended by |
|---|---|---|
| ``expert`` | ``briscola5.mazzo.zip`` | ``pretrained:briscola5_expert`` (406,237 forced hands on the batched engine) |
| ``pimc`` | ``briscola5_pimc.mazzo.zip`` | PIMC at its default budget: ``expert`` with its output layer refitted on 7,698 forced hands that PIMC defended (``benchmarks/briscola5_contracts_pimc.md``) |
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import BaseAgent
from agents.checkpoint import CheckpointError, load_actor
from envs.briscola5.game import AUCTION, BID, BID_LEVELS, BID_MAX, BID_MIN, PASS
from envs.briscola5.observation import LAYOUT
from envs.core.errors import ConfigError

__all__ = ["CONTRACT_INPUTS", "AUCTION_INPUTS", "ROLE", "CONTRACT_MODELS", "DEFAULT_MODEL", "contract_features", "load_contract_model", "SoundBidder"]

#: the metadata ``role`` of a contract model's checkpoint
ROLE = "contract-model"
HAND, DEALER, PHASE, BIDS = (LAYOUT.obs_slice(f) for f in ("hand", "dealer", "phase", "bids"))
CONTRACT_INPUTS = (HAND.stop - HAND.start) + (DEALER.stop - DEALER.start) + 1
AUCTION_INPUTS = CONTRACT_INPUTS + 2  # and the rivals' highest bid and the share of rivals who bid
_BID_LEVELS_ABOVE_60 = np.arange(1, BID_MAX - BID_MIN + 2, dtype=np.float32)  # bid 61 + j is 1 + j above 60
CONTRACTS_DIR = Path(__file__).resolve().parent / "pretrained" / "contracts"
#: the shipped contract models by name (module table)
CONTRACT_MODELS = {"expert": CONTRACTS_DIR / "briscola5.mazzo.zip", "pimc": CONTRACTS_DIR / "briscola5_pimc.mazzo.zip"}
DEFAULT_MODEL = CONTRACT_MODELS["expert"]
_AUCTION_SLOT = PHASE.start + AUCTION  # the phase one-hot is indexed by the phase (as agents/batched reads it)
_OWN_BIDS = slice(BIDS.start, BIDS.start + BID_MAX - BID_MIN + 1)  # the bids block's row 0: the observer's own bids


def contract_features(obs: np.ndarray, contracts: np.ndarray, auction: bool = False) -> np.ndarray:
    """The contract model's inputs (module tables) for observations ``obs`` (rows) and one contract per row; with
    ``auction``, those of an auction-aware model (the rivals' bids appended)."""
    obs = np.atleast_2d(obs)
    out = np.empty((len(obs), AUCTION_INPUTS if auction else CONTRACT_INPUTS), dtype=np.float32)
    n_hand = HAND.stop - HAND.start
    out[:, :n_hand] = obs[:, HAND]
    out[:, n_hand:CONTRACT_INPUTS - 1] = obs[:, DEALER]
    out[:, CONTRACT_INPUTS - 1] = (np.asarray(contracts, dtype=np.float32) - 60.0) / 60.0
    if auction:  # the bids block is seat-relative: row 0 is the observer's own, rows 1-4 its rivals'
        rival_bids = obs[:, BIDS].reshape(len(obs), -1, BID_MAX - BID_MIN + 1)[:, 1:] > 0
        out[:, CONTRACT_INPUTS] = (rival_bids.any(1) * _BID_LEVELS_ABOVE_60).max(1) / 60.0
        out[:, CONTRACT_INPUTS + 1] = rival_bids.any(2).mean(1)
    return out


def load_contract_model(path: str | os.PathLike) -> tuple[Any, dict[str, Any]]:
    """The contract model of ``path`` (a safe checkpoint) and its metadata; ``CheckpointError`` for a file that is
    not one (another game, a policy, another input size)."""
    net, meta = load_actor(path)
    if (meta.get("role") != ROLE or meta.get("obs_shape") not in ([CONTRACT_INPUTS], [AUCTION_INPUTS])
            or meta.get("num_actions") != 1):
        raise CheckpointError(f"{path}: not a Briscola contract model (expected role {ROLE!r}, {CONTRACT_INPUTS} "
                              f"or {AUCTION_INPUTS} inputs and one output; got role {meta.get('role')!r}, obs_shape {meta.get('obs_shape')}, "
                              f"num_actions {meta.get('num_actions')}); benchmarks/briscola5_contracts.py writes one")
    return net, meta


class SoundBidder(BaseAgent):
    """Bids only the contracts its contract model gives at least ``tau`` to make; ``play`` does the rest."""

    name = "sound"

    def __init__(self, game: str, seed: int | None = None, tau: float = 0.5,
                 play: str = "pretrained:briscola5_expert", model: str | os.PathLike = "expert",
                 max_bids: int | None = None, flags: dict[str, Any] | None = None):
        from agents.registry import make_agent

        super().__init__(game, seed)
        if not isinstance(tau, (int, float)) or not 0.0 <= tau <= 1.0:
            raise ConfigError(f"agent 'sound': tau is the least P(made) at which it bids, in [0, 1]; got {tau!r}")
        if not isinstance(play, str) or play.partition(":")[0] == "sound":
            raise ConfigError(f"agent 'sound': play must be another agent spec (e.g. pretrained:briscola5_expert); "
                              f"got {play!r}")
        if max_bids is not None and (isinstance(max_bids, bool) or not isinstance(max_bids, int) or max_bids < 1):
            raise ConfigError(f"agent 'sound': max_bids is how many times it bids in one auction at most, an integer "
                              f">= 1 (leave it out for no limit); got {max_bids!r}")
        self.tau, self.play_spec, self.max_bids = float(tau), play, max_bids
        path = Path(CONTRACT_MODELS.get(model, model) if isinstance(model, str) else model)
        if not path.is_file():
            raise FileNotFoundError(f"agent 'sound': no contract model {str(model)!r}: give a shipped one's name "
                                    f"({', '.join(CONTRACT_MODELS)}) or the path of a file written by "
                                    f"benchmarks/briscola5_contracts.py")
        self.model, self.model_meta = load_contract_model(path)
        self.sees_auction = self.model_meta["obs_shape"] == [AUCTION_INPUTS]
        self.player = make_agent(play, game, seed=seed, **({} if flags is None else {"flags": flags}))
        self.name = f"sound:tau={self.tau:g}" + ("" if max_bids is None else f",max_bids={max_bids}")

    def reset(self) -> None:
        self.player.reset()

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.player.seed(seed)

    def made_probability(self, obs: np.ndarray, contracts: list[int]) -> np.ndarray:
        """The model's P(made) for the caller whose observation is ``obs``, at each of ``contracts``."""
        import torch

        x = contract_features(np.repeat(obs[None], len(contracts), 0), np.asarray(contracts), self.sees_auction)
        with torch.inference_mode():
            return torch.sigmoid(self.model(torch.from_numpy(x))[:, 0]).numpy()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        obs, mask = observation["observation"], observation["action_mask"]
        if obs[_AUCTION_SLOT] != 1:
            return self.player.act(observation)
        bids = np.flatnonzero(mask[BID:BID + BID_MAX - BID_MIN + 1]) + BID_MIN
        if bids.size == 0:  # only a pass is left
            return PASS
        if self.max_bids is not None and np.count_nonzero(obs[_OWN_BIDS]) >= self.max_bids:
            return PASS
        lowest = int(bids[0])
        candidates = [lowest] + [v for v in BID_LEVELS if v > lowest and mask[BID + v - BID_MIN]]
        p = self.made_probability(obs, candidates)
        sound = [v for v, q in zip(candidates, p, strict=True) if q >= self.tau]
        return BID + max(sound) - BID_MIN if sound else PASS

