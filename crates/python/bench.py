"""Steps a second of the Python environments, random legal actions (docs/python.md).

    python crates/python/bench.py [--seconds 5] [--envs 1024]

Prints the PettingZoo AEC environment's rate in one Python process, the batched
`VectorEnv`'s on every core, and fanorona-aec 3.0.2's AEC environment's rate when it is
installed (`pip install fanorona-aec==3.0.2`; its `pettingzoo.utils.agent_selector` import is
patched to the class newer PettingZoo releases name `AgentSelector`).
"""

import argparse
import os
import random
import time

import fanorona
from pettingzoo.utils import wrappers

from fanorona.envs import env


def aec_rate(make, seconds: float, legal) -> float:
    """Steps a second of an AEC environment played with random legal actions."""
    env = make()
    env.reset(seed=0)
    rng = random.Random(0)
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset()
            continue
        env.step(rng.choice(legal(env)))
        steps += 1
    return steps / (time.perf_counter() - started)


def vector_rate(n: int, seconds: float) -> float:
    env = fanorona.VectorEnv(n, seed=0)
    env.reset()
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        env.step(env.sample_actions())
        steps += n
    return steps / (time.perf_counter() - started)


def theirs():
    """fanorona-aec's environment, or None when it is not installed."""
    try:
        import pettingzoo.utils
        from env import fanorona_env
    except ImportError:
        return None
    fanorona_env.agent_selector = pettingzoo.utils.AgentSelector
    return fanorona_env.raw_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--envs", type=int, default=1024)
    args = parser.parse_args()
    print(f"fanorona {fanorona.__version__}, {os.cpu_count()} cores")
    ours = aec_rate(env, args.seconds, lambda e: e.legal_actions())
    print(f"AEC environment, env() (one process):   {ours:12,.0f} steps/s")

    def wrapped_env():
        return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env()))

    wrapped = aec_rate(wrapped_env, args.seconds, lambda e: e.unwrapped.legal_actions())
    print(f"... inside PettingZoo's two wrappers:   {wrapped:12,.0f} steps/s")
    batched = vector_rate(args.envs, args.seconds)
    print(f"VectorEnv, {args.envs} games (every core):   {batched:12,.0f} steps/s")
    make = theirs()
    if make is None:
        print("fanorona-aec: not installed")
        return
    import numpy as np

    rate = aec_rate(lambda: make(render_mode=None), args.seconds, lambda e: np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist())
    print(f"fanorona-aec 3.0.2 AEC environment:     {rate:12,.0f} steps/s")
    print(f"ratios to fanorona-aec: env() {ours / rate:,.0f}x, VectorEnv {batched / rate:,.0f}x")


if __name__ == "__main__":
    main()
