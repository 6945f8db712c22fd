//! Tree reuse: after `advance`, the played action's subtree and its visits are kept.

mod common;

use common::games::{Chain, ChainNim, Wide};
use common::perfect_chain_nim;
use fanorona_mcts::{Search, SearchConfig, SearchState, UniformEvaluator};

fn config(reuse_tree: bool) -> SearchConfig {
    SearchConfig {
        simulations: 200,
        batch_size: 4,
        reuse_tree,
        ..SearchConfig::default()
    }
}

#[test]
fn advance_keeps_the_chosen_subtree() {
    let mut search = Search::new(Wide::new(4, 40), config(true), 0).unwrap();
    let result = search
        .run(&UniformEvaluator::default())
        .unwrap()
        .unwrap()
        .clone();
    let action = result.chosen;
    let kept = result.visits_of(action);
    assert!(kept > 1);
    let size_before = search.tree_size();
    search.advance(action);
    assert_eq!(search.root_visits(), kept);
    assert!(search.tree_size() < size_before);
    assert_eq!(search.plies(), 1);
    // The next search adds its budget on top, and the old visits are in its counts.
    let result = search
        .run(&UniformEvaluator::default())
        .unwrap()
        .unwrap()
        .clone();
    assert_eq!(search.root_visits(), kept + 200);
    assert_eq!(result.visits.iter().sum::<u32>(), kept + 200 - 1);
    assert_eq!(result.simulations, 200);
}

#[test]
fn reuse_off_or_unexplored_action_starts_afresh() {
    let mut search = Search::new(Wide::new(4, 40), config(false), 0).unwrap();
    let action = search
        .run(&UniformEvaluator::default())
        .unwrap()
        .unwrap()
        .chosen;
    search.advance(action);
    assert_eq!(search.root_visits(), 0);
    assert_eq!(search.tree_size(), 1);

    // One simulation only evaluates the root: its children are unexplored.
    let mut search = Search::new(Wide::new(4, 40), config(true), 0).unwrap();
    search.start_with(1);
    while search.step() == SearchState::NeedsEvaluation {
        let requests: Vec<_> = search.requests().collect();
        let mut out = Vec::new();
        fanorona_mcts::Evaluator::evaluate(&UniformEvaluator::default(), &requests, &mut out)
            .unwrap();
        drop(requests);
        search.supply(&out);
    }
    search.advance(2);
    assert_eq!(search.root_visits(), 0);
    assert_eq!(search.root_state().ply, 1);
}

#[test]
fn reuse_across_a_chain_keeps_values_for_the_same_player() {
    // Player 0 takes, then must end the turn: the reused subtree's values stay player 0's.
    let mut search = Search::new(ChainNim::new(5, 1), config(true), 0).unwrap();
    let first = search.run(&perfect_chain_nim()).unwrap().unwrap().clone();
    assert_eq!(first.best, Chain::Take);
    let value_before = first.q[first.index_of(Chain::Take).unwrap()].unwrap();
    search.advance(Chain::Take);
    assert_eq!(search.root_state().to_move, 0);
    let second = search.run(&perfect_chain_nim()).unwrap().unwrap().clone();
    assert_eq!(second.best, Chain::EndTurn);
    assert!(
        value_before > 0.0 && second.value > 0.0,
        "{first:?} {second:?}"
    );
}

#[test]
fn advance_then_reset() {
    let mut search = Search::new(Wide::new(4, 40), config(true), 0).unwrap();
    search.run(&UniformEvaluator::default()).unwrap().unwrap();
    search.reset(Wide::new(3, 10));
    assert_eq!(search.tree_size(), 1);
    assert!(search.result().is_none());
    let result = search.run(&UniformEvaluator::default()).unwrap().unwrap();
    assert_eq!(result.actions, vec![0, 1, 2]);
}
