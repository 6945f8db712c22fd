"""The batched environment against games stepped one by one."""

import numpy as np
import pytest

import fanorona as f


def test_the_batch_matches_single_games_step_for_step():
    n = 37
    env = f.VectorEnv(n, seed=5, no_progress_limit=20, threads=2)
    obs, info = env.reset()
    games = [f.Game(no_progress_limit=20) for _ in range(n)]
    finished = 0
    for _ in range(400):
        for i, g in enumerate(games):
            np.testing.assert_array_equal(obs[i], g.observation())
            np.testing.assert_array_equal(info["action_mask"][i], g.action_mask())
            assert info["to_move"][i] == g.player
        actions = env.sample_actions()
        assert actions.dtype == np.int64 and actions.shape == (n,)
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert not truncated.any()
        for i, g in enumerate(games):
            mover = g.side_to_move
            g.step(int(actions[i]))
            assert terminated[i] == g.is_over
            if g.is_over:
                finished += 1
                winner = g.outcome.winner
                assert info["winner"][i] == {None: -1, "white": 0, "black": 1}[winner]
                assert rewards[i] == (0 if winner is None else (1 if winner == mover else -1))
                games[i] = f.Game(no_progress_limit=20)
            else:
                assert rewards[i] == 0 and info["winner"][i] == -1
            assert env.game(i).fen == games[i].fen
    assert finished > 10


def test_an_illegal_action_moves_no_game():
    env = f.VectorEnv(4, seed=1)
    env.reset()
    good = env.sample_actions()
    bad = good.copy()
    bad[2] = 0  # a1's paika north: not legal at the start
    with pytest.raises(f.FanoronaError, match="game 2"):
        env.step(bad)
    assert all(env.game(i).fen == f.START_FEN for i in range(4))
    # Any integer array or a list will do.
    env.step(good.astype(np.int32).tolist())
    with pytest.raises(f.FanoronaError, match="3 actions for 4 games"):
        env.step(good[:3])
    with pytest.raises(f.FanoronaError, match="num_envs"):
        f.VectorEnv(0)
    with pytest.raises(f.FanoronaError, match="num_envs"):
        f.VectorEnv(1 << 17)
    with pytest.raises(f.FanoronaError, match="does not exist"):
        env.game(9)


def test_seeds_replay_and_differ():
    def play(seed):
        env = f.VectorEnv(8, seed=seed)
        env.reset()
        total = []
        for _ in range(50):
            a = env.sample_actions()
            total.append(a)
            env.step(a)
        return np.stack(total)

    assert (play(3) == play(3)).all()
    assert (play(3) != play(4)).any()
