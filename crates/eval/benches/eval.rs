//! One evaluation of the integer path at every SIMD level the CPU has, on positions from real
//! play (the start, and after random openings).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fanorona_engine::{Game, Position, Rules};
use fanorona_eval::{EvalNet, EvalWeights, Inputs, Shape};

fn positions() -> Vec<Position> {
    let mut out = vec![Position::start()];
    let mut game = Game::new(Rules::default());
    for i in 0..40 {
        let turns = game.position().legal_turns();
        if turns.is_empty() || game.outcome().is_some() {
            break;
        }
        game.play_turn(&turns[(i * 7) % turns.len()])
            .expect("listed turns are legal");
        out.push(*game.position());
    }
    out
}

fn evaluate(c: &mut Criterion) {
    let mut group = c.benchmark_group("eval");
    let positions = positions();
    group.throughput(Throughput::Elements(positions.len() as u64));
    let shapes = [
        (Inputs::Stones, 64, 16),
        (Inputs::Stones, 128, 32),
        (Inputs::Stones, 256, 32),
        (Inputs::Lines, 128, 32),
    ];
    for (inputs, hidden1, hidden2) in shapes {
        let shape = Shape {
            inputs,
            hidden1,
            hidden2,
        };
        let mut weights = EvalWeights::zeros(shape);
        for (i, v) in weights.l1.iter_mut().enumerate() {
            *v = ((i % 7) as f32 - 3.0) * 0.05;
        }
        for level in EvalNet::levels() {
            let net = EvalNet::with_level(weights.clone(), level).expect("valid weights");
            let name = match inputs {
                Inputs::Stones => format!("{hidden1}x{hidden2}"),
                Inputs::Lines => format!("lines{hidden1}x{hidden2}"),
            };
            let id = BenchmarkId::new(name, level.name());
            group.bench_function(id, |b| {
                b.iter(|| {
                    positions
                        .iter()
                        .map(|p| black_box(net.evaluate(black_box(p))))
                        .sum::<i32>()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, evaluate);
criterion_main!(benches);
