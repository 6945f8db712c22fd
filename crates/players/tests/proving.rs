//! The proving player: where the solver proves a win or a draw in its budget it plays the
//! proof's turn, and that turn keeps the value (checked against the endgame tables); a game
//! played out from a proven win is won whatever the other side does.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use fanorona_engine::{Color, Game, Rules, parse_position};
use fanorona_players::{Player, ProvingPlayer, RandomPlayer, Score};
use fanorona_tablebase::{Tablebase, Wdl, build};

fn tables() -> Arc<Tablebase> {
    static TB: OnceLock<Arc<Tablebase>> = OnceLock::new();
    TB.get_or_init(|| Arc::new(build::build_in_memory(3, 50, 2, &mut |_| {}).unwrap()))
        .clone()
}

/// A player that would play at random, proving first (without tables: they only judge here).
fn prover(seed: u64) -> ProvingPlayer {
    ProvingPlayer::new(
        Box::new(RandomPlayer::new(seed)),
        Duration::from_secs(20),
        None,
        None,
    )
}

#[test]
fn a_proven_value_is_played_and_kept() {
    let tb = tables();
    // A win in 28 turns and a draw, both two against one.
    for (text, value) in [
        ("9/9/3B5/9/WW7 w 0 1", Wdl::Win),
        ("9/9/9/4B4/3WW4 w 0 1", Wdl::Draw),
    ] {
        let game = Game::from_position(parse_position(text).unwrap(), Rules::default());
        assert_eq!(tb.probe(game.position()).unwrap().wdl, value);
        for seed in 0..3 {
            let choice = prover(seed).choose(&game, None).unwrap();
            assert_eq!(choice.info.score, Some(Score::Proven(value)), "{text}");
            let after = game.position().try_play_turn(&choice.turn).unwrap();
            // The other side's result after the turn is the value, turned round.
            assert_eq!(
                tb.probe(&after).unwrap().wdl,
                value.flip(),
                "{text}: {}",
                choice.turn
            );
        }
    }
}

#[test]
fn a_proven_win_is_won_against_any_defence() {
    for seed in 0..3 {
        let mut game = Game::from_position(
            parse_position("9/9/3B5/9/WW7 w 0 1").unwrap(),
            Rules::default(),
        );
        let mut white = prover(seed);
        let mut black = RandomPlayer::new(100 + seed);
        for _ in 0..100 {
            if game.outcome().is_some() {
                break;
            }
            let mover: &mut dyn Player = match game.position().side_to_move() {
                Color::White => &mut white,
                Color::Black => &mut black,
            };
            let turn = mover.choose(&game, None).unwrap().turn;
            game.play_turn(&turn).unwrap();
        }
        assert_eq!(
            game.outcome().and_then(|o| o.winner()),
            Some(Color::White),
            "seed {seed}"
        );
    }
}
