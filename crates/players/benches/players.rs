//! Fanorona players: alpha-beta nodes per second at a fixed depth, and MCTS simulations per
//! second on Fanorona with a trivial evaluator (uniform priors, no rollout), so the MCTS number
//! measures the tree code plus the engine's step generation; and the leaf judge of the MCTS
//! players' `mix`, judgements per second.

use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fanorona_engine::{Color, Game, Rules};
use fanorona_mcts::{Search, SearchConfig, UniformEvaluator};
use fanorona_players::FanoronaState;
use fanorona_players::random_opening;
use fanorona_players::{AlphaBetaConfig, AlphaBetaPlayer, LeafJudge, Limit, Player};

/// The start position, and games after 6 and 16 random opening turns (the first opening seeds
/// giving a position with at least 8 legal turns and 8 stones a side, so that there is
/// something to search).
fn positions() -> Vec<(&'static str, Game)> {
    let after = |plies: u32| {
        (0u64..)
            .map(|seed| {
                let mut game = Game::new(Rules::default());
                for turn in random_opening(seed, plies, Rules::default()) {
                    game.play_turn(&turn).expect("openings are legal");
                }
                game
            })
            .find(|g| {
                let pos = g.position();
                pos.count_turns() >= 8 && Color::BOTH.iter().all(|&c| pos.stones(c).count() >= 8)
            })
            .expect("some opening qualifies")
    };
    vec![
        ("start", Game::new(Rules::default())),
        ("opening6", after(6)),
        ("midgame16", after(16)),
    ]
}

fn alphabeta(c: &mut Criterion) {
    let mut group = c.benchmark_group("alphabeta");
    group.sample_size(10);
    let config = AlphaBetaConfig {
        tt_mebibytes: 4,
        ..AlphaBetaConfig::default()
    };
    for (name, game) in positions() {
        let depth = 4;
        let mut player = AlphaBetaPlayer::new(config);
        // Fixed depth and a cleared table: the node count is the same every run.
        let nodes = player
            .choose(&game, Some(Limit::Depth(depth)))
            .expect("position is playable")
            .info
            .nodes;
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(BenchmarkId::new(format!("depth{depth}"), name), |b| {
            b.iter(|| {
                player.new_game();
                black_box(
                    player
                        .choose(&game, Some(Limit::Depth(depth)))
                        .map(|c| c.turn),
                )
            })
        });
    }
    group.finish();
}

/// Nodes per second of the alpha-beta player with the hand-written and a learned evaluation
/// (random weights: the cost does not depend on their values), on the same positions.
fn alphabeta_eval(c: &mut Criterion) {
    use fanorona_eval::{EvalNet, EvalWeights, Inputs, Shape};
    use fanorona_players::Evaluation;
    use std::sync::Arc;
    let mut group = c.benchmark_group("alphabeta_eval");
    group.sample_size(10);
    let config = AlphaBetaConfig {
        tt_mebibytes: 4,
        ..AlphaBetaConfig::default()
    };
    let learned = |inputs: Inputs, hidden1, hidden2| {
        let mut w = EvalWeights::zeros(Shape {
            inputs,
            hidden1,
            hidden2,
        });
        let bound = 0.2f32.min(inputs.l1_weight_max());
        let mut x = 1u32;
        for v in
            w.l1.iter_mut()
                .chain(w.l2.iter_mut())
                .chain(w.l3.iter_mut())
        {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *v = ((x >> 8) as f32 / (1u32 << 24) as f32 * 0.4 - 0.2).clamp(-bound, bound);
        }
        Evaluation::Learned(Arc::new(EvalNet::new(w).expect("valid weights")))
    };
    let mut evals = vec![
        ("handwritten", Evaluation::Handwritten),
        ("learned64x16", learned(Inputs::Stones, 64, 16)),
        ("learned128x32", learned(Inputs::Stones, 128, 32)),
        ("lines128x32", learned(Inputs::Lines, 128, 32)),
    ];
    if let Some(bytes) = fanorona_eval::SHIPPED {
        let (weights, _) = EvalWeights::decode_file(std::path::Path::new("learned.fne"), bytes)
            .expect("the shipped evaluation decodes");
        let net = EvalNet::new(weights).expect("the shipped evaluation is valid");
        evals.push(("shipped", Evaluation::Learned(Arc::new(net))));
    }
    for (name, game) in positions() {
        let depth = 5;
        for (eval_name, eval) in &evals {
            let mut player = AlphaBetaPlayer::new(config).with_evaluation(eval.clone());
            let nodes = player
                .choose(&game, Some(Limit::Depth(depth)))
                .expect("position is playable")
                .info
                .nodes;
            group.throughput(Throughput::Elements(nodes));
            let id = BenchmarkId::new(format!("{eval_name}/depth{depth}"), name);
            group.bench_function(id, |b| {
                b.iter(|| {
                    player.new_game();
                    black_box(
                        player
                            .choose(&game, Some(Limit::Depth(depth)))
                            .map(|c| c.turn),
                    )
                })
            });
        }
    }
    group.finish();
}

fn mcts(c: &mut Criterion) {
    let mut group = c.benchmark_group("mcts_fanorona");
    for (name, game) in positions() {
        for batch_size in [1, 8] {
            let config = SearchConfig {
                simulations: 800,
                batch_size,
                ..SearchConfig::default().for_match()
            };
            group.throughput(Throughput::Elements(800));
            let id = BenchmarkId::new(format!("uniform/800x{batch_size}"), name);
            group.bench_function(id, |b| {
                b.iter(|| {
                    let mut search = Search::new(FanoronaState::new(game.clone()), config, 0)
                        .expect("valid config");
                    black_box(
                        search
                            .run(&UniformEvaluator::default())
                            .ok()
                            .flatten()
                            .map(|r| r.best),
                    )
                })
            });
        }
    }
    group.finish();
}

/// The leaf judge of the MCTS players' `mix` ([`LeafJudge`]): one judgement per iteration, at
/// depth 0 (captures played out) and 1 (one whole turn, then captures).
fn leaf_judge(c: &mut Criterion) {
    let mut group = c.benchmark_group("leaf_judge");
    group.throughput(Throughput::Elements(1));
    for (name, game) in positions() {
        for depth in [0, 1] {
            let pos = *game.position();
            let id = BenchmarkId::new(format!("depth{depth}"), name);
            // A fresh judge each time: in a search every leaf is a new position, so its small
            // transposition table would not answer the same question twice.
            group.bench_function(id, |b| {
                b.iter_batched(
                    || LeafJudge::new(depth, 4),
                    |mut judge| black_box(judge.judge(&pos, 0, None)),
                    BatchSize::LargeInput,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, alphabeta, alphabeta_eval, mcts, leaf_judge);
criterion_main!(benches);
