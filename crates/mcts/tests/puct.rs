//! PUCT search finds known best moves on toy games.

mod common;

use common::games::{Chain, ChainNim, Nim, TicTacToe};
use common::{misleading_chain_nim, perfect_chain_nim, perfect_nim};
use fanorona_mcts::{Algorithm, RolloutEvaluator, Search, SearchConfig, SearchState};

fn puct(simulations: u32, batch_size: u32) -> SearchConfig {
    SearchConfig {
        algorithm: Algorithm::Puct,
        simulations,
        batch_size,
        c_puct: 1.5,
        ..SearchConfig::default().for_match()
    }
}

#[test]
fn nim_rollouts_leave_a_multiple_of_four() {
    for (stones, best) in [(7, 3), (10, 2), (9, 1)] {
        for batch in [1, 8] {
            let mut search = Search::new(Nim::new(stones), puct(800, batch), 5).unwrap();
            let result = search.run(&RolloutEvaluator::new(11)).unwrap().unwrap();
            assert_eq!(
                result.best, best,
                "stones {stones}, batch {batch}: {result:?}"
            );
        }
    }
}

#[test]
fn tic_tac_toe_takes_the_win_and_blocks() {
    // X to move wins at once on the top row (cell 2).
    let win = TicTacToe::parse(
        "X X .
         O O .
         . . .",
    );
    // O to move must block X's diagonal at cell 8.
    let block = TicTacToe::parse(
        "X . .
         . X .
         O . .",
    );
    for (state, best) in [(win, 2), (block, 8)] {
        for batch in [1, 4] {
            let mut search = Search::new(state.clone(), puct(1500, batch), 1).unwrap();
            let result = search.run(&RolloutEvaluator::new(2)).unwrap().unwrap();
            assert_eq!(result.best, best, "batch {batch}: {result:?}");
        }
    }
}

/// Mid-chain positions of ChainNim: the same player acts again after `Take`, so a search that
/// flipped the value at every ply instead of at every change of player would get these wrong.
fn chain_cases() -> Vec<(ChainNim, Chain)> {
    vec![
        (ChainNim::new(5, 1), Chain::Take),    // take one more, leave 4
        (ChainNim::new(4, 1), Chain::EndTurn), // stop now, leave 4
        (ChainNim::new(4, 2), Chain::EndTurn),
        (ChainNim::new(6, 1), Chain::Take), // take two more
        (ChainNim::new(2, 1), Chain::Take), // take the last stones
    ]
}

#[test]
fn chain_nim_perfect_values_pick_the_winning_chain_step() {
    for (state, best) in chain_cases() {
        assert_eq!(state.winning_actions(), vec![best], "test case {state:?}");
        for batch in [1, 4] {
            let mut search = Search::new(state.clone(), puct(64, batch), 3).unwrap();
            let result = search.run(&perfect_chain_nim()).unwrap().unwrap();
            assert_eq!(result.best, best, "{state:?}, batch {batch}: {result:?}");
            assert!(
                result.value > 0.5,
                "winning position valued {}: {result:?}",
                result.value
            );
        }
    }
}

#[test]
fn chain_nim_values_beat_misleading_priors() {
    // Priors favour a losing step at every level, so the averages need many visits to turn.
    for (state, best) in chain_cases() {
        let mut search = Search::new(state.clone(), puct(3000, 4), 3).unwrap();
        let result = search.run(&misleading_chain_nim()).unwrap().unwrap();
        assert_eq!(result.best, best, "{state:?}: {result:?}");
    }
}

#[test]
fn chain_nim_rollouts_pick_the_winning_chain_step() {
    for (state, best) in chain_cases() {
        let mut search = Search::new(state.clone(), puct(1000, 4), 9).unwrap();
        let result = search.run(&RolloutEvaluator::new(4)).unwrap().unwrap();
        assert_eq!(result.best, best, "{state:?}: {result:?}");
    }
}

#[test]
fn root_value_is_for_the_player_to_move() {
    // Four stones at the start of a turn: lost whatever the player does. (Averages include the
    // opponent's exploratory mistakes, hence the margins.)
    let mut search = Search::new(ChainNim::new(4, 0), puct(200, 1), 0).unwrap();
    let result = search.run(&perfect_chain_nim()).unwrap().unwrap();
    assert!(result.value < -0.8, "{result:?}");
    assert!(result.wdl[2] > 0.8, "{result:?}");
    // The mirror image: five stones is a win for the player to move.
    let mut search = Search::new(ChainNim::new(5, 0), puct(200, 1), 0).unwrap();
    let result = search.run(&perfect_chain_nim()).unwrap().unwrap();
    assert!(result.value > 0.8, "{result:?}");
    // Without the solver every root action's average shows the loss...
    let plain = SearchConfig {
        solver: false,
        ..puct(200, 2)
    };
    let mut search = Search::new(Nim::new(8), plain, 0).unwrap();
    let result = search.run(&perfect_nim()).unwrap().unwrap();
    assert!(result.value < -0.8, "{result:?}");
    assert!(result.q.iter().all(|q| q.unwrap() < -0.7), "{result:?}");
    // ... with it the loss is proven, exactly, before the budget is spent.
    let mut search = Search::new(Nim::new(8), puct(200, 2), 0).unwrap();
    let result = search.run(&perfect_nim()).unwrap().unwrap().clone();
    assert_eq!(result.value, -1.0, "{result:?}");
    assert!(search.root_visits() < 200, "{}", search.root_visits());
}

#[test]
fn visit_counts_add_up_and_policy_is_normalised() {
    let mut search = Search::new(Nim::new(21), puct(300, 8), 0).unwrap();
    let result = search
        .run(&RolloutEvaluator::new(0))
        .unwrap()
        .unwrap()
        .clone();
    // The root's own evaluation is the first simulation.
    assert_eq!(result.visits.iter().sum::<u32>(), 299);
    assert_eq!(result.simulations, 300);
    assert_eq!(search.root_visits(), 300);
    assert!((result.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    assert_eq!(result.actions, vec![1, 2, 3]);
    assert!((result.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5);
}

#[test]
fn terminal_root_gives_no_result() {
    let mut search = Search::new(Nim::new(0), puct(10, 1), 0).unwrap();
    assert!(search.run(&RolloutEvaluator::new(0)).unwrap().is_none());
    search.start();
    assert_eq!(search.step(), SearchState::Done);
}

#[test]
fn one_simulation_returns_the_priors() {
    let mut search = Search::new(Nim::new(5), puct(1, 1), 0).unwrap();
    let result = search.run(&perfect_nim()).unwrap().unwrap();
    assert_eq!(result.visits, vec![0, 0, 0]);
    assert_eq!(result.policy, result.priors);
}
