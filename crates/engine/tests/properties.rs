//! Property tests: notation round trips, incremental hashing, symmetry invariance, and that
//! move generation lists exactly the legal actions.

mod common;

use std::collections::BTreeSet;

use common::{Rng, random_position, random_walk};
use fanorona_engine::{
    Action, Color, Direction, Point, Position, Step, StepKind, Symmetry, Turn, format_position,
    parse_position, perft,
};
use proptest::prelude::*;

/// A random placement with random counters, at a turn start.
fn any_position() -> impl Strategy<Value = Position> {
    (
        any::<u64>(),
        0usize..=22,
        0usize..=22,
        any::<bool>(),
        0u32..200,
        1u32..500,
    )
        .prop_map(|(seed, w, b, black, no_capture, turn)| {
            let mut rng = Rng::new(seed);
            let side = if black { Color::Black } else { Color::White };
            let p = random_position(&mut rng, w, b, side);
            let mut setup = p.to_setup();
            setup.no_capture_turns = no_capture;
            setup.turn_number = turn;
            Position::from_setup(&setup).unwrap()
        })
}

/// Positions along a random step-level game (from the start or a random set-up), so
/// mid-chain positions are included.
fn any_walk() -> impl Strategy<Value = Vec<Position>> {
    (any::<u64>(), any::<bool>(), 1usize..=22, 1usize..=22).prop_map(|(seed, from_start, w, b)| {
        let mut rng = Rng::new(seed);
        let start = if from_start {
            Position::start()
        } else {
            random_position(&mut rng, w, b, Color::White)
        };
        random_walk(&mut rng, start, 120)
    })
}

fn every_candidate_action() -> Vec<Action> {
    let mut out = vec![Action::EndTurn];
    for p in Point::all() {
        for d in Direction::ALL {
            for k in StepKind::ALL {
                if let Some(s) = Step::new(p, d, k) {
                    out.push(Action::Step(s));
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn position_text_round_trips(pos in any_position()) {
        let text = format_position(&pos);
        prop_assert_eq!(parse_position(&text).unwrap(), pos);
        prop_assert_eq!(pos.to_string(), text);
    }

    #[test]
    fn step_and_turn_text_round_trips(walk in any_walk()) {
        for pos in walk.iter().filter(|p| p.is_turn_start()).take(10) {
            for turn in pos.legal_turns() {
                let text = turn.to_string();
                prop_assert_eq!(text.parse::<Turn>().unwrap(), turn);
                for s in turn.steps() {
                    prop_assert_eq!(s.to_string().parse::<Step>().unwrap(), *s);
                }
            }
        }
    }

    #[test]
    fn incremental_hash_equals_recompute(walk in any_walk()) {
        for pos in &walk {
            prop_assert_eq!(pos.hash(), pos.compute_hash(), "{:?}", pos);
        }
    }

    #[test]
    fn generated_actions_are_exactly_the_legal_ones(walk in any_walk()) {
        let candidates = every_candidate_action();
        for pos in walk.iter().step_by(3) {
            let list: BTreeSet<Action> = pos.legal_actions().iter().copied().collect();
            for &a in &candidates {
                let legal = pos.is_legal(a);
                prop_assert_eq!(legal, list.contains(&a), "{} in {:?}", a, pos);
                prop_assert_eq!(pos.try_apply(a).is_ok(), legal);
            }
        }
    }

    #[test]
    fn paika_is_never_offered_while_a_capture_exists(walk in any_walk()) {
        for pos in &walk {
            let list = pos.legal_actions();
            let captures = list.iter().filter(|a| matches!(a, Action::Step(s) if s.is_capture())).count();
            let paika = list.iter().filter(|a| matches!(a, Action::Step(s) if !s.is_capture())).count();
            prop_assert!(captures == 0 || paika == 0, "{:?}", pos);
            prop_assert_eq!(captures > 0, pos.has_capture());
        }
    }

    #[test]
    fn symmetries_preserve_moves_and_perft(walk in any_walk()) {
        for pos in walk.iter().step_by(7) {
            let actions: BTreeSet<Action> = pos.legal_actions().iter().copied().collect();
            for sym in Symmetry::ALL {
                let image = sym.position(pos);
                prop_assert_eq!(sym.position(&image), *pos);
                let mapped: BTreeSet<Action> = actions.iter().map(|&a| sym.action(a)).collect();
                let direct: BTreeSet<Action> = image.legal_actions().iter().copied().collect();
                prop_assert_eq!(mapped, direct);
                prop_assert_eq!(image.count_turns(), pos.count_turns());
                if pos.is_turn_start() {
                    prop_assert_eq!(perft(&image, 2), perft(pos, 2));
                    let turns: BTreeSet<Turn> = pos.legal_turns().iter().map(|t| sym.turn(t)).collect();
                    let direct: BTreeSet<Turn> = image.legal_turns().into_iter().collect();
                    prop_assert_eq!(turns, direct);
                }
            }
        }
    }

    #[test]
    fn turn_start_hash_depends_on_placement_and_side_only(pos in any_position()) {
        let mut setup = pos.to_setup();
        setup.no_capture_turns = 0;
        setup.turn_number = 1;
        prop_assert_eq!(Position::from_setup(&setup).unwrap().hash(), pos.hash());
    }
}

#[test]
fn perft_is_invariant_under_symmetries_from_the_start() {
    let start = Position::start();
    for sym in Symmetry::ALL {
        let image = sym.position(&start);
        assert_eq!(
            (1..=4).map(|d| perft(&image, d)).collect::<Vec<_>>(),
            vec![5, 39, 724, 18026]
        );
    }
}
