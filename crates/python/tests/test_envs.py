"""The PettingZoo and Gymnasium environments: their own API checks and real games."""

import random

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import fanorona as f
from fanorona.envs import FanoronaEnv, env, raw_env


# api_test's two notes on a dict observation (every masked PettingZoo game has one).
@pytest.mark.filterwarnings("ignore:Observation")
def test_pettingzoo_api_test_passes():
    api_test(env(), num_cycles=300)


def test_random_aec_games_end_with_opposite_rewards():
    e = env()
    rng = random.Random(1)
    for game in range(5):
        e.reset(seed=game)
        steps = 0
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, info = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            assert obs["action_mask"].dtype == np.int8
            e.step(int(rng.choice(legal)))
            steps += 1
        unwrapped = e.unwrapped
        outcome = unwrapped.game.outcome
        assert outcome is not None and steps > 10
        total = unwrapped._cumulative_rewards  # noqa: SLF001 (what last() reported)
        assert sum(total.values()) == 0


def test_an_illegal_aec_action_loses_for_its_player():
    e = raw_env()
    e.reset()
    e.step(0)  # a1's paika north: illegal at the start
    assert e.terminations == {"player_0": True, "player_1": True}
    assert e.rewards == {"player_0": -1, "player_1": 0}
    assert e.infos["player_0"]["illegal_move"]


def test_aec_calls_out_of_order_or_range_are_refused():
    e = env()
    with pytest.raises(f.FanoronaError, match="before reset"):
        e.step(0)
    with pytest.raises(f.FanoronaError, match="before reset"):
        e.observe("player_0")
    e.reset()
    e.step(f.ACTION_COUNT + 7)  # out of the action space: an illegal action
    assert e.rewards["player_0"] == -1 and e.terminations["player_1"]


def test_aec_reset_from_a_position():
    e = raw_env()
    e.reset(options={"fen": "9/9/9/9/W1B6 b 0 1"})
    assert e.agent_selection == "player_1"


def test_gymnasium_env_checker_passes():
    check_env(FanoronaEnv(opponent="random"), skip_render_check=True)


def test_a_gymnasium_game_against_a_built_in_player():
    e = gymnasium.make("fanorona/Fanorona-v0", opponent="greedy", side="black")
    obs, info = e.reset(seed=3)
    # The opponent (White) has played its first turn already.
    assert info["side"] == "black" and obs.shape == (16, 5, 9)
    rng = np.random.default_rng(0)
    terminated, reward, steps = False, 0.0, 0
    while not terminated:
        action = rng.choice(np.flatnonzero(info["action_mask"]))
        obs, reward, terminated, truncated, info = e.step(action)
        steps += 1
    assert reward in (-1.0, 0.0, 1.0)
    assert info["reason"] in ("all-captured", "no-legal-move", "repetition", "no-progress")
    with pytest.raises(f.FanoronaError, match="finished"):
        e.unwrapped.step(0)


def test_gymnasium_env_refuses_bad_settings():
    with pytest.raises(f.FanoronaError, match="unknown"):
        FanoronaEnv(opponent="chess")
    with pytest.raises(ValueError, match="side"):
        FanoronaEnv(side="green")
    e = FanoronaEnv(opponent="random")
    e.reset(seed=0)
    obs, reward, terminated, truncated, info = e.step(0)  # a1's paika north: illegal
    assert (reward, terminated) == (-1.0, True) and "illegal" in info["illegal_move"]
    with pytest.raises(f.FanoronaError, match="finished"):
        e.step(0)
