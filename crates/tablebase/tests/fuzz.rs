//! Fuzz target for table files: mutated payloads under a valid checksum (what a buggy writer or
//! a deliberate edit makes) are refused or read as some table, never a panic, and probing a
//! table that opened never panics either: a distance file alone (tables from before results
//! files), a results file beside a sound distance file, and a distance file beside a sound
//! results file (read when a probe first needs it).

use fanorona_data::container;
use fanorona_engine::{Color, Rules};
use fanorona_tablebase::{MAGIC, Tablebase, VERSION, WDL_MAGIC, build};
use fanorona_testkit::{Rng, TempDir, fuzz};

#[test]
fn fuzz_mutated_table_payloads_with_valid_checksums_never_panic() {
    let built = TempDir::new("fuzz-tables-built");
    build::build_dir(&built, 2, 50, 1, &mut |_| {}).unwrap();
    let mut rng = Rng::new(5);
    let positions: Vec<_> = (0..20)
        .map(|_| fanorona_testkit::random_position(&mut rng, 1, 1, Color::White))
        .collect();
    let (distances, results) = ("1v1.fntb", "1v1.fnwdl");
    // (the file mutated, its magic, the sound file kept beside it)
    let cases: [(&str, &[u8; 8], Option<&str>); 3] = [
        (distances, MAGIC, None),
        (results, WDL_MAGIC, Some(distances)),
        (distances, MAGIC, Some(results)),
    ];
    for (k, (name, magic, beside)) in cases.into_iter().enumerate() {
        let payload = container::read(&built.join(name), magic, VERSION).unwrap();
        let dir = TempDir::new(&format!("fuzz-tables-{k}"));
        if let Some(sound) = beside {
            std::fs::copy(built.join(sound), dir.join(sound)).unwrap();
        }
        fuzz::run(name, &[payload], &[&[0xff; 8], &[0; 8]], 1000, |bytes| {
            container::write_atomic(&dir.join(name), magic, VERSION, bytes).unwrap();
            if let Ok(tables) = Tablebase::open(&dir, Rules::default()) {
                for pos in &positions {
                    let _ = tables.probe(pos);
                }
            }
        });
    }
}
