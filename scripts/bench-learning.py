"""VectorEnv.step's speed (docs/learning.md, "Measured"), for scripts/bench-learning.sh: for each
rule set named, n games stepped with random legal actions chosen in numpy (uniform noise on the
legal entries of info["action_mask"], argmax per game), steps per second over SECONDS, and the
share of the time spent inside the library. Prints one JSON object per rule set.

    python3 scripts/bench-learning.py SECONDS N SPEC...   (TG_LIBRARY, PYTHONPATH as for tests)
"""

import json
import sys
import time

import numpy as np

from traditional_games.learning import VectorEnv


def main() -> None:
    seconds, n, specs = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    for spec in specs:
        with VectorEnv(spec, n=n, seed=1) as env:
            obs, info = env.reset()
            rng = np.random.default_rng(0)
            noise = np.empty(info["action_mask"].shape)
            steps, in_step = 0, 0.0
            t0 = time.perf_counter()
            t = t0
            while t - t0 < seconds:
                rng.random(out=noise)
                noise *= info["action_mask"]  # each step's info is a new dict of new arrays
                actions = noise.argmax(axis=1)
                t1 = time.perf_counter()
                obs, _, _, _, info = env.step(actions)
                t = time.perf_counter()
                in_step += t - t1
                steps += n
            print(json.dumps({"spec": env.rules.spec, "n": n,
                              "vector_env_steps_per_s": round(steps / (t - t0)),
                              "step_call_share": round(in_step / (t - t0), 2)}), flush=True)


if __name__ == "__main__":
    main()
