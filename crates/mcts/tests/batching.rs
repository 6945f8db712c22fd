//! Batched leaf evaluation: the evaluator receives the batch sizes asked for, for one search and
//! for many searches driven together.

mod common;

use common::Recording;
use common::games::{ChainNim, Nim, TicTacToe, Wide};
use fanorona_mcts::scheduler::{Schedule, evaluate_pending, record_games};
use fanorona_mcts::{
    Algorithm, RolloutEvaluator, Search, SearchConfig, SearchState, UniformEvaluator,
};
use proptest::prelude::*;

/// A search of `simulations` without the solver (whose proofs may end a search early).
fn config(simulations: u32, batch_size: u32) -> SearchConfig {
    SearchConfig {
        simulations,
        batch_size,
        solver: false,
        ..SearchConfig::default()
    }
}

#[test]
fn single_search_sends_full_batches() {
    // Ten actions everywhere and no terminal in reach: after the root's own evaluation every
    // batch holds exactly 8 distinct leaves.
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let evaluator = Recording::new(UniformEvaluator::default());
        let cfg = SearchConfig {
            algorithm,
            ..config(1 + 8 * 8, 8)
        };
        let mut search = Search::new(Wide::new(10, 100), cfg, 0).unwrap();
        let result = search.run(&evaluator).unwrap().unwrap();
        assert_eq!(
            evaluator.sizes(),
            [1, 8, 8, 8, 8, 8, 8, 8, 8],
            "{algorithm:?}"
        );
        assert_eq!(result.visits.iter().sum::<u32>(), 64);
    }
}

#[test]
fn last_batch_holds_the_remainder() {
    let evaluator = Recording::new(UniformEvaluator::default());
    let mut search = Search::new(Wide::new(10, 100), config(20, 8), 0).unwrap();
    search.run(&evaluator).unwrap().unwrap();
    assert_eq!(evaluator.sizes(), [1, 8, 8, 3]);
}

#[test]
fn terminal_leaves_are_valued_without_the_evaluator() {
    // From two stones every line ends within two plies: after a few evaluations all
    // simulations end on terminal nodes.
    let evaluator = Recording::new(UniformEvaluator::default());
    let mut search = Search::new(Nim::new(2), config(200, 4), 0).unwrap();
    let result = search.run(&evaluator).unwrap().unwrap().clone();
    assert_eq!(search.root_visits(), 200);
    assert!(evaluator.total() <= 4, "{:?}", evaluator.sizes());
    // Taking both stones wins on the spot, and the exact terminal values show it.
    assert_eq!(result.best, 2);
    assert_eq!(result.q[1], Some(1.0));
}

#[test]
fn collisions_in_a_narrow_tree_still_count_every_simulation_once() {
    // Tic-tac-toe near the end has few leaves: many selections collide.
    let state = TicTacToe::parse(
        "X O X
         . O .
         . X .",
    );
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let evaluator = Recording::new(RolloutEvaluator::new(0));
        let cfg = SearchConfig {
            algorithm,
            ..config(100, 16)
        };
        let mut search = Search::new(state.clone(), cfg, 0).unwrap();
        let result = search.run(&evaluator).unwrap().unwrap().clone();
        assert_eq!(search.root_visits(), 100, "{algorithm:?}");
        assert_eq!(result.visits.iter().sum::<u32>(), 99, "{algorithm:?}");
        assert!(evaluator.sizes().iter().all(|&n| n <= 16));
    }
}

#[test]
fn many_searches_share_one_evaluator_call() {
    // 16 games x 4 leaves: one batch of 16 roots, then batches of 64.
    let evaluator = Recording::new(UniformEvaluator::default());
    let mut searches: Vec<Search<Wide>> = (0..16)
        .map(|i| Search::new(Wide::new(10, 100), config(1 + 4 * 5, 4), i).unwrap())
        .collect();
    searches.iter_mut().for_each(Search::start);
    let mut out = Vec::new();
    loop {
        let mut any = false;
        for s in &mut searches {
            any |= s.step() == SearchState::NeedsEvaluation;
        }
        if !any {
            break;
        }
        evaluate_pending(&mut searches, &evaluator, &mut out).unwrap();
    }
    assert_eq!(evaluator.sizes(), [16, 64, 64, 64, 64, 64]);
    assert!(
        searches
            .iter()
            .all(|s| s.result().unwrap().simulations == 21)
    );
}

