//! Probe speed: random positions with up to 5 stones, tables in memory.

use criterion::{Criterion, criterion_group, criterion_main};
use fanorona_engine::Color;
use fanorona_tablebase::build;
use fanorona_testkit::Rng;

fn probe(c: &mut Criterion) {
    let tb = build::build_in_memory(5, 50, 2, &mut |_| {}).unwrap();
    let mut rng = Rng::new(3);
    let positions: Vec<_> = (0..1024)
        .map(|_| {
            let stones = 2 + rng.below(4);
            let own = 1 + rng.below(stones - 1);
            fanorona_testkit::random_position(&mut rng, own, stones - own, Color::White)
        })
        .collect();
    let mut i = 0;
    c.bench_function("probe (up to 5 stones)", |b| {
        b.iter(|| {
            i = (i + 1) % positions.len();
            tb.probe(&positions[i]).unwrap()
        })
    });
}

criterion_group!(benches, probe);
criterion_main!(benches);
