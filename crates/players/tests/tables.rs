//! Players with endgame tables: perfect play at a covered root, exact scores inside the
//! alpha-beta search, tablebase positions as terminal nodes of MCTS.

use std::sync::{Arc, OnceLock};

use fanorona_engine::{Color, Game, Position, Rules, Setup, parse_position};
use fanorona_mcts::{GameState, Terminal};
use fanorona_players::{
    AlphaBetaConfig, AlphaBetaPlayer, FanoronaState, MctsConfig, MctsPlayer, Player, RandomPlayer,
    Score,
};
use fanorona_tablebase::{Probe, Tablebase, Wdl, build};
use fanorona_testkit::Rng;

fn tables() -> Arc<Tablebase> {
    static TB: OnceLock<Arc<Tablebase>> = OnceLock::new();
    TB.get_or_init(|| Arc::new(build::build_in_memory(4, 50, 2, &mut |_| {}).unwrap()))
        .clone()
}

/// Two against one: White wins, the next capture 28 turns away with best defence.
const LONG_WIN: &str = "9/9/3B5/9/WW7 w 0 1";

fn game(text: &str) -> Game {
    Game::from_position(parse_position(text).unwrap(), Rules::default())
}

/// Plays `white` against `black` from `game` until it ends; returns the outcome's winner.
fn play_out(mut game: Game, white: &mut dyn Player, black: &mut dyn Player) -> Option<Color> {
    for _ in 0..200 {
        if let Some(outcome) = game.outcome() {
            return outcome.winner();
        }
        let mover: &mut dyn Player = match game.position().side_to_move() {
            Color::White => white,
            Color::Black => black,
        };
        let choice = mover.choose(&game, None).unwrap();
        game.play_turn(&choice.turn).unwrap();
    }
    panic!("the game did not end");
}

#[test]
fn alphabeta_plays_a_covered_position_perfectly_and_says_so() {
    let g = game(LONG_WIN);
    let mut player = AlphaBetaPlayer::new(AlphaBetaConfig::default()).with_tables(Some(tables()));
    let choice = player.choose(&g, None).unwrap();
    assert_eq!(choice.turn.to_string(), "a1b2", "the only winning turn");
    assert_eq!(
        choice.info.score,
        Some(Score::Tablebase(Probe {
            wdl: Wdl::Win,
            dtz: 28
        }))
    );
    assert_eq!(choice.info.score.unwrap().to_string(), "tb win 28");
    // and it converts the win against any defence, within the no-progress limit
    let mut white = AlphaBetaPlayer::new(AlphaBetaConfig::default()).with_tables(Some(tables()));
    let mut black = RandomPlayer::new(5);
    assert_eq!(play_out(g, &mut white, &mut black), Some(Color::White));
}

#[test]
fn without_tables_alphabeta_does_not_find_the_long_win() {
    // The same position at depth 4: the capture is 28 turns away, beyond any search.
    let g = game(LONG_WIN);
    let mut player = AlphaBetaPlayer::new(AlphaBetaConfig::default());
    let choice = player.choose(&g, None).unwrap();
    assert!(
        matches!(choice.info.score, Some(Score::Centistones(_))),
        "{:?}",
        choice.info
    );
}

#[test]
fn alphabeta_scores_captures_into_covered_endgames_exactly() {
    // Five stones: not covered, but every capture leads into the 4-stone tables. Whenever the
    // search reports a table score, it is the exact result of the turn it chose.
    let tb = tables();
    let mut rng = Rng::new(11);
    let mut exact = 0;
    for _ in 0..600 {
        let own = 1 + rng.below(4);
        let pos = fanorona_testkit::random_position(&mut rng, own, 5 - own, Color::White);
        let g = Game::from_position(pos, Rules::default());
        if g.outcome().is_some() || !pos.has_capture() {
            continue;
        }
        let mut player = AlphaBetaPlayer::new(AlphaBetaConfig {
            depth: Some(1),
            ..AlphaBetaConfig::default()
        })
        .with_tables(Some(tb.clone()));
        let choice = player.choose(&g, None).unwrap();
        if let Some(Score::Tablebase(p)) = choice.info.score {
            let child = pos.try_play_turn(&choice.turn).unwrap();
            let theirs = tb.probe(&child).unwrap();
            assert_eq!(p.wdl, theirs.wdl.flip(), "{pos:?} {}", choice.turn);
            exact += 1;
        }
    }
    assert!(exact > 50, "only {exact} exact scores");
}

#[test]
fn covered_positions_are_terminal_for_mcts() {
    let pos = parse_position(LONG_WIN).unwrap();
    let plain = FanoronaState::from_position(pos, Rules::default());
    assert_eq!(plain.terminal(), None);
    let with = plain.clone().with_tables(Some(tables()));
    assert_eq!(with.terminal(), Some(Terminal::Win(0)));
    // late in the counter the same placement is a draw
    let late = Position::from_setup(&Setup {
        no_capture_turns: 30,
        ..pos.to_setup()
    })
    .unwrap();
    let late = FanoronaState::from_position(late, Rules::default()).with_tables(Some(tables()));
    assert_eq!(late.terminal(), Some(Terminal::Draw));
    // tables for other rules are not used
    let other = FanoronaState::from_position(
        pos,
        Rules {
            no_progress_limit: 40,
        },
    )
    .with_tables(Some(tables()));
    assert_eq!(other.terminal(), None);
}

