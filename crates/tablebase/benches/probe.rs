//! Probe speed: random positions with up to 5 stones, from tables built in memory and from a
//! tables folder (results in memory, distances read on first need). With `FANORONA_TABLES`
//! pointing at a folder of larger tables (seven stones, say), random positions of its largest
//! classes too: `FANORONA_TABLES=tablebases cargo bench -p fanorona-tablebase`.

use criterion::{Criterion, criterion_group, criterion_main};
use fanorona_engine::{Color, Position, Rules};
use fanorona_tablebase::{Tablebase, build};
use fanorona_testkit::{Rng, TempDir};

/// Random positions with `fewest..=most` stones.
fn positions(fewest: usize, most: usize) -> Vec<Position> {
    let mut rng = Rng::new(3);
    (0..4096)
        .map(|_| {
            let stones = fewest + rng.below(most - fewest + 1);
            let own = 1 + rng.below(stones - 1);
            fanorona_testkit::random_position(&mut rng, own, stones - own, Color::White)
        })
        .collect()
}

fn bench(c: &mut Criterion, name: &str, tb: &Tablebase, positions: Vec<Position>) {
    let mut i = 0;
    c.bench_function(name, |b| {
        b.iter(|| {
            i = (i + 1) % positions.len();
            tb.probe(&positions[i]).unwrap()
        })
    });
}

fn probe(c: &mut Criterion) {
    let tb = build::build_in_memory(5, 50, 2, &mut |_| {}).unwrap();
    bench(c, "probe (up to 5 stones, in memory)", &tb, positions(2, 5));
    let dir = TempDir::new("tablebase-bench");
    build::build_dir(&dir, 5, 50, 2, &mut |_| {}).unwrap();
    let opened = Tablebase::open(&dir, Rules::default()).unwrap();
    bench(
        c,
        "probe (up to 5 stones, opened from files)",
        &opened,
        positions(2, 5),
    );
    if let Some(dir) = std::env::var_os("FANORONA_TABLES") {
        let large = Tablebase::open(std::path::Path::new(&dir), Rules::default()).unwrap();
        let n = large.max_stones();
        let sample = positions(n, n);
        for pos in &sample {
            // the first probe of a class reads its distances: not what is measured
            large.probe(pos).unwrap();
        }
        bench(c, &format!("probe ({n} stones, {dir:?})"), &large, sample);
    }
}

criterion_group!(benches, probe);
criterion_main!(benches);
