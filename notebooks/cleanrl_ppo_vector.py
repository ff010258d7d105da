"""PPO in the style of CleanRL's ``ppo.py``, on any Gymnasium vector env with action masks in ``infos["action_mask"]``.

Nothing in it is specific to Mazzo but the env id (and ``import train``, which registers the ids): it builds
``gym.make_vec(env_id, num_envs, vectorization_mode="vector_entry_point")``, Mazzo's single-seat game on the
batched engine (``train/vector_single_seat.py``), and trains a masked-softmax actor-critic on it.

    python notebooks/cleanrl_ppo_vector.py                                            # Briscola vs random
    python notebooks/cleanrl_ppo_vector.py --env-id mazzo/Picchetto-v0 --total-timesteps 2000000 \
        --env-kwargs '{"opponents": "heuristic"}'
    python notebooks/cleanrl_ppo_vector.py --total-timesteps 4096 --num-envs 64 --num-steps 32   # a smoke run

The loop reads top to bottom: rollout (masked sampling), GAE, clipped PPO updates. Gymnasium 1.x's default
autoreset mode (``NEXT_STEP``, what ``metadata["autoreset_mode"]`` declares) makes the step after an episode's
end a reset step whose action is ignored: those transitions are kept out of the loss (``valid``), and an
episode's end cuts the bootstrapping. Truncations count as ends (as CleanRL does). Episode returns come from
Gymnasium's ``RecordEpisodeStatistics``. Written for reading, not a published figure: it prints the mean
episodic return of the last 100 episodes per update and at the end.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections import deque
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import train  # noqa: F401  (registers the mazzo/* ids with their vector entry point)


@dataclass
class Args:
    env_id: str = "mazzo/Briscola5-v0"
    """the id of the vector env"""
    env_kwargs: str = "{}"
    """keyword arguments of the env, as JSON (e.g. '{"opponents": "heuristic"}')"""
    seed: int = 1
    """seed of the experiment (torch, NumPy, the env)"""
    total_timesteps: int = 500_000
    """total learner steps"""
    learning_rate: float = 2.5e-4
    """the optimizer's learning rate (annealed linearly to 0)"""
    num_envs: int = 256
    """sub-envs of the vector env"""
    num_steps: int = 64
    """steps per sub-env in each rollout"""
    gamma: float = 0.99
    """the discount factor"""
    gae_lambda: float = 0.95
    """the lambda of the general advantage estimation"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    update_epochs: int = 4
    """epochs per update"""
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    ent_coef: float = 0.01
    """the entropy coefficient"""
    vf_coef: float = 0.5
    """the value function coefficient"""
    max_grad_norm: float = 0.5
    """the gradient clipping norm"""
    hidden: int = 128
    """hidden units of the two layers of the actor and of the critic"""


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in dataclasses.fields(Args):
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    return Args(**vars(parser.parse_args()))


def layer(n_in: int, n_out: int, std: float = np.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(layer(obs_size, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, 1, 1.0))
        self.actor = nn.Sequential(layer(obs_size, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                   layer(hidden, num_actions, 0.01))

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        logits = self.actor(x).masked_fill(~mask, -1e8)  # illegal actions get no probability
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def main(args: Args) -> float:
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)
    print(f"{args.env_id}: {num_iterations} updates of {batch_size} steps ({args.num_envs} envs x {args.num_steps})")

    # seeding
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    # env setup
    envs = gym.make_vec(args.env_id, num_envs=args.num_envs, vectorization_mode="vector_entry_point",
                        **json.loads(args.env_kwargs))
    envs = gym.wrappers.vector.RecordEpisodeStatistics(envs)
    assert isinstance(envs.single_action_space, gym.spaces.Discrete), "only discrete action spaces are supported"
    next_step_reset = envs.metadata.get("autoreset_mode", gym.vector.AutoresetMode.NEXT_STEP) == \
        gym.vector.AutoresetMode.NEXT_STEP
    obs_size = int(np.prod(envs.single_observation_space.shape))
    num_actions = int(envs.single_action_space.n)
    agent = Agent(obs_size, num_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # storage
    obs = torch.zeros((args.num_steps, args.num_envs, obs_size))
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    valid = torch.zeros((args.num_steps, args.num_envs), dtype=torch.bool)
    values = torch.zeros((args.num_steps, args.num_envs))

    # start the game
    global_step = 0
    start_time = time.time()
    next_obs, infos = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs, dtype=torch.float32)
    next_mask = torch.as_tensor(infos["action_mask"])
    resetting = torch.zeros(args.num_envs, dtype=torch.bool)  # NEXT_STEP: this step only resets the sub-env
    returns: deque[float] = deque(maxlen=100)

    for iteration in range(1, num_iterations + 1):
        optimizer.param_groups[0]["lr"] = (1.0 - (iteration - 1.0) / num_iterations) * args.learning_rate
        for step in range(args.num_steps):
            obs[step], masks[step], valid[step] = next_obs, next_mask, ~resetting
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask | resetting[:, None])
            values[step] = value.flatten()
            actions[step], logprobs[step] = action, logprob
            next_obs, reward, terminations, truncations, infos = envs.step(action.numpy())
            global_step += int((~resetting).sum())
            done = torch.as_tensor(np.logical_or(terminations, truncations))
            rewards[step], dones[step] = torch.as_tensor(reward, dtype=torch.float32), done.float()
            next_obs = torch.as_tensor(next_obs, dtype=torch.float32)
            next_mask = torch.as_tensor(infos["action_mask"])
            resetting = done if next_step_reset else torch.zeros_like(done)
            if "_episode" in infos:
                returns.extend(infos["episode"]["r"][infos["_episode"]].tolist())

        # bootstrap value if not done; an episode's end (and the reset step after it) cuts the sums
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                nextvalues = next_value if t == args.num_steps - 1 else values[t + 1]
                nextnonterminal = 1.0 - dones[t]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns_t = advantages + values

        # flatten the batch, keep the real transitions
        keep = valid.reshape(-1)
        b_obs = obs.reshape(-1, obs_size)[keep]
        b_masks = masks.reshape(-1, num_actions)[keep]
        b_logprobs, b_actions = logprobs.reshape(-1)[keep], actions.reshape(-1)[keep]
        b_advantages, b_returns, b_values = advantages.reshape(-1)[keep], returns_t.reshape(-1)[keep], values.reshape(-1)[keep]

        # optimize the policy and value network
        b_inds = np.arange(len(b_obs))
        clipfracs = []
        for _ in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for start in range(0, len(b_inds), minibatch_size):
                mb = b_inds[start : start + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_masks[mb], b_actions[mb])
                logratio = newlogprob - b_logprobs[mb]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        mean_return = float(np.mean(returns)) if returns else float("nan")
        sps = int(global_step / (time.time() - start_time))
        print(f"update {iteration}/{num_iterations}  global_step={global_step}  episodic_return(last 100)={mean_return:.3f}"
              f"  value_loss={v_loss.item():.3f}  approx_kl={approx_kl.item():.4f}  clipfrac={np.mean(clipfracs):.3f}"
              f"  SPS={sps}", flush=True)
    envs.close()
    print(f"final episodic_return(last 100)={mean_return:.3f} after {global_step} steps")
    return mean_return


if __name__ == "__main__":
    main(parse_args())
