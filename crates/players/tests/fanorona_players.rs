//! The Fanorona players on hand-made positions whose answers are worked out by hand.
//!
//! Positions are written in the notation of docs/rules.md, rows 5 down to 1. Each test says why its
//! answer is right; the engine is only used to play the moves, never to decide what is right.

use fanorona_engine::{Action, Color, DrawReason, Game, Outcome, Position, Rules, Turn};
use fanorona_mcts::{GameState, RolloutEvaluator, Search, SearchConfig};
use fanorona_players::FanoronaState;
use fanorona_players::{
    AlphaBetaConfig, AlphaBetaPlayer, GreedyPlayer, Limit, MctsConfig, MctsPlayer, Player,
    RandomPlayer, Score, evaluate,
};

fn game(fen: &str) -> Game {
    Game::from_position(fen.parse::<Position>().unwrap(), Rules::default())
}

fn turn(text: &str) -> Turn {
    text.parse().unwrap()
}

fn alphabeta(depth: u32) -> AlphaBetaPlayer {
    AlphaBetaPlayer::new(AlphaBetaConfig {
        depth: Some(depth),
        ..AlphaBetaConfig::default()
    })
}

/// White a1; Black c1, d1 on row 1 and b3, b4, b5 on file b. White's only capture is a1b1a
/// (approach, taking c1 and d1; the run stops at the empty e1 or White's e1). From b1 (a weak
/// point: no diagonals) the chain can only go on north, b1b2a, which approaches b3 and takes
/// b3, b4, b5: every Black stone. Stopping after a1b1a leaves three.
///
/// White e1 adds a decoy: e1f1w withdraws from d1 and takes d1 and c1, two stones like
/// a1b1a's first step, but cannot go on (f1 is weak and nothing lies north of it).
const CHAIN_WIPEOUT: &str = "1B7/1B7/1B7/9/W1BBW4 w";
const WIPEOUT_TURN: &str = "a1b1a,b1b2a";

/// Black a1 alone in the corner; White a2, a3, b1, c1, b3. a1's neighbours are a2, b1 and b2
/// (a1 is strong, so the diagonal to b2 exists). White has no capture: approaching a1 means
/// stepping onto b2 from c3 (empty), and the stones next to a1 cannot withdraw (a3 and c1 are
/// White). Filling b2 without emptying a2 or b1 leaves Black with stones but no legal move,
/// which loses: b3b2, a3b2 (diagonal) and c1b2 (diagonal) all do it. a2b2 and b1b2 free a
/// point next to a1 instead.
const BLOCKADE: &str = "9/9/WW7/W8/BWW6 w";
const BLOCKADE_WINS: [&str; 3] = ["b3b2", "a3b2", "c1b2"];

/// A win in three turns by zugzwang. Black a5 alone in the corner; White a2, b4, c3; White to
/// move. White has no capture (nothing can step next to a5 towards it; b4 could withdraw from
/// a5 only onto c3, which is taken), and no single paika move fills both a4 and b5, so there is
/// no win in one. But Black must move: b4 is taken, so a5 can only go to a4 or to b5, and b4
/// then withdraws from it (b4c4w from a4, b4b3w from b5) and takes Black's last stone. Any
/// White move that keeps b4, c4, b3 and c3 as they are and gives Black no capture wins in three
/// turns, a2b2 for one. a2a3 does too, differently: it offers a3, Black's only legal turn is
/// then the capture a5a4a (compulsory), and b4c4w takes the capturing stone.
const ZUGZWANG: &str = "B8/1W7/2W6/W8/9 w";

#[test]
fn alphabeta_plays_the_chain_that_wipes_out_the_opponent() {
    for depth in [1, 2, 4] {
        let choice = alphabeta(depth).choose(&game(CHAIN_WIPEOUT), None).unwrap();
        assert_eq!(choice.turn, turn(WIPEOUT_TURN), "depth {depth}");
        assert_eq!(choice.info.score, Some(Score::WinIn(1)), "depth {depth}");
    }
}

