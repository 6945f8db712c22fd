//! Move generation benchmarks. Every benchmark checks its own result, so a fast but wrong
//! generator cannot pass: `cargo bench -p fanorona-engine`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fanorona_engine::{Action, Position, perft};

/// Positions from a fixed pseudo-random game, mid-chain ones included.
fn sample_positions() -> Vec<Position> {
    let mut out = Vec::new();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..40 {
        let mut pos = Position::start();
        for _ in 0..60 {
            let actions = pos.legal_actions();
            if actions.is_empty() || pos.stones(!pos.side_to_move()).is_empty() {
                break;
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let a: Action = actions[(state % actions.len() as u64) as usize];
            pos = pos.apply(a);
            out.push(pos);
        }
    }
    out
}

fn bench_perft(c: &mut Criterion) {
    let start = Position::start();
    let mut group = c.benchmark_group("perft");
    group.sample_size(20);
    group.throughput(Throughput::Elements(431_852));
    group.bench_function("start_depth5", |b| {
        b.iter(|| assert_eq!(perft(black_box(&start), 5), 431_852));
    });
    group.throughput(Throughput::Elements(9_205_774));
    group.sample_size(10);
    group.bench_function("start_depth6", |b| {
        b.iter(|| assert_eq!(perft(black_box(&start), 6), 9_205_774));
    });
    group.finish();
}

fn bench_steps(c: &mut Criterion) {
    let positions = sample_positions();
    let expected: usize = positions.iter().map(|p| p.legal_actions().len()).sum();
    let mut group = c.benchmark_group("steps");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("legal_actions", |b| {
        b.iter(|| {
            let n: usize = positions
                .iter()
                .map(|p| black_box(p).legal_actions().len())
                .sum();
            assert_eq!(n, expected);
        });
    });
    group.bench_function("legal_actions_and_apply", |b| {
        b.iter(|| {
            let mut h = 0u64;
            for p in &positions {
                for &a in p.legal_actions().iter() {
                    h ^= black_box(p).apply(a).hash();
                }
            }
            black_box(h)
        });
    });
    group.finish();
}

criterion_group!(benches, bench_perft, bench_steps);
criterion_main!(benches);
