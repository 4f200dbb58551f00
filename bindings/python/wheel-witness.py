#!/usr/bin/env python3
"""What the Python package computes for fixed rule sets and seeds, written to a file so that
two installations of it can be compared byte for byte: scripts/test-platforms.sh runs it with
the aarch64 wheel installed, under qemu-user, and with the package on the native library, and
diffs the two files (docs/platforms.md).

    python3 bindings/python/wheel-witness.py OUTPUT-FILE

For every game under its defaults and under each listed choice of each option, two seeds: a
seeded random game (State.apply_random), with the moves `search:nodes=` and
`mcts:iterations=` choose and the `search:nodes=` analysis (values printed exactly) at plies
0, 7 and 25, the observations and action mask there; then the final position, result, hash
and generator state, to_string(), the record, its round trip through State.from_record(),
the rendering and every move's story; and per rule set an AECEnv episode with a seeded bot
and, where numpy is installed (else a line saying it is not), a VectorEnv's steps.
Everything goes through the package's public interface, so that its ctypes declarations
(argument and result types, buffer sizes) are exercised on the platform, not only the
library. Lists, never numpy arrays, are printed: one run may have numpy and the other not.
Nothing machine-dependent is printed (no paths, timings or `time=` searches).
"""

from __future__ import annotations

import hashlib
import platform
import sys
from typing import Any, Iterable, Iterator, List

import traditional_games as tg
from traditional_games.learning import AECEnv, VectorEnv

# A small seed and a 64-bit constant: the high bits of the generator's state matter too.
SEEDS = (1, 0x9E3779B97F4A7C15)
BOT_PLIES = (0, 7, 25)
# Fixed budgets only: a `time=` search would depend on the machine's speed.
BOT_SPECS = ("search:nodes=2000", "mcts:iterations=200")
ANALYSIS_SPEC = "search:nodes=1000"
MAX_PLIES = 600
AEC_STEPS = 40
VECTOR_GAMES = 16
VECTOR_STEPS = 60


def rule_sets() -> Iterator[str]:
    """Each game's id, then the id with each listed choice other than the default (ranges
    MIN..MAX keep their default), as tests/platform/determinism.c lists them."""
    for game in tg.games():
        yield game.id
        for option in game.options:
            if "|" not in option.values:
                continue
            for choice in option.values.split("|"):
                if choice != option.default:
                    yield "%s:%s=%s" % (game.id, option.key, choice)


def numbers(values: Iterable[Any]) -> str:
    """A vector (list or numpy array) as exact decimal text, the same for both."""
    return ",".join(repr(float(v)) for v in values)


def bots(state: tg.State, seed: int) -> List[str]:
    lines = []
    for spec in BOT_SPECS:
        rng = tg.Rng(seed ^ state.ply)
        move = state.bot_choose(spec, rng)
        lines.append("bot %s at ply %d: %s rng=%016x"
                     % (spec, state.ply, state.move_to_string(move), rng.state))
    analysis = state.analyse(ANALYSIS_SPEC, tg.Rng(seed))
    lines.append("analysis at ply %d: %s" % (state.ply, " ".join(
        "%s=%r%s" % (a.name, a.value, "!" if a.proven else "") for a in analysis)))
    if not state.is_chance:
        for player in (0, 1):
            lines.append("observation %d: %s" % (player, numbers(state.observation(player))))
        lines.append("mask: %s" % "".join(str(int(v)) for v in state.action_mask()))
    return lines


