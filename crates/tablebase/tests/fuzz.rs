//! Fuzz target for table files: mutated payloads under a valid checksum (what a buggy writer or
//! a deliberate edit makes) are refused or read as some table, never a panic, and probing a
//! table that opened never panics either.

use fanorona_data::container;
use fanorona_engine::{Color, Rules};
use fanorona_tablebase::{MAGIC, Tablebase, VERSION, build};
use fanorona_testkit::{Rng, TempDir, fuzz};

#[test]
fn fuzz_mutated_table_payloads_with_valid_checksums_never_panic() {
    let built = TempDir::new("fuzz-tables-built");
    build::build_dir(&built, 2, 50, 1, &mut |_| {}).unwrap();
    let name = "1v1.fntb";
    let payload = container::read(&built.join(name), MAGIC, VERSION).unwrap();
    let dir = TempDir::new("fuzz-tables");
    let mut rng = Rng::new(5);
    let positions: Vec<_> = (0..20)
        .map(|_| fanorona_testkit::random_position(&mut rng, 1, 1, Color::White))
        .collect();
    fuzz::run(
        "table file",
        &[payload],
        &[&[0xff; 8], &[0; 8]],
        2000,
        |bytes| {
            container::write_atomic(&dir.join(name), MAGIC, VERSION, bytes).unwrap();
            if let Ok(tables) = Tablebase::open(&dir, Rules::default()) {
                for pos in &positions {
                    let _ = tables.probe(pos);
                }
            }
        },
    );
}
