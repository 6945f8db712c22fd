//! The network-free evaluators.

mod common;

use common::games::{Nim, Wide};
use fanorona_mcts::{EvalRequest, Evaluator, RolloutEvaluator, UniformEvaluator};

fn evaluate<G: fanorona_mcts::GameState, E: Evaluator<G>>(
    evaluator: &E,
    states: &[G],
) -> Vec<fanorona_mcts::Evaluation> {
    let legal: Vec<Vec<G::Action>> = states
        .iter()
        .map(|s| {
            let mut v = Vec::new();
            s.legal_actions(&mut v);
            v
        })
        .collect();
    let batch: Vec<EvalRequest<'_, G>> = states
        .iter()
        .zip(&legal)
        .map(|(state, legal)| EvalRequest { state, legal })
        .collect();
    let mut out = Vec::new();
    evaluator.evaluate(&batch, &mut out).unwrap();
    out
}

#[test]
fn rollouts_value_the_player_to_move() {
    // One stone: every playout takes it and wins.
    let out = evaluate(
        &RolloutEvaluator::new(0).with_rollouts(20),
        &[Nim::new(1), Nim::new(3)],
    );
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].wdl, [1.0, 0.0, 0.0]);
    assert_eq!(out[0].priors, [1.0]);
    assert_eq!(out[1].priors.len(), 3);
    assert!((out[1].priors.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    assert!((out[1].wdl.iter().sum::<f32>() - 1.0).abs() < 1e-6);
}

#[test]
fn rollouts_average_towards_the_true_odds() {
    // Two stones: taking both wins; taking one lets the opponent win. Random play: 50%.
    let out = evaluate(
        &RolloutEvaluator::new(3).with_rollouts(2000),
        &[Nim::new(2)],
    );
    assert!((out[0].wdl[0] - 0.5).abs() < 0.05, "{:?}", out[0]);
    assert_eq!(out[0].wdl[1], 0.0);
}

#[test]
fn ply_cap_counts_as_a_draw() {
    let out = evaluate(&RolloutEvaluator::new(0).with_max_plies(0), &[Nim::new(30)]);
    assert_eq!(out[0].wdl, [0.0, 1.0, 0.0]);
}

#[test]
fn rollouts_are_reproducible_from_the_seed() {
    let states: Vec<Nim> = (1..40).map(Nim::new).collect();
    let a = evaluate(&RolloutEvaluator::new(9), &states);
    let b = evaluate(&RolloutEvaluator::new(9), &states);
    let c = evaluate(&RolloutEvaluator::new(10), &states);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn uniform_evaluator_is_uniform() {
    let out = evaluate(&UniformEvaluator::default(), &[Wide::new(4, 3)]);
    assert_eq!(out[0].priors, [0.25; 4]);
    assert_eq!(out[0].value(), 0.0);
}
