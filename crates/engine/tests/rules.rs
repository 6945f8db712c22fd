//! Named rule edge cases from docs/rules.md, on positions drawn as pictures.

mod common;

use common::board;
use fanorona_engine::{
    Action, Color, DrawReason, Game, IllegalTurn, Outcome, Point, Position, Rules, Step, Turn,
    WinReason,
};

fn pt(s: &str) -> Point {
    s.parse().unwrap()
}

fn step(s: &str) -> Action {
    Action::Step(s.parse::<Step>().unwrap())
}

fn actions(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_actions().iter().map(|a| a.to_string()).collect();
    v.sort();
    v
}

fn stones(pos: &Position, c: Color) -> Vec<String> {
    pos.stones(c).iter().map(|p| p.to_string()).collect()
}

#[test]
fn approach_or_withdrawal_is_a_choice_of_two_moves() {
    let pos = board(
        ". . . . . . . . .
         . . . . . . . . .
         . . B W . B B . .
         . . . . . . . . .
         . . . . . . . . .",
        Color::White,
    );
    assert_eq!(actions(&pos), vec!["d3e3a", "d3e3w"]);
    let names = |b: fanorona_engine::Bitboard| b.iter().map(|p| p.to_string()).collect::<Vec<_>>();
    assert_eq!(
        names(pos.captured_by("d3e3a".parse().unwrap())),
        vec!["f3", "g3"]
    );
    assert_eq!(names(pos.captured_by("d3e3w".parse().unwrap())), vec!["c3"]);
    let approach = pos.apply(step("d3e3a"));
    assert_eq!(
        stones(&approach, Color::Black),
        vec!["c3"],
        "approach takes f3 and g3"
    );
    let withdrawal = pos.apply(step("d3e3w"));
    assert_eq!(
        stones(&withdrawal, Color::Black),
        vec!["f3", "g3"],
        "withdrawal takes c3"
    );
    assert_eq!(pos.count_turns(), 2);
}

#[test]
fn capture_line_stops_at_an_empty_point() {
    let pos = board(
        ". . . . . . . . .
         . . . . . . . . .
         W . B B . B . . .
         . . . . . . . . .
         . . . . . . . . .",
        Color::White,
    );
    let after = pos.apply(step("a3b3a"));
    assert_eq!(stones(&after, Color::Black), vec!["f3"]);
}

#[test]
fn capture_line_stops_at_a_friendly_stone() {
    let pos = board(
        ". . . . . . . . .
         . . . . . . . . .
         W . B W B . . . .
         . . . . . . . . .
         . . . . . . . . .",
        Color::White,
    );
    let after = pos.apply(step("a3b3a"));
    assert_eq!(stones(&after, Color::Black), vec!["e3"]);
}

#[test]
fn capture_line_runs_to_the_edge() {
    let pos = board(
        ". . . . . . . . .
         . . . . . . . . .
         W . B B B B B B B
         . . . . . . . . .
         . . . . . . . . .",
        Color::White,
    );
    let after = pos.apply(step("a3b3a"));
    assert!(after.stones(Color::Black).is_empty());
    assert_eq!(
        Game::from_position(after, Rules::default()).outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::AllCaptured
        })
    );
}

#[test]
fn chain_may_not_continue_in_the_same_direction() {
    // After b3c3w (taking a3), c3d3 would approach e3, but it repeats the direction east.
    let pos = board(
        ". . . . . . . . .
         . . . . . . . . .
         B W . . B . . . .
         . . . . . . . . .
         . . . . . . . W .",
        Color::White,
    );
    assert!(actions(&pos).contains(&"b3c3w".to_string()));
    let after = pos.apply(step("b3c3w"));
    assert!(
        after.is_turn_start(),
        "no other capture, so the turn ends by itself"
    );
    assert_eq!(after.side_to_move(), Color::Black);
    assert_eq!(stones(&after, Color::Black), vec!["e3"]);
}

#[test]
fn chain_may_change_direction() {
    // Same as above, but a stone on c5 lets the chain continue north from c3 (approach c4->c5).
    let pos = board(
        ". . B . . . . . .
         . . . . . . . . .
         B W . . B . . . .
         . . . . . . . . .
         . . . . . . . W .",
        Color::White,
    );
    let mid = pos.apply(step("b3c3w"));
    assert_eq!(mid.chain().map(|c| c.stone), Some(pt("c3")));
    assert_eq!(actions(&mid), vec!["c3c4a", "end"]);
}

