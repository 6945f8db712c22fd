//! The largest classes of a tables folder against the plain solver (`common/mod.rs`): positions
//! sampled from every class with the most stones, at counters a few turns before the
//! no-progress draw, where the exact result (distance included) is a short minimax over whole
//! turns. Captures leave for smaller classes at counter 0: those results are read from the
//! tables (checked themselves, by `solver.rs` and `tablebase verify`), and nothing of the
//! largest class is.
//!
//! By default the tables up to 4 stones are built into a temporary folder. To check the tables
//! you built (seven stones, say), point `FANORONA_TABLES` at their folder and run, in release:
//!
//! ```sh
//! FANORONA_TABLES=tablebases cargo test --release -p fanorona-tablebase --test late_counters
//! ```
//!
//! `FANORONA_TABLES_SAMPLES` sets the positions per class and counter (default 200).

mod common;

use std::collections::HashMap;
use std::path::PathBuf;

use common::{Solver, at_counter};
use fanorona_engine::{Color, Rules};
use fanorona_tablebase::{Probe, Tablebase, Wdl, build};
use fanorona_testkit::{Rng, TempDir};

/// Turns left before the draw at the counters checked.
const TURNS_LEFT: [u32; 4] = [0, 1, 2, 3];

#[test]
fn the_largest_classes_agree_with_a_plain_search_near_the_no_progress_draw() {
    let built;
    let dir = match std::env::var_os("FANORONA_TABLES") {
        Some(d) => PathBuf::from(d),
        None => {
            built = TempDir::new("tablebase-late-counters");
            build::build_dir(&built, 4, 50, 2, &mut |_| {}).unwrap();
            built.to_path_buf()
        }
    };
    let samples: usize = std::env::var("FANORONA_TABLES_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let tables = Tablebase::open(&dir, Rules::default()).unwrap();
    let stones = tables.max_stones();
    assert!(stones >= 3, "{}: no complete set of tables", dir.display());
    let mut rng = Rng::new(20_261_203);
    let mut seen = HashMap::<(Wdl, u32), usize>::new();
    for own in 1..stones {
        let other = stones - own;
        let mut reference = Solver::above(&tables, stones as u32);
        for left in TURNS_LEFT {
            for s in 0..samples {
                let side = if s % 2 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                let (white, black) = if side == Color::White {
                    (own, other)
                } else {
                    (other, own)
                };
                let pos = fanorona_testkit::random_position(&mut rng, white, black, side);
                let pos = at_counter(&pos, tables.limit() - left);
                let (wdl, dtz) = reference.solve(&pos);
                let probe = tables.probe(&pos).unwrap();
                assert_eq!(
                    probe,
                    Probe { wdl, dtz },
                    "{own}v{other} at counter {}: {pos}",
                    pos.no_capture_turns()
                );
                *seen.entry((wdl, dtz)).or_default() += 1;
            }
        }
    }
    eprintln!(
        "{} checked {}-stone positions per result: {seen:?}",
        seen.values().sum::<usize>(),
        stones
    );
    // the sample holds every kind of result, distances beyond one included
    for kind in [Wdl::Win, Wdl::Draw, Wdl::Loss] {
        assert!(seen.keys().any(|&(w, _)| w == kind), "no {kind} sampled");
    }
    assert!(seen.keys().any(|&(w, d)| w != Wdl::Draw && d >= 2));
}
