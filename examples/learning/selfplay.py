"""A small policy-value network trained by self-play on Halusa (docs/learning.md).

    nice -n 10 python3 examples/learning/selfplay.py --minutes 15 --opponent greedy

Self-play runs on VectorEnv (many games stepped by one call into the library, each seen by its
player to move); the network (PyTorch, CPU) learns a policy by policy gradient against its own
value (actor-critic on game outcomes, +1 / -1 / 0) and the value from the same outcomes. To
play, it looks one move ahead: of the legal moves it takes the one whose position the value
head rates best for it (the policy breaks ties), a finished game counting as its result. The
evaluation plays `--eval-games` games against a built-in bot (`greedy` by default), seats
alternating, before and after training, and prints both as JSON; `--require-win-rate R` makes
the exit status 1 if the trained network scores below R (wins plus half the draws) or no
better than untrained.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, List, Tuple

import numpy as np
import torch
from torch import nn

import traditional_games as tg
from traditional_games.learning import VectorEnv

SPEC = "halusa"


class Net(nn.Module):  # type: ignore[misc]
    def __init__(self, size: int, actions: int, hidden: int = 128) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(size, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                  nn.ReLU())
        self.policy = nn.Linear(hidden, actions)
        self.value = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        h = self.body(x)
        return self.policy(h), torch.tanh(self.value(h)).squeeze(-1)


def features(obs: Any) -> torch.Tensor:
    """Raw observations (counts and scores of Halusa's 72 counters) scaled to about 0..1."""
    return torch.as_tensor(np.asarray(obs, dtype=np.float32) / 12.0)


def masked_logits(logits: torch.Tensor, mask: Any) -> torch.Tensor:
    m = torch.as_tensor(np.asarray(mask, dtype=bool))
    return logits.masked_fill(~m, -1e9)


def train(net: Net, minutes: float, n: int, seed: int) -> int:
    """Self-play for `minutes`; returns the number of games finished."""
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    env = VectorEnv(SPEC, n=n, seed=seed)
    obs, info = env.reset()
    gen = torch.Generator().manual_seed(seed)
    # Per game: the moves since it started (features, mask, action, player).
    traj: List[List[Tuple[torch.Tensor, Any, int, int]]] = [[] for _ in range(n)]
    batch_x: List[torch.Tensor] = []
    batch_m: List[Any] = []
    batch_a: List[int] = []
    batch_z: List[float] = []
    games = 0
    deadline = time.monotonic() + 60 * minutes
    while time.monotonic() < deadline:
        x = features(obs)
        mask = info["action_mask"].copy()
        players = info["player"].copy()
        with torch.no_grad():
            logits, _ = net(x)
            probs = torch.softmax(masked_logits(logits, mask), dim=1)
            actions = torch.multinomial(probs, 1, generator=gen).squeeze(1).numpy()
        obs, _, terminated, _, info = env.step(actions)
        for i in range(n):
            traj[i].append((x[i], mask[i], int(actions[i]), int(players[i])))
            if terminated[i]:
                games += 1
                # The ended game's rewards: this step started it again, so the top-level
                # info is the new game's (Gymnasium's same-step autoreset).
                result = info["final_info"]["rewards"][i]
                for xi, mi, ai, pi in traj[i]:
                    batch_x.append(xi)
                    batch_m.append(mi)
                    batch_a.append(ai)
                    batch_z.append(float(result[pi]))
                traj[i] = []
        if len(batch_a) >= 4096:
            xb = torch.stack(batch_x)
            zb = torch.tensor(batch_z)
            ab = torch.tensor(batch_a)
            logits, v = net(xb)
            logp = torch.log_softmax(masked_logits(logits, np.stack(batch_m)), dim=1)
            chosen = logp.gather(1, ab[:, None]).squeeze(1)
            advantage = (zb - v).detach()
            entropy = -(logp.exp() * logp.clamp(min=-30)).sum(1).mean()
            loss = -(advantage * chosen).mean() + ((v - zb) ** 2).mean() - 0.01 * entropy
            opt.zero_grad()
            loss.backward()
            opt.step()
            batch_x, batch_m, batch_a, batch_z = [], [], [], []
    env.close()
    return games


def choose(net: Net, state: tg.State) -> int:
    """The net's move: one ply of lookahead on the value head, the policy breaking ties."""
    me = state.turn
    mask = np.asarray(state.action_mask(), dtype=bool)
    legal = np.flatnonzero(mask)
    children, finished = [], {}
    for a in legal:
        child = state.clone()
        child.apply_action(int(a))
        if child.is_terminal:
            finished[int(a)] = child.returns[me]
        else:
            children.append((int(a), child.observation(child.turn), child.turn))
        child.close()
    with torch.no_grad():
        logits, _ = net(features(state.observation(me))[None])
        prior = torch.softmax(masked_logits(logits, mask[None]), dim=1)[0]
        scores = {a: 2.0 * r for a, r in finished.items()}
        if children:
            _, v = net(features(np.stack([c[1] for c in children])))
            for (a, _, mover), value in zip(children, v.tolist()):
                scores[a] = value if mover == me else -value
    return max(scores, key=lambda a: (scores[a], float(prior[a])))


def evaluate(net: Net, opponent: str, games: int, seed: int) -> float:
    """The net's score against a bot over `games` games, seats alternating."""
    rng = tg.Rng(seed)
    score = 0.0
    for g in range(games):
        seat = g % 2
        with tg.State(SPEC) as s:
            while not s.is_terminal:
                if s.turn == seat:
                    s.apply_action(choose(net, s))
                else:
                    s.play_bot(opponent, rng)
            w = s.winner
            score += 1.0 if w == seat else 0.5 if w == tg.DRAW else 0.0
    return score / games


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--minutes", type=float, default=15.0, help="self-play time (default 15)")
    p.add_argument("--envs", type=int, default=256, help="games stepped at once (default 256)")
    p.add_argument("--opponent", default="greedy", help="the bot to evaluate against")
    p.add_argument("--eval-games", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--require-win-rate", type=float, default=None)
    p.add_argument("--save", default=None, help="write the trained weights here")
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # the machine is shared
    rules = tg.Rules(SPEC)
    net = Net(rules.observation_shape[0], rules.action_count)
    before = evaluate(net, args.opponent, args.eval_games, args.seed + 1)
    started = time.monotonic()
    games = train(net, args.minutes, args.envs, args.seed)
    trained_s = time.monotonic() - started
    after = evaluate(net, args.opponent, args.eval_games, args.seed + 1)
    if args.save:
        torch.save(net.state_dict(), args.save)
    print(json.dumps({"spec": rules.spec, "opponent": args.opponent, "games": args.eval_games,
                      "score_before": before, "score_after": after,
                      "self_play_games": games, "training_s": round(trained_s)}))
    if args.require_win_rate is not None and (after < args.require_win_rate or after <= before):
        print("selfplay.py: scored %.2f against %s (%.2f untrained); required: %.2f and better"
              % (after, args.opponent, before, args.require_win_rate), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
