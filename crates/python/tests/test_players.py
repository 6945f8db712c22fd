"""Players from spec text, and endgame-table probes."""

import os

import pytest

import fanorona as f


def test_a_player_chooses_a_legal_turn_and_its_actions_play_it():
    g = f.Game()
    p = f.Player("alphabeta:depth=2")
    searched = 0
    for _ in range(12):
        choice = p.choose(g)
        assert choice.turn in g.legal_turns()
        # A turn with no alternative is played without a search.
        if len(g.legal_turns()) > 1:
            assert choice.depth == 2 and choice.nodes > 0
            assert choice.score.startswith(("cs", "win", "loss"))
            searched += 1
        by_turn = g.copy()
        by_turn.play_turn(choice.turn)
        for a in choice.actions:
            g.step(a)
        assert g.fen == by_turn.fen and not g.in_chain
        if g.is_over:
            break
    assert searched > 5


def test_the_shipped_learned_evaluation_plays():
    choice = f.Player("alphabeta:depth=1,eval=learned").choose(f.Game())
    assert choice.turn in f.Game().legal_turns()


def test_bad_specs_say_what_is_wrong():
    with pytest.raises(f.FanoronaError, match="depth"):
        f.Player("alphabeta:depth=0")
    with pytest.raises(f.FanoronaError, match="network players"):
        f.Player("net:path=missing.fnm")
    with pytest.raises(f.FanoronaError, match="no such directory"):
        f.Player("alphabeta:depth=1", tablebases="/nonexistent/tables")
    g = f.Game("9/9/9/9/W1B6 w 0 1")
    g.play_turn("a1b1a")
    with pytest.raises(f.FanoronaError, match="over"):
        f.Player("random").choose(g)


TABLES = os.environ.get("FANORONA_TEST_TABLES")


@pytest.mark.skipif(not TABLES, reason="FANORONA_TEST_TABLES names no built tables (scripts/test.sh builds them)")
def test_table_probes_agree_with_play():
    tb = f.Tablebase(TABLES)
    assert tb.max_stones >= 3
    # One stone each, far apart: a draw; White to take Black's last stone: a win in one.
    assert tb.probe("B8/9/9/9/8W w 0 1") == ("draw", 0)
    assert tb.probe(f.Game("9/9/9/9/W1B6 w 0 1")) == ("win", 1)
    assert tb.probe(f.START_FEN) is None
    chain = f.Game("2B6/9/BW2B4/9/7W1 w 0 1")
    chain.step("b3c3w")
    with pytest.raises(f.FanoronaError, match="capture chain"):
        tb.probe(chain)
    # The table's player keeps the result it promises.
    p = f.Player("alphabeta:depth=1", tablebases=TABLES)
    g = f.Game("9/9/9/1B7/W1W6 b 0 1")
    wdl, _ = tb.probe(g)
    while not g.is_over:
        g.play_turn(p.choose(g).turn)
    expected = {"win": "black", "loss": "white", "draw": None}[wdl]
    assert g.outcome.winner == expected
