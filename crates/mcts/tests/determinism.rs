//! Seeds: the same seed and evaluator reproduce a search exactly; different seeds explore
//! differently when noise is on.

mod common;

use common::games::{Nim, TicTacToe, Wide};
use fanorona_mcts::scheduler::{Schedule, record_games};
use fanorona_mcts::{
    Algorithm, RolloutEvaluator, Search, SearchConfig, SearchResult, TemperatureSchedule,
};

fn noisy(algorithm: Algorithm) -> SearchConfig {
    SearchConfig {
        algorithm,
        simulations: 200,
        batch_size: 4,
        dirichlet_weight: 0.25,
        temperature: TemperatureSchedule {
            opening: 1.0,
            opening_plies: 100,
            later: 0.0,
        },
        ..SearchConfig::default()
    }
}

fn search_empty_board(config: SearchConfig, seed: u64) -> SearchResult<u8> {
    let mut search = Search::new(TicTacToe::parse(". . . . . . . . ."), config, seed).unwrap();
    search
        .run(&RolloutEvaluator::new(99))
        .unwrap()
        .unwrap()
        .clone()
}

#[test]
fn same_seed_same_search() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        for seed in [0, 1, 12345] {
            let a = search_empty_board(noisy(algorithm), seed);
            let b = search_empty_board(noisy(algorithm), seed);
            assert_eq!(a, b, "{algorithm:?}, seed {seed}");
        }
    }
}

#[test]
fn different_seeds_differ_with_noise() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let results: Vec<_> = (0..6)
            .map(|seed| search_empty_board(noisy(algorithm), seed))
            .collect();
        let distinct_visits = results
            .iter()
            .filter(|r| r.visits != results[0].visits)
            .count();
        assert!(distinct_visits >= 4, "{algorithm:?}: {results:?}");
        let distinct_moves = results
            .iter()
            .filter(|r| r.chosen != results[0].chosen)
            .count();
        assert!(distinct_moves >= 1, "{algorithm:?}: {results:?}");
    }
}

#[test]
fn without_noise_the_seed_does_not_matter() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let config = noisy(algorithm).for_match();
        let a = search_empty_board(config, 1);
        let b = search_empty_board(config, 2);
        assert_eq!(a, b, "{algorithm:?}");
    }
}

#[test]
fn whole_games_replay_identically() {
    let options = Schedule {
        games: 6,
        concurrent: 3,
        seed: 77,
        ..Schedule::default()
    };
    let play = |config: &SearchConfig| {
        record_games(
            |i| Nim::new(15 + i as u8),
            config,
            &RolloutEvaluator::new(5),
            &options,
            50,
        )
        .unwrap()
        .iter()
        .map(|r| {
            r.decisions
                .iter()
                .map(|d| (d.result.chosen, d.result.visits.clone()))
                .collect()
        })
        .collect::<Vec<Vec<_>>>()
    };
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let config = SearchConfig {
            simulations: 32,
            ..noisy(algorithm)
        };
        assert_eq!(play(&config), play(&config), "{algorithm:?}");
    }
}

#[test]
fn result_is_independent_of_how_leaves_are_batched_across_games() {
    // A game's search sees only its own leaves' evaluations: running it alone or beside other
    // games gives the same result when the evaluator is a pure function of the position.
    let evaluator = fanorona_mcts::UniformEvaluator::default();
    let config = SearchConfig {
        simulations: 40,
        ..noisy(Algorithm::Puct)
    };
    let alone = record_games(
        |_| Wide::new(6, 8),
        &config,
        &evaluator,
        &Schedule {
            games: 1,
            concurrent: 1,
            seed: 3,
            ..Schedule::default()
        },
        100,
    )
    .unwrap();
    let together = record_games(
        |_| Wide::new(6, 8),
        &config,
        &evaluator,
        &Schedule {
            games: 5,
            concurrent: 5,
            seed: 3,
            ..Schedule::default()
        },
        100,
    )
    .unwrap();
    let moves = |r: &fanorona_mcts::scheduler::SearchedGame<Wide>| {
        r.decisions
            .iter()
            .map(|d| d.result.chosen)
            .collect::<Vec<_>>()
    };
    assert_eq!(moves(&alone[0]), moves(&together[0]));
}