#[test]
fn evaluate_pending_accepts_borrowed_searches_and_skips_idle_ones() {
    let evaluator = Recording::new(UniformEvaluator::default());
    let mut a = Search::new(Wide::new(5, 10), config(9, 4), 0).unwrap();
    let mut b = Search::new(Wide::new(5, 10), config(9, 4), 1).unwrap();
    a.start();
    b.start();
    let mut out = Vec::new();
    assert_eq!(a.step(), SearchState::NeedsEvaluation);
    // `b` has not stepped: nothing pending, contributes nothing.
    let mut both = [&mut a, &mut b];
    assert_eq!(
        evaluate_pending(&mut both, &evaluator, &mut out).unwrap(),
        1
    );
    assert_eq!(
        evaluate_pending(&mut both, &evaluator, &mut out).unwrap(),
        0
    );
    assert_eq!(evaluator.sizes(), [1]);
}

#[test]
fn play_games_batches_across_games_and_finishes_them() {
    let evaluator = Recording::new(UniformEvaluator::default());
    let cfg = SearchConfig {
        reuse_tree: false,
        ..config(9, 4)
    };
    let options = Schedule {
        games: 24,
        concurrent: 8,
        seed: 1,
        ..Schedule::default()
    };
    let records = record_games(
        |i| Nim::new(10 + (i % 5) as u8),
        &cfg,
        &evaluator,
        &options,
        1000,
    )
    .unwrap();
    assert_eq!(records.len(), 24);
    for (i, record) in records.iter().enumerate() {
        assert!(record.terminal.is_some(), "game {i}");
        assert_eq!(record.decisions[0].state, Nim::new(10 + (i % 5) as u8));
        let played: u8 = record.decisions.iter().map(|d| d.result.chosen).sum();
        assert_eq!(played, 10 + (i % 5) as u8, "game {i}: every stone taken");
    }
    // Eight games at a time: batches far larger than one search's 4 leaves.
    let sizes = evaluator.sizes();
    assert!(sizes.iter().all(|&n| n <= 32), "{sizes:?}");
    assert!(
        sizes.iter().filter(|&&n| n > 4).count() > sizes.len() / 2,
        "{sizes:?}"
    );
}