#[test]
fn alphabeta_blocks_the_last_stone() {
    for depth in [1, 3] {
        let mut g = game(BLOCKADE);
        let choice = alphabeta(depth).choose(&g, None).unwrap();
        assert!(
            BLOCKADE_WINS.contains(&choice.turn.to_string().as_str()),
            "depth {depth}: {}",
            choice.turn
        );
        assert_eq!(choice.info.score, Some(Score::WinIn(1)));
        g.play_turn(&choice.turn).unwrap();
        assert_eq!(g.outcome().and_then(Outcome::winner), Some(Color::White));
    }
}

#[test]
fn alphabeta_finds_a_win_in_three() {
    let g = game(ZUGZWANG);
    let choice = alphabeta(3).choose(&g, None).unwrap();
    assert_eq!(choice.info.score, Some(Score::WinIn(3)), "{}", choice.turn);
    // Whatever Black replies, White then takes the last stone.
    let mut after = g.clone();
    after.play_turn(&choice.turn).unwrap();
    let replies = after.position().legal_turns();
    assert!(!replies.is_empty());
    for reply in replies {
        let mut g2 = after.clone();
        g2.play_turn(&reply).unwrap();
        let finish = alphabeta(1).choose(&g2, None).unwrap();
        assert_eq!(finish.info.score, Some(Score::WinIn(1)), "after {reply}");
        g2.play_turn(&finish.turn).unwrap();
        assert!(
            g2.position().stones(Color::Black).is_empty(),
            "after {reply}"
        );
    }
    // Seen from the losing side after the waiting move a2b2: both of Black's moves lose.
    let mut waited = game(ZUGZWANG);
    waited.play_turn(&turn("a2b2")).unwrap();
    let black = alphabeta(2).choose(&waited, None).unwrap();
    assert_eq!(black.info.score, Some(Score::LossIn(2)));
    // The lure line.
    let mut lure = game(ZUGZWANG);
    lure.play_turn(&turn("a2a3")).unwrap();
    let replies: Vec<String> = lure
        .position()
        .legal_turns()
        .iter()
        .map(Turn::to_string)
        .collect();
    assert_eq!(replies, vec!["a5a4a"]);
    let reply = alphabeta(2).choose(&lure, None).unwrap();
    assert_eq!(reply.turn, turn("a5a4a"));
    assert_eq!(
        reply.info.score, None,
        "a forced turn is played without searching"
    );
    lure.play_turn(&reply.turn).unwrap();
    assert_eq!(
        alphabeta(1).choose(&lure, None).unwrap().turn,
        turn("b4c4w")
    );
}

#[test]
fn alphabeta_time_limit_gives_a_legal_turn() {
    let g = Game::new(Rules::default());
    let mut player = AlphaBetaPlayer::new(AlphaBetaConfig {
        depth: None,
        millis: Some(50),
        ..AlphaBetaConfig::default()
    });
    let choice = player.choose(&g, None).unwrap();
    assert!(g.position().try_play_turn(&choice.turn).is_ok());
    assert!(choice.info.depth.is_some_and(|d| d >= 1));
    assert!(choice.info.nodes > 0);
}

/// Plain negamax to a fixed depth with the same rules and leaf evaluation, no pruning, no
/// table, no quiescence: alpha-beta must return the same value.
fn reference_negamax(pos: &Position, depth: u32, ply: i32) -> i32 {
    const WIN: i32 = 30_000;
    let us = pos.side_to_move();
    if pos.stones(us).is_empty() {
        return -(WIN - ply);
    }
    if pos.stones(!us).is_empty() {
        return WIN - ply;
    }
    if !pos.has_legal_action() {
        return -(WIN - ply);
    }
    if ply > 0 && pos.no_capture_turns() >= Rules::default().no_progress_limit {
        return 0;
    }
    if depth == 0 {
        return evaluate(pos);
    }
    let mut best = i32::MIN;
    pos.for_each_turn(|_, child| {
        best = best.max(-reference_negamax(child, depth - 1, ply + 1));
    });
    best
}