#[test]
fn mcts_with_tables_converts_a_won_endgame() {
    let config = MctsConfig {
        simulations: 50,
        ..MctsConfig::default()
    };
    let mut white = MctsPlayer::new(config).with_tables(Some(tables()));
    let mut black = RandomPlayer::new(9);
    assert_eq!(
        play_out(game(LONG_WIN), &mut white, &mut black),
        Some(Color::White)
    );
}

/// Tables of up to three stones written to a folder once; each call opens them afresh, so
/// every class's distances are still on disk (read when first needed).
fn fresh_tables_from_disk() -> Arc<Tablebase> {
    static DIR: OnceLock<fanorona_testkit::TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = fanorona_testkit::TempDir::new("players-tables-on-disk");
        build::build_dir(dir.path(), 3, 50, 1, &mut |_| {}).unwrap();
        dir
    });
    Arc::new(Tablebase::open(dir.path(), Rules::default()).unwrap())
}

#[test]
fn a_search_without_a_clock_waits_for_the_distances_and_replays() {
    // Distances read in the background made a depth-limited search see the tables or not
    // depending on timing ("tb win 28" in one run, a centistone score in the next), so a match
    // with tables did not replay. A search without a clock waits for them.
    for _ in 0..5 {
        let mut player = AlphaBetaPlayer::new(AlphaBetaConfig {
            depth: Some(2),
            ..AlphaBetaConfig::default()
        })
        .with_tables(Some(fresh_tables_from_disk()));
        let choice = player.choose(&game(LONG_WIN), None).unwrap();
        assert_eq!(choice.info.score.unwrap().to_string(), "tb win 28");
        // late in the counter the same placement is drawn: only the distance tells
        let late = Position::from_setup(&Setup {
            no_capture_turns: 30,
            ..parse_position(LONG_WIN).unwrap().to_setup()
        })
        .unwrap();
        let state = FanoronaState::from_position(late, Rules::default())
            .with_tables(Some(fresh_tables_from_disk()));
        assert_eq!(state.terminal(), Some(Terminal::Draw));
    }
}

#[test]
fn a_search_on_a_clock_never_waits_for_a_file() {
    let late = Position::from_setup(&Setup {
        no_capture_turns: 30,
        ..parse_position(LONG_WIN).unwrap().to_setup()
    })
    .unwrap();
    let tables = Arc::new(fanorona_players::SearchTables::on_clock(
        fresh_tables_from_disk(),
    ));
    let state = FanoronaState::from_position(late, Rules::default())
        .with_search_tables(Some(Arc::clone(&tables)));
    // the first look starts the read in the background and answers without the tables
    assert_eq!(state.terminal(), None);
    // once the distances are in memory, the same look is exact
    let started = std::time::Instant::now();
    while state.terminal().is_none() {
        assert!(
            started.elapsed().as_secs() < 60,
            "the distances were never read"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(state.terminal(), Some(Terminal::Draw));
    // a timed alpha-beta turn on fresh tables still plays (without them at first)
    let mut player = AlphaBetaPlayer::new(AlphaBetaConfig::default())
        .with_tables(Some(fresh_tables_from_disk()));
    let choice = player
        .choose(&game(LONG_WIN), Some(fanorona_players::Limit::Millis(50)))
        .unwrap();
    assert!(
        game(LONG_WIN)
            .position()
            .try_play_turn(&choice.turn)
            .is_ok()
    );
}

/// A timed MCTS player at a root the tables call a draw (no distance needed for that) while a
/// successor's distances are still on disk: the tables cannot rank the turns yet and the
/// search has nothing to search (its root is decided). It used to answer with an empty turn
/// (found by `fanorona pit`: "a turn needs at least one step"); it now waits for the tables.
#[test]
fn a_timed_mcts_player_at_a_drawn_root_whose_successors_are_still_on_disk_plays_a_turn() {
    let mut rng = fanorona_testkit::Rng::new(3);
    let known = tables();
    let mut checked = 0;
    for _ in 0..2000 {
        let pos = fanorona_testkit::random_position(&mut rng, 2, 1, Color::White);
        if !pos.has_legal_action() || known.probe(&pos).map(|p| p.wdl) != Ok(Wdl::Draw) {
            continue;
        }
        let mut decided_child = false;
        pos.for_each_turn(|_, child| {
            decided_child |= known.probe(child).is_ok_and(|p| p.wdl != Wdl::Draw);
        });
        if !decided_child {
            continue;
        }
        // Tables opened afresh: every class's distances still on disk.
        let mut player = MctsPlayer::new(MctsConfig {
            millis: Some(30),
            ..MctsConfig::default()
        })
        .with_tables(Some(fresh_tables_from_disk()));
        let g = Game::from_position(pos, Rules::default());
        let choice = player.choose(&g, None).unwrap();
        assert!(
            g.position().try_play_turn(&choice.turn).is_ok(),
            "{pos}: {:?}",
            choice.turn
        );
        checked += 1;
        if checked == 3 {
            return;
        }
    }
    panic!("only {checked} such positions found");
}
