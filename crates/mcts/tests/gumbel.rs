//! Gumbel root search: small budgets find the best move, and the improved policy is a proper
//! training target.

mod common;

use common::games::{Chain, ChainNim, Nim, TicTacToe};
use common::{misleading_chain_nim, perfect_chain_nim, perfect_nim};
use fanorona_mcts::{Algorithm, GumbelConfig, RolloutEvaluator, Search, SearchConfig};

fn gumbel(simulations: u32, batch_size: u32, noise: bool) -> SearchConfig {
    SearchConfig {
        algorithm: Algorithm::Gumbel,
        simulations,
        batch_size,
        gumbel: GumbelConfig {
            noise,
            ..GumbelConfig::default()
        },
        ..SearchConfig::default()
    }
}

#[test]
fn nim_with_eight_simulations() {
    for (stones, best) in [(7, 3), (10, 2), (9, 1)] {
        // Without noise the halving winner is the best move.
        let mut search = Search::new(Nim::new(stones), gumbel(8, 1, false), 0).unwrap();
        let result = search.run(&perfect_nim()).unwrap().unwrap();
        assert_eq!(result.chosen, best, "stones {stones}: {result:?}");
        assert_eq!(result.best, best, "stones {stones}: {result:?}");
        // With noise the played move is a sample, but the target still points at the best move.
        for seed in 0..5 {
            let mut search = Search::new(Nim::new(stones), gumbel(8, 2, true), seed).unwrap();
            let result = search.run(&perfect_nim()).unwrap().unwrap();
            assert_eq!(
                result.best, best,
                "stones {stones}, seed {seed}: {result:?}"
            );
            assert!(
                result.policy_of(best) > 0.5,
                "stones {stones}, seed {seed}: {result:?}"
            );
        }
    }
}

#[test]
fn policy_target_sums_to_one_and_favours_the_best_move() {
    let mut search = Search::new(Nim::new(7), gumbel(16, 4, true), 1).unwrap();
    let result = search.run(&perfect_nim()).unwrap().unwrap();
    let total: f32 = result.policy.iter().sum();
    assert!((total - 1.0).abs() < 1e-5, "{result:?}");
    assert!(result.policy_of(3) > 0.9, "{result:?}");
    // Priors were uniform: the target improved on them.
    assert!(result.policy_of(3) > result.priors[result.index_of(3).unwrap()]);
}

#[test]
fn tic_tac_toe_takes_the_win_with_rollouts() {
    let state = TicTacToe::parse(
        "X X .
         O O .
         . . .",
    );
    for seed in 0..4 {
        let mut search = Search::new(state.clone(), gumbel(32, 4, true), seed).unwrap();
        let result = search.run(&RolloutEvaluator::new(seed)).unwrap().unwrap();
        assert_eq!(result.best, 2, "seed {seed}: {result:?}");
        assert_eq!(result.chosen, 2, "seed {seed}: {result:?}");
        assert!(result.policy_of(2) > 0.5, "{result:?}");
    }
}

#[test]
fn chain_nim_mid_turn_with_small_budgets() {
    let cases = [
        (ChainNim::new(5, 1), Chain::Take),
        (ChainNim::new(4, 1), Chain::EndTurn),
        (ChainNim::new(4, 2), Chain::EndTurn),
        (ChainNim::new(6, 1), Chain::Take),
    ];
    for (state, best) in cases {
        for sims in [8, 16, 32] {
            let mut search = Search::new(state.clone(), gumbel(sims, 4, false), 7).unwrap();
            let result = search.run(&perfect_chain_nim()).unwrap().unwrap();
            assert_eq!(
                result.chosen, best,
                "{state:?}, {sims} simulations: {result:?}"
            );
            assert_eq!(
                result.best, best,
                "{state:?}, {sims} simulations: {result:?}"
            );
            assert!(result.policy_of(best) > 0.5, "{result:?}");
        }
        // Values must also win against priors that put 90% on the losing step.
        let mut search = Search::new(state.clone(), gumbel(32, 1, false), 7).unwrap();
        let result = search.run(&misleading_chain_nim()).unwrap().unwrap();
        assert_eq!(
            result.chosen, best,
            "{state:?}, misleading priors: {result:?}"
        );
    }
}

#[test]
fn budget_is_spent_exactly() {
    for (sims, batch) in [(8, 1), (8, 4), (13, 8), (32, 8)] {
        let mut search = Search::new(Nim::new(21), gumbel(sims, batch, true), 0).unwrap();
        let result = search.run(&RolloutEvaluator::new(0)).unwrap().unwrap();
        assert_eq!(result.simulations, sims);
        assert_eq!(result.visits.iter().sum::<u32>(), sims - 1, "{result:?}");
    }
}

#[test]
fn sequential_halving_spends_most_on_the_winner() {
    // 9 legal actions, 32 simulations: every action is tried, the survivor gets the most.
    let state = TicTacToe::parse(". . . . . . . . .");
    let mut search = Search::new(state, gumbel(32, 1, true), 3).unwrap();
    let result = search.run(&RolloutEvaluator::new(1)).unwrap().unwrap();
    assert!(result.visits.iter().all(|&n| n >= 1), "{result:?}");
    let max = *result.visits.iter().max().unwrap();
    assert_eq!(result.visits_of(result.chosen), max, "{result:?}");
}

#[test]
fn batching_keeps_the_halving_schedule() {
    // Two root actions and 31 root simulations: the plan splits them 16/15, batched or not,
    // even though leaves collide and terminal nodes are backed up mid-batch.
    for state in [
        ChainNim::new(4, 2),
        ChainNim::new(5, 1),
        ChainNim::new(7, 1),
    ] {
        for batch in [1, 4, 8] {
            let mut search = Search::new(state.clone(), gumbel(32, batch, true), 2).unwrap();
            let result = search.run(&perfect_chain_nim()).unwrap().unwrap();
            let mut visits = result.visits.clone();
            visits.sort_unstable();
            assert_eq!(visits, [15, 16], "{state:?}, batch {batch}: {result:?}");
        }
    }
}
