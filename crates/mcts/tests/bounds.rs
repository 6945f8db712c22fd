//! A search ends early when asked to, and its tree never outgrows the node limit, however many
//! simulations it was given.

mod common;

use std::cell::Cell;

use common::Recording;
use common::games::Wide;
use fanorona_mcts::{Algorithm, Search, SearchConfig, UniformEvaluator};

fn config(algorithm: Algorithm, simulations: u32) -> SearchConfig {
    SearchConfig {
        algorithm,
        simulations,
        batch_size: 8,
        ..SearchConfig::default()
    }
    .for_match()
}

#[test]
fn a_stop_ends_the_search_after_the_batch_in_flight() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let evaluator = Recording::new(UniformEvaluator::default());
        let mut search = Search::new(Wide::new(10, 100), config(algorithm, 100_000), 0).unwrap();
        let batches = Cell::new(0);
        let result = search
            .run_until_stopped(&evaluator, 100_000, &|| {
                batches.set(batches.get() + 1);
                batches.get() >= 3
            })
            .unwrap()
            .unwrap()
            .clone();
        // The root's evaluation, then two batches of eight.
        assert_eq!(evaluator.sizes(), [1, 8, 8], "{algorithm:?}");
        assert_eq!(result.simulations, 17, "{algorithm:?}");
        assert_eq!(result.visits.iter().sum::<u32>(), 16, "{algorithm:?}");
        assert!(result.actions.contains(&result.best), "{algorithm:?}");
    }
}

#[test]
fn a_stop_never_raised_changes_nothing() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let mut plain = Search::new(Wide::new(6, 100), config(algorithm, 300), 7).unwrap();
        let mut watched = Search::new(Wide::new(6, 100), config(algorithm, 300), 7).unwrap();
        let evaluator = UniformEvaluator::default();
        let a = plain.run(&evaluator).unwrap().unwrap().clone();
        let b = watched
            .run_until_stopped(&evaluator, 300, &|| false)
            .unwrap()
            .unwrap()
            .clone();
        assert_eq!(a.visits, b.visits, "{algorithm:?}");
        assert_eq!(a.best, b.best, "{algorithm:?}");
    }
}

#[test]
fn a_full_tree_ends_the_search_whatever_the_simulations_asked() {
    let limit = 2_000;
    let mut search = Search::new(Wide::new(10, 1_000), config(Algorithm::Puct, 1_000_000), 0)
        .unwrap()
        .with_node_limit(limit);
    let result = search
        .run(&UniformEvaluator::default())
        .unwrap()
        .unwrap()
        .clone();
    // One batch may still expand after the limit is reached: eight leaves of ten children.
    assert!(
        search.tree_size() <= limit + 8 * 10,
        "{}",
        search.tree_size()
    );
    assert!(result.simulations < 1_000, "{}", result.simulations);
}