#[test]
fn chain_may_not_return_to_its_starting_point() {
    // c3d3a takes e3, d3d4a takes d5; d4c3 would approach b2, but c3 is where the turn began.
    let pos = board(
        ". . . B . . . . .
         . . . . . . . . .
         . . W . B . . . .
         . B . . . . . . .
         . . . . . . . . W",
        Color::White,
    );
    let mid = pos.apply(step("c3d3a"));
    assert!(mid.chain().is_some());
    assert_eq!(actions(&mid), vec!["d3d4a", "end"]);
    let after = mid.apply(step("d3d4a"));
    assert!(after.is_turn_start(), "the only continuation revisits c3");
    assert_eq!(stones(&after, Color::Black), vec!["b2"]);
    let turns: Vec<String> = pos.legal_turns().iter().map(Turn::to_string).collect();
    assert!(!turns.iter().any(|t| t.contains("d4c3")), "{turns:?}");
}

#[test]
fn diagonal_lines_leave_only_strong_points() {
    // d3 is weak: no diagonal, so d3-e4-f5 is not a line and nothing is captured.
    let pos = board(
        ". . . . . B . . .
         . . . . . . . . .
         . . . W . . . . .
         . . . . . . . . .
         . . . . . . . . .",
        Color::White,
    );
    assert_eq!(actions(&pos), vec!["d3c3", "d3d2", "d3d4", "d3e3"]);
    // From the strong point e3 the same shape is a capture.
    let pos = board(
        ". . . . . . B . .
         . . . . . . . . .
         . . . . W . . . .
         . . . . . . . . .
         . . . . . . . . .",
        Color::White,
    );
    assert_eq!(actions(&pos), vec!["e3f4a"]);
}

#[test]
fn paika_is_illegal_while_any_capture_exists() {
    let start = Position::start();
    assert!(
        start
            .legal_actions()
            .iter()
            .all(|a| matches!(a, Action::Step(s) if s.is_capture()))
    );
    let pos = board(
        ". . . . . . . . .
         . . . . . . . . .
         . . W . B . . . .
         . . . . . . . . .
         W . . . . . . . .",
        Color::White,
    );
    let err = pos.try_play_turn(&"a1a2".parse().unwrap()).unwrap_err();
    assert!(err.to_string().contains("capturing is compulsory"), "{err}");
}

#[test]
fn chain_is_optional_and_end_turn_passes_the_move() {
    let pos = board(
        ". . B . . . . . .
         . . . . . . . . .
         B W . . B . . . .
         . . . . . . . . .
         . . . . . . . W .",
        Color::White,
    );
    let mid = pos.apply(step("b3c3w"));
    let ended = mid.apply(Action::EndTurn);
    assert!(ended.is_turn_start());
    assert_eq!(ended.side_to_move(), Color::Black);
    assert_eq!(ended.hash(), ended.compute_hash());
    // Stopping after b3c3w, and continuing with c3c4a, are two different turns.
    let turns: Vec<String> = pos.legal_turns().iter().map(Turn::to_string).collect();
    assert!(turns.contains(&"b3c3w".to_string()) && turns.contains(&"b3c3w,c3c4a".to_string()));
}

#[test]
fn captured_stones_leave_the_board_at_once() {
    // d3d2w takes d4; d2e3w takes c1; e3d4w then lands on d4, emptied two steps earlier.
    let pos: Position = "9/3B5/3W2B2/2B2B1W1/1BBW5 w 0 1".parse().unwrap();
    let turn: Turn = "d3d2w,d2e3w,e3d4w".parse().unwrap();
    let after = pos.try_play_turn(&turn).unwrap();
    assert_eq!(after.color_at(pt("d4")), Some(Color::White));
    assert_eq!(stones(&after, Color::Black), vec!["b1", "c2", "g3"]);
}