def game(spec: str, seed: int) -> List[str]:
    lines = ["== %s seed=%016x" % (spec, seed)]
    with tg.State(spec) as state:
        rng = tg.Rng(seed)
        while not state.is_terminal and state.ply < MAX_PLIES:
            if state.ply in BOT_PLIES:
                lines += bots(state, seed)
            state.apply_random(rng)
        returns = state.returns if state.is_terminal else (0.0, 0.0)
        lines.append("ply=%d terminal=%d winner=%d scores=%d,%d returns=%r,%r end=%s "
                     "hash=%016x rng=%016x" % (state.ply, state.is_terminal, state.winner,
                                               state.scores[0], state.scores[1], returns[0],
                                               returns[1], state.end_reason.token, state.hash,
                                               rng.state))
        lines.append(state.to_string())
        record = state.to_record({"Event": "witness"})
        lines.append(record.rstrip("\n"))
        with tg.State.from_record(record) as replayed:
            if replayed != state or replayed.history != state.history:
                raise SystemExit("wheel-witness.py: %s seed %d: the record does not replay "
                                 "to the same game" % (spec, seed))
        lines.append(state.render().rstrip("\n"))
        for index in range(state.ply):
            lines.append("story %d: %s" % (index, " ".join(
                "%s@%s:%s:%s" % (int(e.kind), e.cell, e.count, e.player)
                for e in state.story(index))))
    return lines


def aec_episode(spec: str) -> List[str]:
    """PettingZoo's cycle without PettingZoo: greedy moves, chance drawn by the env's seed."""
    lines = ["== AECEnv %s" % spec]
    with AECEnv(spec, seed=SEEDS[1]) as env:
        bot_rng = tg.Rng(SEEDS[0])
        for _ in range(AEC_STEPS):
            if not env.agents:
                break
            agent = env.agent_selection
            _, reward, terminated, truncated, _ = env.last(observe=False)
            observation = env.observe(agent)
            if terminated or truncated:
                action = None
            else:
                move = env.state.bot_choose("greedy", bot_rng)
                action = env.state.move_to_action(move)
            lines.append("%s reward=%r mask=%s action=%s" % (
                agent, reward, "".join(str(int(v)) for v in observation["action_mask"]),
                action))
            env.step(action)
    return lines


def vector_env(spec: str) -> List[str]:
    """A VectorEnv of VECTOR_GAMES games stepped VECTOR_STEPS times with actions drawn by
    numpy's PCG64 (the same numbers on every platform) among the legal ones: a digest of the
    arrays each step returns."""
    try:
        import numpy as np
    except ImportError:
        return ["== VectorEnv %s: numpy not installed" % spec]
    lines = ["== VectorEnv %s" % spec]
    chooser = np.random.default_rng(SEEDS[0])
    with VectorEnv(spec, n=VECTOR_GAMES, seed=SEEDS[1]) as env:
        obs, info = env.reset()
        for step in range(VECTOR_STEPS):
            scores = (chooser.random(info["action_mask"].shape) + 0.5) * info["action_mask"]
            obs, rewards, terminated, _, info = env.step(scores.argmax(axis=1))
            digest = hashlib.sha256()
            # Little-endian whatever the machine's byte order, so that the digests are the
            # platform's values, not its layout.
            for array, dtype in ((obs, "<f4"), (rewards, "<f4"), (terminated, "u1"),
                                 (info["action_mask"], "i1"), (info["player"], "i1")):
                digest.update(np.ascontiguousarray(array, dtype=dtype).tobytes())
            lines.append("step %d: %s ended=%d" % (step, digest.hexdigest()[:32],
                                                   int(terminated.sum())))
    return lines


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit("usage: wheel-witness.py OUTPUT-FILE")
    lines = ["library %s, package %s" % (tg.library_version(), tg.__version__)]
    for spec in rule_sets():
        for seed in SEEDS:
            lines += game(spec, seed)
        lines += aec_episode(spec)
        lines += vector_env(spec)
    # Binary mode and "\n": the same bytes whatever the platform's newline.
    with open(sys.argv[1], "wb") as out:
        out.write(("\n".join(lines) + "\n").encode("utf-8"))
    # On stdout, not in the file: which interpreter and library made it, for the caller to
    # check (test-platforms.sh requires the installed wheel's library and an aarch64 machine).
    print("wheel-witness.py: %d lines on %s, library %s"
          % (len(lines), platform.machine(), tg.library_path()))


if __name__ == "__main__":
    main()