#[test]
fn alphabeta_agrees_with_plain_negamax() {
    let mut checked = 0;
    for seed in 0..6u64 {
        for plies in [3, 9, 17, 25] {
            let mut g = Game::new(Rules::default());
            for t in fanorona_players::random_opening(seed, plies, Rules::default()) {
                g.play_turn(&t).unwrap();
            }
            // Only positions whose tree is small enough for the plain search.
            if g.position().count_turns() > 40 {
                continue;
            }
            for depth in [1, 2, 3] {
                let expected = reference_negamax(g.position(), depth, 0);
                let mut player = AlphaBetaPlayer::new(AlphaBetaConfig {
                    depth: Some(depth),
                    quiescence: 0,
                    tt_mebibytes: 1,
                    ..AlphaBetaConfig::default()
                });
                let choice = player.choose(&g, None).unwrap();
                if g.position().count_turns() == 1 {
                    continue; // a forced turn is played without searching
                }
                let got = match choice.info.score.unwrap() {
                    Score::Centistones(s) => s,
                    Score::WinIn(n) => 30_000 - n as i32,
                    Score::LossIn(n) => -(30_000 - n as i32),
                    Score::Value(_) | Score::Tablebase(_) | Score::Proven(_) => unreachable!(),
                };
                assert_eq!(got, expected, "seed {seed}, plies {plies}, depth {depth}");
                // The chosen turn achieves that value.
                let child = g.position().try_play_turn(&choice.turn).unwrap();
                assert_eq!(-reference_negamax(&child, depth - 1, 1), expected);
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} positions checked");
}

#[test]
fn root_turns_within_the_margin_get_the_plain_negamax_value_and_the_rest_a_true_upper_bound() {
    const MARGIN: i32 = 60;
    let (mut exact_seen, mut bounds_seen) = (0, 0);
    for seed in 0..6u64 {
        for plies in [3, 9, 17, 25] {
            let mut g = Game::new(Rules::default());
            for t in fanorona_players::random_opening(seed, plies, Rules::default()) {
                g.play_turn(&t).unwrap();
            }
            if g.position().count_turns() > 40 || g.position().count_turns() < 2 {
                continue;
            }
            for depth in [1, 2, 3] {
                let mut player = AlphaBetaPlayer::new(AlphaBetaConfig {
                    depth: Some(depth),
                    quiescence: 0,
                    tt_mebibytes: 1,
                    ..AlphaBetaConfig::default()
                })
                .score_root_turns(MARGIN as u32);
                let choice = player.choose(&g, None).unwrap();
                let roots = player.take_root_scores();
                assert_eq!(
                    roots.len() as u64,
                    g.position().count_turns(),
                    "every root turn"
                );
                let truth = |turn: &Turn| {
                    let child = g.position().try_play_turn(turn).unwrap();
                    -reference_negamax(&child, depth - 1, 1)
                };
                let best = reference_negamax(g.position(), depth, 0);
                let chosen = roots.iter().find(|r| r.turn == choice.turn).unwrap();
                assert!(
                    chosen.exact && chosen.value == best,
                    "seed {seed} depth {depth}"
                );
                for r in &roots {
                    let value = truth(&r.turn);
                    if r.exact {
                        assert_eq!(r.value, value, "seed {seed} plies {plies} depth {depth}");
                        exact_seen += 1;
                    } else {
                        assert!(value <= r.value, "a bound below the value");
                        assert!(value <= best - MARGIN, "a turn within the margin unscored");
                        bounds_seen += 1;
                    }
                }
            }
        }
    }
    assert!(
        exact_seen >= 50 && bounds_seen >= 50,
        "{exact_seen} exact, {bounds_seen} bounds"
    );
}

/// White's stone shuttles a1-a2-b2-a2-b2 while Black's i5 shuttles to h5 and back, all paika
/// (the two sides are far apart). Afterwards White (on b2, to move) has seen the position
/// "White a2, Black i5 and i4, Black to move" twice, so b2a2 makes it a third time: a draw.
fn shuffled(white_extra: &str) -> Game {
    let mut g = game(&format!("8B/8B/9/9/{white_extra} w"));
    for t in [
        "a1a2", "i5h5", "a2b2", "h5i5", "b2a2", "i5h5", "a2b2", "h5i5",
    ] {
        g.play_turn(&turn(t)).unwrap();
    }
    assert_eq!(g.repetition_count(), 2);
    g
}

#[test]
fn alphabeta_takes_a_repetition_draw_when_behind_and_avoids_it_when_ahead() {
    // Behind (one stone against two): the third repetition, worth 0, beats everything else.
    let behind = shuffled("W8");
    let choice = alphabeta(2).choose(&behind, None).unwrap();
    assert_eq!(choice.turn, turn("b2a2"));
    assert_eq!(choice.info.score, Some(Score::Centistones(0)));
    let mut after = behind.clone();
    after.play_turn(&choice.turn).unwrap();
    assert_eq!(after.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
    // Ahead (White also has d1 and f1): anything but the draw.
    let ahead = shuffled("W2W1W3");
    let choice = alphabeta(2).choose(&ahead, None).unwrap();
    assert_ne!(choice.turn, turn("b2a2"));
    assert!(matches!(choice.info.score, Some(Score::Centistones(s)) if s > 50));
}

#[test]
fn draws_by_no_progress_are_respected() {
    // White is a stone up but only one turn remains before the no-progress limit: every
    // turn that does not capture draws. Nothing can be captured here, so the value is 0.
    let g = game("8B/9/9/9/W3W4 w 49 30");
    let choice = alphabeta(3).choose(&g, None).unwrap();
    assert_eq!(choice.info.score, Some(Score::Centistones(0)));
    let mut after = g.clone();
    after.play_turn(&choice.turn).unwrap();
    assert_eq!(after.outcome(), Some(Outcome::Draw(DrawReason::NoProgress)));
}

#[test]
fn greedy_takes_the_biggest_capture() {
    // Both turns starting a1b1a are captures; the chain takes five stones, the stop two, and
    // e1f1w two: greedy must take the whole chain.
    for seed in 0..5 {
        let choice = GreedyPlayer::new(seed)
            .choose(&game(CHAIN_WIPEOUT), None)
            .unwrap();
        assert_eq!(choice.turn, turn(WIPEOUT_TURN));
    }
}

#[test]
fn random_and_greedy_play_legal_turns_and_depend_on_the_seed() {
    let g = Game::new(Rules::default());
    let mut seen = std::collections::HashSet::new();
    for seed in 0..20 {
        let t = RandomPlayer::new(seed).choose(&g, None).unwrap().turn;
        assert!(g.position().try_play_turn(&t).is_ok());
        seen.insert(t.to_string());
        let again = RandomPlayer::new(seed).choose(&g, None).unwrap().turn;
        assert_eq!(t, again, "same seed, same turn");
    }
    assert!(seen.len() > 1, "different seeds pick different turns");
}

#[test]
fn players_refuse_finished_games_and_mid_chain_positions() {
    let mut over = game(CHAIN_WIPEOUT);
    over.play_turn(&turn(WIPEOUT_TURN)).unwrap();
    let mut mid = game(CHAIN_WIPEOUT);
    mid.apply("a1b1a".parse().unwrap());
    let mut players: Vec<Box<dyn Player>> = vec![
        Box::new(RandomPlayer::new(0)),
        Box::new(GreedyPlayer::new(0)),
        Box::new(alphabeta(2)),
        Box::new(MctsPlayer::new(MctsConfig {
            simulations: 10,
            ..MctsConfig::default()
        })),
    ];
    for p in &mut players {
        assert!(p.choose(&over, None).is_err(), "{}", p.name());
        assert!(p.choose(&mid, None).is_err(), "{}", p.name());
    }
}

fn uct(simulations: u32) -> SearchConfig {
    MctsConfig {
        simulations,
        ..MctsConfig::default()
    }
    .search_config()
}

#[test]
fn mcts_finds_the_capture_chain_that_wins() {
    let state = FanoronaState::new(game(CHAIN_WIPEOUT));
    let mut search = Search::new(state, uct(400), 1).unwrap();
    let evaluator = RolloutEvaluator::new(3);
    let result = search.run(&evaluator).unwrap().unwrap();
    assert_eq!(
        result.best,
        "a1b1a".parse::<Action>().unwrap(),
        "{result:?}"
    );
    let first = result.best;
    search.advance(first);
    assert_eq!(
        search.root_state().to_move(),
        0,
        "the chain goes on: White again"
    );
    let result = search.run(&evaluator).unwrap().unwrap();
    assert_eq!(
        result.best,
        "b1b2a".parse::<Action>().unwrap(),
        "{result:?}"
    );
    assert!(result.value > 0.9, "{result:?}");

    // The same through the player, which accumulates the steps into one turn.
    let mut player = MctsPlayer::new(MctsConfig {
        simulations: 400,
        ..MctsConfig::default()
    });
    let choice = player.choose(&game(CHAIN_WIPEOUT), None).unwrap();
    assert_eq!(choice.turn, turn(WIPEOUT_TURN));
}

#[test]
fn mcts_blocks_the_last_stone() {
    let mut player = MctsPlayer::new(MctsConfig {
        simulations: 800,
        ..MctsConfig::default()
    });
    // One turn before the no-progress limit: every move but the blockade draws at once,
    // so the blockade is the only win (among three winning moves, plain UCT with a strongly
    // winning position elsewhere may spread its visits and pick a slower win instead).
    let choice = player
        .choose(&game(&format!("{BLOCKADE} 49 40")), None)
        .unwrap();
    assert!(
        BLOCKADE_WINS.contains(&choice.turn.to_string().as_str()),
        "{}",
        choice.turn
    );
}

/// The zugzwang's win in three turns, proven by the search (MCTS-Solver): the player reports
/// the exact value 1 and plays a turn after which the plain negamax finds Black lost. Without
/// the solver the same search only averages towards it.
#[test]
fn the_mcts_solver_proves_the_zugzwang_and_plays_a_winning_turn() {
    let g = game(ZUGZWANG);
    let mut solving = MctsPlayer::new(MctsConfig {
        simulations: 4000,
        ..MctsConfig::default()
    });
    let choice = solving.choose(&g, None).unwrap();
    assert_eq!(choice.info.score, Some(Score::Value(1.0)), "{choice:?}");
    let child = g.position().try_play_turn(&choice.turn).unwrap();
    assert!(
        reference_negamax(&child, 2, 1) <= -(30_000 - 3),
        "{} does not win",
        choice.turn
    );
    assert!(choice.info.nodes < 4000, "a proven root ends the search");
    let mut plain = MctsPlayer::new(MctsConfig {
        simulations: 4000,
        solver: false,
        ..MctsConfig::default()
    });
    let choice = plain.choose(&g, None).unwrap();
    assert_ne!(choice.info.score, Some(Score::Value(1.0)), "{choice:?}");
}

#[test]
fn mcts_limits() {
    let g = Game::new(Rules::default());
    let mut player = MctsPlayer::new(MctsConfig {
        simulations: 50,
        ..MctsConfig::default()
    });
    let choice = player.choose(&g, Some(Limit::Simulations(30))).unwrap();
    assert!(choice.info.nodes >= 30);
    let choice = player.choose(&g, Some(Limit::Millis(30))).unwrap();
    assert!(g.position().try_play_turn(&choice.turn).is_ok());
    assert!(player.choose(&g, Some(Limit::Depth(3))).is_err());
    assert!(player.choose(&g, Some(Limit::Simulations(0))).is_err());
}

/// A timed MCTS player spends a turn's whole budget on a step whose every action ends the turn
/// (it used to stop at half), and none on a forced step.
#[test]
fn timed_mcts_spends_its_budget_where_there_is_a_choice() {
    // Two lone stones far apart: paika moves only, so every step ends the turn.
    let open = game("W8/9/9/9/8B w");
    let mut player = MctsPlayer::new(MctsConfig::default());
    let choice = player.choose(&open, Some(Limit::Millis(300))).unwrap();
    assert!(
        choice.info.elapsed >= std::time::Duration::from_millis(225),
        "a one-step turn searched only {:?} of 300 ms",
        choice.info.elapsed
    );
    // One capture (a1 approaches c1) and captures are compulsory: a forced step.
    let forced = game("9/9/9/9/W1B6 w");
    let choice = player.choose(&forced, Some(Limit::Millis(300))).unwrap();
    assert_eq!(choice.turn.to_string(), "a1b1a");
    assert!(
        choice.info.elapsed < std::time::Duration::from_millis(150),
        "a forced step took {:?}",
        choice.info.elapsed
    );
}
