//! Simulations per second with a trivial evaluator, so the numbers measure the tree code alone.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fanorona_mcts::scheduler::evaluate_pending;
use fanorona_mcts::{Algorithm, Search, SearchConfig, SearchState, UniformEvaluator};

#[allow(dead_code)]
#[path = "../tests/common/games.rs"]
mod games;

use games::{TicTacToe, Wide};

fn single_search(c: &mut Criterion) {
    let mut group = c.benchmark_group("single_search");
    for (algorithm, simulations, batch_size) in [
        (Algorithm::Puct, 800, 1),
        (Algorithm::Puct, 800, 8),
        (Algorithm::Gumbel, 32, 8),
    ] {
        let config = SearchConfig {
            algorithm,
            simulations,
            batch_size,
            ..SearchConfig::default()
        };
        group.throughput(Throughput::Elements(u64::from(simulations)));
        let id = BenchmarkId::new(
            format!("{algorithm:?}/wide"),
            format!("{simulations}x{batch_size}"),
        );
        group.bench_function(id, |b| {
            b.iter(|| {
                let mut search = Search::new(Wide::new(10, 60), config, 0).unwrap();
                black_box(
                    search
                        .run(&UniformEvaluator::default())
                        .ok()
                        .flatten()
                        .map(|r| r.chosen),
                )
            })
        });
    }
    let config = SearchConfig {
        simulations: 800,
        batch_size: 8,
        ..SearchConfig::default()
    };
    group.throughput(Throughput::Elements(800));
    group.bench_function("Puct/tictactoe/800x8", |b| {
        b.iter(|| {
            let mut search = Search::new(TicTacToe::parse(". . . . . . . . ."), config, 0).unwrap();
            black_box(
                search
                    .run(&UniformEvaluator::default())
                    .ok()
                    .flatten()
                    .map(|r| r.chosen),
            )
        })
    });
    group.finish();
}

fn many_searches(c: &mut Criterion) {
    // 64 games x 32 simulations x batches of 8: one evaluator call of 512 leaves per round.
    let mut group = c.benchmark_group("many_searches");
    let config = SearchConfig {
        algorithm: Algorithm::Gumbel,
        simulations: 32,
        batch_size: 8,
        ..SearchConfig::default()
    };
    group.throughput(Throughput::Elements(64 * 32));
    group.bench_function("Gumbel/wide/64x32x8", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            let mut searches: Vec<Search<Wide>> = (0..64)
                .map(|i| Search::new(Wide::new(10, 60), config, i).unwrap())
                .collect();
            searches.iter_mut().for_each(Search::start);
            loop {
                let mut pending = false;
                for s in &mut searches {
                    pending |= s.step() == SearchState::NeedsEvaluation;
                }
                if !pending {
                    break;
                }
                evaluate_pending(&mut searches, &UniformEvaluator::default(), &mut out).unwrap();
            }
            black_box(searches.len())
        })
    });
    group.finish();
}

criterion_group!(benches, single_search, many_searches);
criterion_main!(benches);