#[test]
fn whole_turns_are_checked_step_by_step() {
    let pos = Position::start();
    let err = pos
        .try_play_turn(&"d2e3a,e3e4a".parse().unwrap())
        .unwrap_err();
    assert!(
        matches!(err, IllegalTurn::TurnAlreadyOver { index: 1, .. }),
        "{err}"
    );
    let err = pos.try_play_turn(&"e2e3w".parse().unwrap()).unwrap_err();
    assert!(
        err.to_string().contains("step 1 (e2e3w) is illegal"),
        "{err}"
    );
}

#[test]
fn a_side_with_stones_but_no_move_loses() {
    let pos = board(
        ". . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         B B . . . . . . .
         W B . . . . . . .",
        Color::White,
    );
    assert!(pos.legal_actions().is_empty());
    let game = Game::from_position(pos, Rules::default());
    assert_eq!(
        game.outcome(),
        Some(Outcome::Win {
            winner: Color::Black,
            reason: WinReason::NoLegalMove
        })
    );
}

fn shuffle_game(rules: Rules) -> Game {
    let pos = board(
        ". . . . . . . . B
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         W . . . . . . . .",
        Color::White,
    );
    Game::from_position(pos, rules)
}

#[test]
fn threefold_repetition_is_a_draw() {
    let mut game = shuffle_game(Rules::default());
    let cycle = ["a1a2", "i5i4", "a2a1", "i4i5"];
    for t in cycle {
        game.play_turn(&t.parse().unwrap()).unwrap();
    }
    assert_eq!(game.repetition_count(), 2);
    assert_eq!(
        game.history().len(),
        5,
        "start plus four paika turns since the last capture"
    );
    assert_eq!(game.history()[0], game.position().hash());
    assert_eq!(game.outcome(), None);
    for t in cycle {
        game.play_turn(&t.parse().unwrap()).unwrap();
    }
    assert_eq!(game.repetition_count(), 3);
    assert_eq!(game.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
    let err = game.play_turn(&"a1a2".parse().unwrap()).unwrap_err();
    assert!(matches!(err, IllegalTurn::GameOver(_)));
}

#[test]
fn no_progress_draw_after_the_configured_number_of_turns() {
    let mut game = shuffle_game(Rules {
        no_progress_limit: 4,
    });
    for t in ["a1b1", "i5h5", "b1c1"] {
        game.play_turn(&t.parse().unwrap()).unwrap();
        assert_eq!(game.outcome(), None);
    }
    game.play_turn(&"h5g5".parse().unwrap()).unwrap();
    assert_eq!(game.position().no_capture_turns(), 4);
    assert_eq!(game.outcome(), Some(Outcome::Draw(DrawReason::NoProgress)));
}

#[test]
fn default_no_progress_limit_is_fifty_turns() {
    // Start with 46 turns already without a capture (the counter field of the notation).
    let pos: Position = "8B/9/9/9/W8 w 46 30".parse().unwrap();
    let mut game = Game::from_position(pos, Rules::default());
    for t in ["a1b1", "i5h5", "b1c1"] {
        game.play_turn(&t.parse().unwrap()).unwrap();
        assert_eq!(game.outcome(), None);
    }
    assert_eq!(game.position().no_capture_turns(), 49);
    game.play_turn(&"h5g5".parse().unwrap()).unwrap();
    assert_eq!(game.outcome(), Some(Outcome::Draw(DrawReason::NoProgress)));
}

#[test]
fn a_capture_resets_the_no_progress_counter() {
    let pos: Position = "9/9/9/9/W1B6 w 7 3".parse().unwrap();
    assert_eq!(pos.no_capture_turns(), 7);
    let after = pos.apply(step("a1b1a"));
    assert_eq!(after.no_capture_turns(), 0);
    let paika: Position = "9/9/9/9/W7B w 7 3".parse().unwrap();
    assert_eq!(paika.apply(step("a1b1")).no_capture_turns(), 8);
}

#[test]
fn turn_numbers_count_after_blacks_turn() {
    let pos = Position::start();
    let after_white = pos.apply(step("d2e3a"));
    assert_eq!(
        (after_white.turn_number(), after_white.side_to_move()),
        (1, Color::Black)
    );
    let black_turn = after_white.legal_turns()[0];
    let after_black = after_white.try_play_turn(&black_turn).unwrap();
    assert_eq!(
        (after_black.turn_number(), after_black.side_to_move()),
        (2, Color::White)
    );
}
