"""Whole-turn sets against fanorona-aec 3.0.2 (PyPI), the Fanorona environment people use today.

Positions come from random games of this engine; at each turn start fanorona-aec's whole
turns are enumerated from its own step-level moves (each chain closed by its end-turn
action) and compared with `Game.legal_turns()`. Its rules differ from this project's in
ways that never show in a single position's turn set (a 44-turn draw instead of the
no-progress and repetition rules; it assumes a side with stones can always move), so no
position is skipped for them; positions where the game is over here are not compared.
"""

import copy
import random

import pytest

import fanorona as f

state_module = pytest.importorskip("env.fanorona_state", reason="fanorona-aec is not installed")
move_module = pytest.importorskip("env.fanorona_move")
FanoronaState = state_module.FanoronaState
FanoronaMove = move_module.FanoronaMove


def their_state(fen: str):
    """fanorona-aec's state for a position in this project's notation (turn start)."""
    rows, side = fen.split()[:2]
    board = "/".join(reversed(rows.split("/")))  # theirs lists row 1 first
    state = FanoronaState()
    state.set_from_board_str(f"{board} {side.upper()} - - - 0")
    return state


def their_step(move) -> str:
    """A fanorona-aec step in this project's step notation (`d2e3a`)."""
    to = move.position.displace(move.direction)
    suffix = ["", "a", "w"][int(move.move_type)]
    return f"{move.position.to_human().lower()}{to.to_human().lower()}{suffix}"


def their_turns(state) -> set[str]:
    turns: set[str] = set()

    def extend(st, path):
        for action in set(st.legal_moves):
            move = FanoronaMove.from_action(action)
            if move.end_turn:
                turns.add(",".join(path))
                continue
            after = copy.deepcopy(st)
            after.push(move)
            step = [*path, their_step(move)]
            if after.turn_to_play != st.turn_to_play:
                turns.add(",".join(step))
            else:
                extend(after, step)

    extend(state, [])
    return turns


def test_whole_turn_sets_agree_with_fanorona_aec():
    rng = random.Random(2026)
    compared = 0
    while compared < 2000:
        game = f.Game()
        while not game.is_over and game.turn_number <= 40 and compared < 2000:
            ours = set(game.legal_turns())
            theirs = their_turns(their_state(game.fen))
            assert theirs == ours, f"{game.fen}: only theirs {theirs - ours}, only ours {ours - theirs}"
            compared += 1
            game.play_turn(rng.choice(sorted(ours)))
    assert compared == 2000