#[test]
fn play_games_stops_at_the_action_cap() {
    let options = Schedule {
        games: 2,
        concurrent: 2,
        seed: 0,
        ..Schedule::default()
    };
    let records = record_games(
        |_| Wide::new(3, 100),
        &config(8, 4),
        &UniformEvaluator::default(),
        &options,
        5,
    )
    .unwrap();
    for record in records {
        assert_eq!(record.terminal, None);
        assert_eq!(record.decisions.len(), 5);
        assert_eq!(record.final_state.ply, 5);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the batch size, collisions and terminals, a search adds exactly its budget of
    /// visits to a fresh root and never asks for more than a batch at once.
    #[test]
    fn budget_and_batch_limits_hold(
        stones in 1u8..30,
        simulations in 1u32..200,
        batch in 1u32..20,
        gumbel in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let algorithm = if gumbel { Algorithm::Gumbel } else { Algorithm::Puct };
        let evaluator = Recording::new(RolloutEvaluator::new(seed));
        let cfg = SearchConfig { algorithm, ..config(simulations, batch) };
        let mut search = Search::new(Nim::new(stones), cfg, seed).unwrap();
        let result = search.run(&evaluator).unwrap().unwrap().clone();
        prop_assert_eq!(search.root_visits(), simulations);
        prop_assert_eq!(result.visits.iter().sum::<u32>(), simulations - 1);
        prop_assert!(evaluator.sizes().iter().all(|&n| n >= 1 && n <= batch as usize));
        prop_assert!((result.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        prop_assert!(result.actions.contains(&result.chosen));
    }

    /// With the solver, a search that ends before its budget has proven the root, and what it
    /// proved is Nim's theory (the mover wins unless the pile is a multiple of four); a root
    /// proven won is played by a move that leaves a multiple of four, in Nim and in the
    /// chain version whose turns are several actions of one player.
    #[test]
    fn the_solver_proves_only_what_is_true_and_plays_the_proven_win(
        stones in 1u8..24,
        simulations in 1u32..3000,
        batch in 1u32..9,
        gumbel in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let algorithm = if gumbel { Algorithm::Gumbel } else { Algorithm::Puct };
        let cfg = SearchConfig { algorithm, solver: true, ..config(simulations, batch) };
        let evaluator = RolloutEvaluator::new(seed);
        let mut search = Search::new(Nim::new(stones), cfg, seed).unwrap();
        let result = search.run(&evaluator).unwrap().unwrap().clone();
        let wins = stones % 4 != 0;
        let mover = result.to_move;
        if search.root_visits() < simulations {
            prop_assert!(search.root_winner().is_some(), "ended early without a proof");
        }
        // A proof is Nim's theory and values the root exactly; a value of exactly 1 or -1
        // without one (a single rollout) proves nothing and is not asserted on.
        if let Some(winner) = search.root_winner() {
            prop_assert_eq!(winner == mover, wins, "nim, {} stones", stones);
            prop_assert_eq!(result.value, if wins { 1.0 } else { -1.0 });
            if wins {
                prop_assert_eq!((stones - result.chosen) % 4, 0);
            }
        }
        let chain = ChainNim::new(stones, 0);
        let mut search = Search::new(chain.clone(), cfg, seed).unwrap();
        let result = search.run(&evaluator).unwrap().unwrap().clone();
        if let Some(winner) = search.root_winner() {
            prop_assert_eq!(winner == result.to_move, chain.player_to_move_wins(), "chain nim, {} stones", stones);
            prop_assert_eq!(result.value.abs(), 1.0);
        }
    }
}

#[test]
fn the_solver_ends_a_search_whose_root_it_proves_and_says_so() {
    // From two stones every line ends within two plies: the root is proven at once.
    let cfg = SearchConfig {
        solver: true,
        ..config(200, 4)
    };
    let mut search = Search::new(Nim::new(2), cfg, 0).unwrap();
    let result = search
        .run(&UniformEvaluator::default())
        .unwrap()
        .unwrap()
        .clone();
    assert!(search.root_visits() < 200, "{}", search.root_visits());
    assert_eq!(result.best, 2);
    assert_eq!(result.chosen, 2);
    assert_eq!(result.value, 1.0);
    assert_eq!(result.wdl, [1.0, 0.0, 0.0]);
}

/// Fails every call after the first `ok` calls.
struct Failing {
    ok: std::sync::atomic::AtomicU32,
}

impl<G: fanorona_mcts::GameState> fanorona_mcts::Evaluator<G> for Failing {
    fn evaluate(
        &self,
        batch: &[fanorona_mcts::EvalRequest<'_, G>],
        out: &mut Vec<fanorona_mcts::Evaluation>,
    ) -> Result<(), fanorona_mcts::EvalError> {
        use std::sync::atomic::Ordering;
        if self.ok.load(Ordering::Relaxed) == 0 {
            return Err(fanorona_mcts::EvalError::new("device lost"));
        }
        self.ok.fetch_sub(1, Ordering::Relaxed);
        UniformEvaluator::default().evaluate(batch, out)
    }
}

#[test]
fn an_evaluator_error_stops_the_search_and_the_games_and_names_itself() {
    let failing = || Failing {
        ok: std::sync::atomic::AtomicU32::new(2),
    };
    let mut search = Search::new(Wide::new(5, 10), config(64, 4), 0).unwrap();
    let err = search.run(&failing()).unwrap_err();
    assert!(err.to_string().contains("device lost"), "{err}");
    // The search is left idle and consistent: it runs again with a working evaluator.
    let result = search.run(&UniformEvaluator::default()).unwrap().unwrap();
    assert!(result.visits.iter().sum::<u32>() > 0);
    let schedule = Schedule {
        games: 4,
        concurrent: 2,
        ..Schedule::default()
    };
    let err = record_games(
        |_| Wide::new(3, 6),
        &config(8, 2),
        &failing(),
        &schedule,
        50,
    )
    .unwrap_err();
    assert!(err.to_string().contains("device lost"), "{err}");
}
