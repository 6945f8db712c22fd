"""The game through Python: notation, rules cases, counters, arrays, action indices."""

import random
from pathlib import Path

import numpy as np
import pytest

import fanorona as f


PERFT = Path(__file__).resolve().parents[2] / "engine" / "tests" / "data" / "perft.txt"


def test_start_position_and_perft_against_the_engines_data():
    g = f.Game()
    assert g.fen == f.START_FEN
    assert g.side_to_move == "white" and g.player == 0
    assert g.stones == (22, 22)
    assert sorted(g.legal_turns()) == sorted(["d2e3a", "e2e3a", "f2e3a", "d3e3a", "d3e3w"])
    assert g.perft(3) == 724
    checked = 0
    for line in PERFT.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fen, counts = line.split(";")
        for depth, count in enumerate(counts.split(), start=1):
            if int(count) <= 100_000:
                assert f.perft(fen.strip(), depth) == int(count), (fen, depth)
                checked += 1
    assert checked > 30


def test_a_capture_chain_step_by_step():
    # docs/rules.md: a chain may change direction (the engine's rules test of that name).
    g = f.Game("2B6/9/BW2B4/9/7W1 w 0 1")
    g.step("b3c3w")
    assert g.in_chain and g.side_to_move == "white"
    assert g.legal_steps() == ["c3c4a", "end"]
    assert g.stones == (2, 2)
    g.step("end")
    assert not g.in_chain and g.side_to_move == "black"
    assert g.no_progress == 0
    # The same turn as a whole: the chain's steps joined by commas.
    h = f.Game("2B6/9/BW2B4/9/7W1 w 0 1")
    assert "b3c3w,c3c4a" in h.legal_turns()
    h.play_turn("b3c3w,c3c4a")
    assert h.stones == (2, 1) and h.side_to_move == "black"


def test_bad_input_raises_with_the_engines_message():
    with pytest.raises(f.FanoronaError, match="row"):
        f.Game("BBBBBBBBB/BBBBBBBBB w 0 1")
    g = f.Game()
    with pytest.raises(f.FanoronaError, match="bad step"):
        g.step("z9z9")
    with pytest.raises(f.FanoronaError):
        g.step("a1a2")  # paika while a capture exists
    with pytest.raises(f.FanoronaError, match="action index"):
        g.step(5000)
    with pytest.raises(f.FanoronaError, match="bad turn"):
        g.play_turn("nonsense")
    with pytest.raises(f.FanoronaError, match="out of range"):
        f.Game(no_progress_limit=10**6)
    with pytest.raises(f.FanoronaError, match="perft depth"):
        f.perft(f.START_FEN, 99)
    # Nothing was played by the failed calls.
    assert g.fen == f.START_FEN
    assert issubclass(f.FanoronaError, ValueError)


def test_the_end_of_a_game_and_its_reason():
    # White takes Black's last stone: all captured.
    g = f.Game("9/9/9/9/W1B6 w 0 1")
    assert g.legal_turns() == ["a1b1a"]
    g.play_turn("a1b1a")
    assert g.is_over
    assert g.outcome.winner == "white" and g.outcome.reason == "all-captured"
    assert g.outcome.score == "1-0"
    assert g.legal_actions() == [] and not g.action_mask().any()
    with pytest.raises(f.FanoronaError, match="over"):
        g.step(0)


def test_no_progress_draw_and_counter():
    g = f.Game("B8/9/9/9/8W w 0 1", no_progress_limit=4)
    for _ in range(4):
        assert not g.is_over
        g.play_turn(g.legal_turns()[0])
    assert g.no_progress == 4
    assert g.outcome.winner is None and g.outcome.reason == "no-progress"


def test_repetition_is_counted():
    g = f.Game("B8/9/9/9/8W w 0 1")
    for turn in ["i1h1", "a5b5", "h1i1", "b5a5"]:
        g.play_turn(turn)
    assert g.repetitions == 2
    for turn in ["i1h1", "a5b5", "h1i1", "b5a5"]:
        g.play_turn(turn)
    assert g.is_over and g.outcome.reason == "repetition"


def test_observation_planes_from_the_movers_side():
    g = f.Game()
    obs = g.observation()
    assert obs.shape == (16, 5, 9) and obs.dtype == np.float32
    assert obs[0].sum() == 22 and obs[1].sum() == 22
    # The mover's stones fill rows 1 and 2 (the first two rows of the array).
    assert obs[0, :2].all()
    g.play_turn("d3e3a")
    black = g.observation()
    # Black sees the board turned: its own stones are on the first rows too.
    assert black[0, :2].all() and black[0].sum() == 21 and black[1].sum() == 22
    mask = g.action_mask()
    assert mask.dtype == np.bool_ and mask.shape == (f.ACTION_COUNT,)
    assert sorted(np.flatnonzero(mask).tolist()) == sorted(g.legal_actions())


def test_action_indices_round_trip_over_random_games():
    rng = random.Random(3)
    seen = 0
    for _ in range(20):
        g = f.Game()
        while not g.is_over and g.turn_number < 60:
            side = g.side_to_move
            steps = g.legal_steps()
            actions = g.legal_actions()
            assert len(steps) == len(actions) == len(set(actions))
            for step, index in zip(steps, actions):
                assert f.action_index(step, side) == index
                assert f.index_action(index, side) == step
                seen += 1
            g.step(rng.choice(actions))
    assert seen > 1000
    assert f.index_action(f.END_TURN_INDEX, "black") == "end"
    with pytest.raises(f.FanoronaError):
        f.index_action(-1, "white")
    with pytest.raises(f.FanoronaError):
        f.action_index("d2e3a", "green")


def test_copies_are_independent():
    import copy

    g = f.Game()
    h = copy.deepcopy(g)
    g.play_turn("d3e3a")
    assert h.fen == f.START_FEN and g.fen != f.START_FEN
    assert repr(h) == f'Game("{f.START_FEN}")'
