"""Briscola's contract model and the sound bidder (``agents/briscola5_bidding.py``, spec ``sound``)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from agents.briscola5_bidding import (
    AUCTION_INPUTS,
    CONTRACT_INPUTS,
    DEFAULT_MODEL,
    ROLE,
    contract_features,
    load_contract_model,
)
from agents.checkpoint import CheckpointError, build_actor, save_actor
from envs import briscola5_v0
from envs.briscola5.game import BID, BID_MIN, PASS
from envs.briscola5.observation import decode
from envs.core.errors import ConfigError
from tests.agents.common import play
from train.evaluate import evaluate

pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))


def constant_model(path: Path, made: float) -> Path:
    """A contract model that gives every hand and contract the same P(made)."""
    import torch

    net = build_actor(CONTRACT_INPUTS, 1, [4], "ReLU")
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
        net.action_net.bias.fill_(math.log(made / (1 - made)))
    return save_actor(net, path, {"game": "briscola5", "role": ROLE})


def first_bid_observation(seed: int = 0) -> dict:
    """The first auction decision of a hand (the forfeit check played by the heuristic)."""
    env = briscola5_v0.env()
    env.reset(seed=seed)
    helper = make_agent("heuristic", "briscola5", seed=0)
    while True:
        obs = env.last()[0]
        if decode(obs["observation"])["phase"] == "auction":
            return obs
        env.step(helper.act(obs))


def test_the_shipped_contract_model_loads_and_other_files_are_refused(tmp_path):
    net, meta = load_contract_model(DEFAULT_MODEL)
    assert meta["role"] == ROLE and meta["obs_shape"] == [CONTRACT_INPUTS] and meta["provenance"]["command"]
    with pytest.raises(CheckpointError, match="not a Briscola contract model.*role None, obs_shape \\[1169\\]"):
        load_contract_model(ROOT / "agents" / "pretrained" / "briscola5_expert.mazzo.zip")
    with pytest.raises(FileNotFoundError, match="no contract model .*missing.mazzo.zip.*expert, pimc"):
        make_agent(f"sound:model={tmp_path / 'missing.mazzo.zip'}", "briscola5")


def test_the_shipped_contract_models_are_reached_by_name():
    expert, pimc = make_agent("sound:model=expert", "briscola5"), make_agent("sound:model=pimc", "briscola5")
    assert "defence" not in expert.model_meta["config"]  # fitted before --defence existed: the expert everywhere
    assert "--defence pimc" in pimc.model_meta["provenance"]["command"]
    assert pimc.model_meta["config"]["start"] == "agents/pretrained/contracts/briscola5.mazzo.zip"
    obs = first_bid_observation(0)["observation"]
    assert not np.allclose(expert.made_probability(obs, [61, 81]), pimc.made_probability(obs, [61, 81]))


def test_the_contract_features_are_the_hand_the_dealer_and_the_contract():
    obs = first_bid_observation()["observation"]
    x = contract_features(obs, [81])
    view = decode(obs)
    assert x.shape == (1, CONTRACT_INPUTS)
    assert sorted(np.flatnonzero(x[0, :40])) == sorted(view["hand"])
    assert np.flatnonzero(x[0, 40:45]).tolist() == [view["dealer"]]
    assert x[0, 45] == pytest.approx((81 - 60) / 60)


def test_the_shipped_model_rates_a_higher_contract_lower():
    agent = make_agent("sound", "briscola5")
    obs = first_bid_observation()["observation"]
    p = agent.made_probability(obs, [61, 81, 101, 120])
    assert np.all(np.diff(p) < 0), p


def test_the_sound_bidder_bids_the_highest_candidate_it_rates_at_tau_else_passes(tmp_path):
    model = constant_model(tmp_path / "p55.mazzo.zip", 0.55)
    obs = first_bid_observation()
    lowest = BID_MIN + int(np.flatnonzero(obs["action_mask"][BID:BID + 60])[0])
    assert lowest < 71  # the first bid of a hand: 71 and 81 are candidates too
    bold = make_agent(f"sound:tau=0.5,model={model}", "briscola5")
    shy = make_agent(f"sound:tau=0.6,model={model}", "briscola5")
    assert bold.act(obs) == BID + 81 - BID_MIN
    assert shy.act(obs) == PASS


class BidCounter:
    """Plays as ``player`` and keeps how many times it bid in each hand."""

    def __init__(self, player):
        self.player, self.per_hand = player, []

    def reset(self):
        self.player.reset()
        self.per_hand.append(0)

    def act(self, obs):
        action = self.player.act(obs)
        self.per_hand[-1] += BID <= action < BID + 60
        return action


@pytest.mark.parametrize("max_bids", [None, 1, 2])
def test_max_bids_caps_the_bids_of_one_auction(tmp_path, max_bids):
    model = constant_model(tmp_path / "p99.mazzo.zip", 0.99)  # rates every contract sound: bids while it may
    limit = "" if max_bids is None else f",max_bids={max_bids}"
    bidder = BidCounter(make_agent(f"sound:tau=0.5,play=heuristic,model={model}{limit}", "briscola5", seed=0))
    env, heuristic = briscola5_v0.env(), make_agent("heuristic", "briscola5", seed=0)
    for seed in range(12):
        play(env, {a: bidder if a == env.possible_agents[0] else heuristic for a in env.possible_agents}, seed)
    assert min(bidder.per_hand) >= 1  # it bids in every hand
    if max_bids is None:
        assert max(bidder.per_hand) >= 3  # and, unlimited, again when outbid
    else:
        assert max(bidder.per_hand) == max_bids


class Compared:
    """Plays as ``player`` and counts the decisions outside the auction where ``reference`` agrees and disagrees."""

    def __init__(self, player, reference):
        self.player, self.reference, self.same, self.differ = player, reference, 0, 0

    def reset(self):
        self.player.reset()

    def act(self, obs):
        action = self.player.act(obs)
        if decode(obs["observation"])["phase"] != "auction":
            same = action == self.reference.act(obs)
            self.same, self.differ = self.same + same, self.differ + (not same)
        return action


def test_outside_the_auction_the_sound_bidder_plays_as_its_player():
    sound = Compared(make_agent("sound:tau=0.5,play=heuristic", "briscola5", seed=0),
                     make_agent("heuristic", "briscola5", seed=0))
    env = briscola5_v0.env()
    for seed in range(3):
        play(env, dict.fromkeys(env.possible_agents, sound), seed)
    assert sound.same > 100 and sound.differ == 0


@pytest.mark.parametrize("spec, message", [
    ("sound:tau=1.5", "tau is the least P\\(made\\).*in \\[0, 1\\]; got 1.5"),
    ("sound:depth=3", "unexpected keyword argument 'depth'"),
    ("sound:play=sound", "play must be another agent spec"),
    ("sound:tau", "parameters are KEY=VALUE pairs"),
    ("sound:max_bids=0", "max_bids is how many times it bids in one auction at most.*got 0"),
    ("sound:max_bids=1.5", "max_bids is how many times it bids in one auction at most.*got 1.5"),
])
def test_a_bad_sound_spec_says_what_is_allowed(spec, message):
    with pytest.raises(ConfigError, match=message):
        make_agent(spec, "briscola5")


def test_a_game_without_a_sound_bidder_says_so():
    with pytest.raises(ConfigError, match="'sound' is not available for pigugnin"):
        make_agent("sound", "pigugnin")


def test_the_sound_bidder_plays_whole_evaluations():
    r = evaluate("briscola5", ["sound:tau=0.5"], field="heuristic", num_deals=2, seed=0)
    assert r.specs[0] == "sound:tau=0.5" and r.deal_counts.shape[0] == 2


def test_forced_contracts_label_the_drawn_caller_and_contract():
    from briscola5_contracts import forced_hands

    low_x, low_made = forced_hands("pretrained:briscola5_expert", 256, 7, 61, 61)
    high_x, high_made = forced_hands("pretrained:briscola5_expert", 256, 7, 110, 110)
    assert len(low_x) > 240 and len(high_x) > 240  # a forfeited hand has no caller and is dropped
    assert np.all(low_x[:, :40].sum(1) == 8) and np.all(low_x[:, 40:45].sum(1) == 1)
    assert np.allclose(low_x[:, -1], 1 / 60) and np.allclose(high_x[:, -1], 50 / 60)
    assert low_made.mean() > 0.5 > 0.2 > high_made.mean()  # the same deals and callers: 61 is made far more often


def test_defended_contracts_are_played_on_the_aec_env_and_screened(tmp_path):
    from briscola5_contracts import defended_hands

    low_x, low_made = defended_hands("pretrained:briscola5_expert", "heuristic", 64, 7, 61, 61, 1, None, 0.0)
    high_x, high_made = defended_hands("pretrained:briscola5_expert", "heuristic", 64, 7, 110, 110, 1, None, 0.0)
    assert len(low_x) > 56 and np.all(low_x[:, :40].sum(1) == 8) and np.allclose(high_x[:, -1], 50 / 60)
    assert low_made.mean() > 0.5 > 0.2 > high_made.mean()
    screen = constant_model(tmp_path / "c.mazzo.zip", 0.4)
    kept, _ = defended_hands("pretrained:briscola5_expert", "heuristic", 16, 7, 61, 110, 1, screen, 0.3)
    dropped, _ = defended_hands("pretrained:briscola5_expert", "heuristic", 16, 7, 61, 110, 1, screen, 0.5)
    assert len(kept) >= 14 and len(dropped) == 0  # every hand is rated 0.4: kept above 0.3, dropped below 0.5


def test_a_search_player_defends_the_forced_hands():
    from briscola5_contracts import defended_hands

    x, made = defended_hands("pretrained:briscola5_expert", "pimc:worlds=4", 6, 3, 61, 110, 1, None, 0.0)
    assert len(x) == len(made) >= 5 and x.dtype == np.float32
    again_x, again_made = defended_hands("pretrained:briscola5_expert", "pimc:worlds=4", 6, 3, 61, 110, 1, None, 0.0)
    assert np.array_equal(x, again_x) and np.array_equal(made, again_made)  # the seed reaches the search players


def test_a_refit_keeps_the_hidden_layers_and_reuses_its_kept_hands(tmp_path):
    import torch
    from briscola5_contracts import main

    args = ["--defence", "heuristic", "--hands", "48", "--held-out", "12", "--epochs", "2", "--start", str(DEFAULT_MODEL),
            "--samples", str(tmp_path / "hands.npz"), "--out", str(tmp_path / "refit.mazzo.zip"),
            "--report", str(tmp_path / "refit.md")]
    main(args)
    first = (tmp_path / "refit.md").read_text()
    assert "The start model on the same held-out hands" in first and (tmp_path / "hands.npz").is_file()
    start, refit = load_contract_model(DEFAULT_MODEL)[0], load_contract_model(tmp_path / "refit.mazzo.zip")[0]
    assert torch.equal(start.policy_net[0].weight, refit.policy_net[0].weight)
    assert not torch.equal(start.action_net.weight, refit.action_net.weight)
    main(args)  # the kept hands are read back, not replayed: the same fit and the same figures
    assert (tmp_path / "refit.md").read_text().split("\n", 2)[2] == first.split("\n", 2)[2]


def test_a_screen_without_a_start_model_and_a_defence_is_refused(capsys):
    from briscola5_contracts import main

    with pytest.raises(SystemExit):
        main(["--hands", "8", "--min-estimate", "0.3", "--start", str(DEFAULT_MODEL)])
    assert "--min-estimate screens hands by the --start model before a --defence plays them" in capsys.readouterr().err


def auction_in_progress() -> tuple[object, list[str]]:
    """An env in its auction where the first bidder bid 65, the second 70 and the third passed; and the seats' names
    in bidding order (the fourth is to act)."""
    env = briscola5_v0.env()
    env.reset(seed=5)
    helper = make_agent("heuristic", "briscola5", seed=0)
    while decode(env.last()[0]["observation"])["phase"] != "auction":
        env.step(helper.act(env.last()[0]))
    order = []
    for action in (BID + 65 - BID_MIN, BID + 70 - BID_MIN, PASS):
        order.append(env.agent_selection)
        env.step(action)
    return env, order + [env.agent_selection]


def test_the_auction_features_are_the_rivals_highest_bid_and_the_share_who_bid():
    env, order = auction_in_progress()
    x = contract_features(env.observe(order[3])["observation"], [75], auction=True)
    assert x.shape == (1, AUCTION_INPUTS)
    assert np.array_equal(x[:, :CONTRACT_INPUTS], contract_features(env.observe(order[3])["observation"], [75]))
    assert x[0, CONTRACT_INPUTS] == pytest.approx(10 / 60) and x[0, CONTRACT_INPUTS + 1] == pytest.approx(2 / 4)
    env.step(BID + 75 - BID_MIN)  # the fourth seat bids 75; the fifth passes; the first bidder's own 65 is not a rival's
    env.step(PASS)
    x = contract_features(env.observe(order[0])["observation"], [76], auction=True)
    assert x[0, CONTRACT_INPUTS] == pytest.approx(15 / 60) and x[0, CONTRACT_INPUTS + 1] == pytest.approx(2 / 4)
    fresh = contract_features(first_bid_observation()["observation"], [61], auction=True)
    assert fresh[0, CONTRACT_INPUTS:].tolist() == [0.0, 0.0]  # nobody has bid yet


def test_an_auction_aware_model_is_read_with_the_rivals_bids(tmp_path):
    import torch

    net = build_actor(AUCTION_INPUTS, 1, [4], "ReLU")
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
        net.policy_net[0].weight[0, CONTRACT_INPUTS] = 1.0  # the rivals' highest bid, and only it, lowers P(made)
        net.action_net.weight[0, 0] = -30.0
    path = save_actor(net, tmp_path / "auction.mazzo.zip", {"game": "briscola5", "role": ROLE})
    agent = make_agent(f"sound:tau=0.4,model={path}", "briscola5")
    assert agent.sees_auction and not make_agent("sound", "briscola5").sees_auction
    env, order = auction_in_progress()
    contested = env.observe(order[3])
    assert agent.made_probability(contested["observation"], [71]) == pytest.approx(1 / (1 + math.exp(5)), rel=1e-5)
    assert agent.act(contested) == PASS
    assert agent.made_probability(first_bid_observation()["observation"], [61]) == pytest.approx(0.5)


def test_a_widened_model_gives_the_same_estimates_while_its_new_inputs_are_zero():
    import torch
    from briscola5_contracts import widened

    x = contract_features(np.repeat(first_bid_observation()["observation"][None], 3, 0), [61, 81, 101])
    before = load_contract_model(DEFAULT_MODEL)[0](torch.from_numpy(x))
    wide = widened(load_contract_model(DEFAULT_MODEL)[0], AUCTION_INPUTS)
    assert wide.policy_net[0].in_features == AUCTION_INPUTS
    assert torch.equal(wide(torch.from_numpy(np.pad(x, ((0, 0), (0, 2))))), before)


def test_an_auction_aware_model_is_fitted_on_auctions_won_at_the_table(tmp_path):
    from briscola5_contracts import defended_hands, main

    x, y = defended_hands("pretrained:briscola5_expert", "heuristic", 16, 7, 61, 110, 1, None, 0.0)
    np.savez(tmp_path / "forced.npz", x=x, y=y, seconds=0.0)
    main(["--defence", "heuristic", "--auction", "--hands", "40", "--held-out", "8", "--epochs", "2",
          "--start", str(DEFAULT_MODEL), "--fit", "all", "--mix", str(tmp_path / "forced.npz"),
          "--samples", str(tmp_path / "auctions.npz"), "--out", str(tmp_path / "a.mazzo.zip"),
          "--report", str(tmp_path / "a.md")])
    model, meta = load_contract_model(tmp_path / "a.mazzo.zip")
    assert meta["obs_shape"] == [AUCTION_INPUTS]
    with np.load(tmp_path / "auctions.npz") as z:
        won = z["x"]
    assert won.shape[1] == AUCTION_INPUTS and len(won) > 30  # a hand nobody bids has no caller
    contract, rival_high = np.rint(won[:, CONTRACT_INPUTS - 1] * 60), np.rint(won[:, CONTRACT_INPUTS] * 60)
    assert np.all(contract >= 1) and np.all(rival_high < contract)  # the winner outbid every rival
    assert (rival_high > 0).any()  # some auctions were contested


@pytest.mark.parametrize("args, message", [
    (["--auction", "--hands", "8"], "--auction needs --defence"),
    (["--auction", "--defence", "heuristic", "--start", str(DEFAULT_MODEL)], "--auction with --start needs --fit all"),
])
def test_an_auction_run_without_what_it_needs_is_refused(capsys, args, message):
    from briscola5_contracts import main

    with pytest.raises(SystemExit):
        main(args)
    assert message in capsys.readouterr().err


def test_the_screened_share_made_plays_exactly_the_hands_the_bidder_wins():
    from briscola5_made import made_share, screened_block

    spec, seed, hands = "sound:tau=0.4,play=heuristic", 3, 40
    deal_seeds = np.random.SeedSequence(seed).generate_state(hands)
    rows = screened_block(spec, "heuristic", seed, deal_seeds, range(hands))
    env = briscola5_v0.env()
    bidder = make_agent(spec, "briscola5", seed=seed)
    others = make_agent("heuristic", "briscola5", seed=seed)
    won = {}
    for hand in range(hands):
        seat = env.possible_agents[hand % 5]
        credits = play(env, {a: bidder if a == seat else others for a in env.possible_agents}, int(deal_seeds[hand]))
        if env.unwrapped.state_.caller == hand % 5:
            won[hand] = [hand, env.unwrapped.state_.contract, float(credits[seat] > 0), credits[seat]]
    assert 3 <= len(won) < hands and [r for r in rows] == list(won.values())
    result = made_share(spec, "heuristic", hands, seed, 1)
    assert result["contracts"] == len(won) and result["made"] == pytest.approx(np.mean([r[2] for r in rows]))
    assert result["made_low"] < result["made"] < result["made_high"]
