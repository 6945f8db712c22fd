//! The tables against a deliberately plain solver (`common/mod.rs`): a forward search over
//! (position, counter) with memoisation, written from the rules alone with the engine's turn
//! generation and no code of the table builder.

mod common;

use std::sync::OnceLock;

use common::Solver;

use fanorona_engine::{Bitboard, ByColor, Color, Point, Position, Setup};
use fanorona_tablebase::{Probe, Tablebase, Wdl, build};
use fanorona_testkit::Rng;

/// The no-progress limit of these tests: small enough for the plain solver, large enough for
/// distances to run into it (the longest 3-stone distances are about 30).
const LIMIT: u32 = 12;

fn tables(stones: usize) -> &'static Tablebase {
    static FOUR: OnceLock<Tablebase> = OnceLock::new();
    static FIVE: OnceLock<Tablebase> = OnceLock::new();
    let cell = if stones == 4 { &FOUR } else { &FIVE };
    cell.get_or_init(|| build::build_in_memory(stones, LIMIT, 2, &mut |_| {}).unwrap())
}

fn setup(own: Bitboard, other: Bitboard, side: Color, counter: u32) -> Position {
    let stones = match side {
        Color::White => ByColor([own, other]),
        Color::Black => ByColor([other, own]),
    };
    Position::from_setup(&Setup {
        stones,
        side_to_move: side,
        no_capture_turns: counter,
        turn_number: 1,
    })
    .unwrap()
}

fn check(tb: &Tablebase, solver: &mut Solver<'_>, pos: &Position) {
    let (wdl, dtz) = solver.solve(pos);
    let probe = tb.probe(pos).unwrap();
    assert_eq!(
        probe,
        Probe { wdl, dtz },
        "{pos:?} at counter {}",
        pos.no_capture_turns()
    );
}

#[test]
fn every_position_with_up_to_three_stones_at_every_counter() {
    let tb = tables(4);
    let mut solver = Solver::new(LIMIT);
    let points: Vec<Point> = Point::all().collect();
    let mut checked = 0;
    for (own_n, other_n) in [(1, 1), (1, 2), (2, 1)] {
        for_each_subset(&points, own_n, &mut |own| {
            let rest: Vec<Point> = points
                .iter()
                .copied()
                .filter(|p| !own.contains(*p))
                .collect();
            for_each_subset(&rest, other_n, &mut |other| {
                for counter in [0, 1, LIMIT / 2, LIMIT - 1, LIMIT, LIMIT + 3] {
                    let side = if checked % 2 == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    check(tb, &mut solver, &setup(own, other, side, counter));
                    checked += 1;
                }
            });
        });
    }
    assert_eq!(checked, (45 * 44 + 2 * 45 * 44 * 43 / 2) * 6);
}

/// `count` random positions with `stones` stones, White to move, at counters drawn from
/// `counters`, checked against the solver; every result must occur.
fn sample(stones: usize, count: usize, counters: std::ops::RangeInclusive<u32>, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut solver = Solver::new(LIMIT);
    let tb = tables(stones);
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    let span = (counters.end() - counters.start() + 1) as usize;
    for _ in 0..count {
        let own_n = 1 + rng.below(stones - 1);
        let pos = fanorona_testkit::random_position(&mut rng, own_n, stones - own_n, Color::White);
        let counter = counters.start() + rng.below(span) as u32;
        let pos = setup(
            pos.stones(Color::White),
            pos.stones(Color::Black),
            Color::White,
            counter,
        );
        check(tb, &mut solver, &pos);
        match tb.probe(&pos).unwrap().wdl {
            Wdl::Win => wins += 1,
            Wdl::Draw => draws += 1,
            Wdl::Loss => losses += 1,
        }
    }
    assert!(
        wins > count / 20 && draws > count / 20 && losses > count / 50,
        "{stones} stones: {wins} wins, {draws} draws, {losses} losses"
    );
}

#[test]
fn sampled_four_stone_positions_at_random_counters() {
    sample(4, 1200, 0..=LIMIT, 20261201);
}

/// Near the limit, so that the forward search stays small; the counter resets after a capture,
/// so the 4-stone positions behind every capture are still searched at full depth.
#[test]
fn sampled_five_stone_positions_at_late_counters() {
    sample(5, 400, LIMIT - 3..=LIMIT + 1, 20261202);
}

fn for_each_subset(points: &[Point], k: usize, f: &mut dyn FnMut(Bitboard)) {
    fn go(points: &[Point], k: usize, from: usize, acc: Bitboard, f: &mut dyn FnMut(Bitboard)) {
        if k == 0 {
            f(acc);
            return;
        }
        for i in from..points.len() {
            go(points, k - 1, i + 1, acc.with(points[i]), f);
        }
    }
    go(points, k, 0, Bitboard::EMPTY, f);
}
