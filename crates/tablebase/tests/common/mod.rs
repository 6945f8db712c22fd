//! The plain reference the table tests compare with: a forward search over (position, counter)
//! with memoisation, written from the rules alone with the engine's turn generation and no
//! code of the table builder.

#![allow(dead_code)] // each test file uses its part

use std::collections::HashMap;

use fanorona_engine::{Position, Setup};
use fanorona_tablebase::{Tablebase, Wdl};

/// Exact (result, distance to the next capture) by forward search. Keys are (side to move's
/// stones, other stones, counter).
pub struct Solver<'a> {
    limit: u32,
    /// Tables to read instead of searching positions with fewer than this many stones (the
    /// positions a capture leads to, at counter 0).
    below: Option<(&'a Tablebase, u32)>,
    memo: HashMap<(u64, u64, u32), (Wdl, u32)>,
}

impl<'a> Solver<'a> {
    /// A solver that searches everything, for the no-progress limit `limit`.
    pub fn new(limit: u32) -> Solver<'a> {
        Solver {
            limit,
            below: None,
            memo: HashMap::new(),
        }
    }

    /// A solver of positions with `stones` stones that reads smaller ones from `tables`.
    pub fn above(tables: &'a Tablebase, stones: u32) -> Solver<'a> {
        Solver {
            limit: tables.limit(),
            below: Some((tables, stones)),
            memo: HashMap::new(),
        }
    }

    pub fn solve(&mut self, pos: &Position) -> (Wdl, u32) {
        let us = pos.side_to_move();
        let (own, other) = (pos.stones(us), pos.stones(!us));
        if own.is_empty() {
            return (Wdl::Loss, 0);
        }
        if other.is_empty() {
            return (Wdl::Win, 0);
        }
        if let Some((tables, stones)) = self.below
            && own.count() + other.count() < stones
        {
            let p = tables.probe(pos).expect("a smaller class is covered");
            return (p.wdl, p.dtz);
        }
        let counter = pos.no_capture_turns().min(self.limit);
        if !pos.has_legal_action() {
            return (Wdl::Loss, 0);
        }
        if counter >= self.limit {
            return (Wdl::Draw, 0);
        }
        let key = (own.0, other.0, counter);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let mut children = Vec::new();
        pos.for_each_turn(|turn, child| children.push((turn.is_capture(), *child)));
        let mut best: Option<(Wdl, u32)> = None;
        for (capture, child) in children {
            let (theirs, d) = self.solve(&child);
            let steps = if capture { 1 } else { d + 1 };
            let mine = match theirs {
                Wdl::Win => (Wdl::Loss, steps),
                Wdl::Draw => (Wdl::Draw, 0),
                Wdl::Loss => (Wdl::Win, steps),
            };
            best = Some(match best {
                None => mine,
                Some(b) if better(mine, b) => mine,
                Some(b) => b,
            });
        }
        let v = best.unwrap_or((Wdl::Loss, 0));
        self.memo.insert(key, v);
        v
    }
}

/// Whether result `a` is better than `b` for the side to move: a higher result, a faster win,
/// a slower loss.
pub fn better(a: (Wdl, u32), b: (Wdl, u32)) -> bool {
    match (a.0, b.0) {
        (x, y) if x != y => x > y,
        (Wdl::Win, _) => a.1 < b.1,
        (Wdl::Loss, _) => a.1 > b.1,
        _ => false,
    }
}

/// `pos` with its no-capture counter set to `counter`.
pub fn at_counter(pos: &Position, counter: u32) -> Position {
    Position::from_setup(&Setup {
        no_capture_turns: counter,
        ..pos.to_setup()
    })
    .unwrap()
}
