//! Forced actions: a game policy may play a root's only legal action without a search.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};

use common::Recording;
use common::games::{Chain, ChainNim};
use fanorona_mcts::scheduler::{GamePolicy, Schedule, ScheduleCounters, Verdict, play_games};
use fanorona_mcts::{GameState, SearchConfig, SearchResult, Terminal, UniformEvaluator};

/// Plays the search's choice; counts what the scheduler asked of it.
struct Counting {
    skip_forced: bool,
    /// Legal actions at every root a search was run for.
    searched: Vec<usize>,
    /// Forced actions offered and whether they were taken.
    offered: u32,
    /// Every action played, in order, and the positions it led to.
    played: Vec<(Chain, ChainNim)>,
}

impl GamePolicy<ChainNim> for Counting {
    type Record = Counting;

    fn play_forced(&mut self, root: &ChainNim, action: Chain) -> bool {
        let mut legal = Vec::new();
        root.legal_actions(&mut legal);
        assert_eq!(legal, [action], "only a single legal action is offered");
        self.offered += 1;
        self.skip_forced
    }

    fn decide(&mut self, root: &ChainNim, result: &SearchResult<Chain>) -> Verdict<Chain> {
        let mut legal = Vec::new();
        root.legal_actions(&mut legal);
        self.searched.push(legal.len());
        Verdict::Play(result.chosen)
    }

    fn played(&mut self, action: Chain, root: &ChainNim) -> Verdict<()> {
        self.played.push((action, root.clone()));
        Verdict::Play(())
    }

    fn finish(self, root: &ChainNim, terminal: Option<Terminal>) -> Counting {
        assert_eq!(root.stones, 0, "the game ran to its end");
        assert!(terminal.is_some());
        self
    }
}

fn play(skip_forced: bool) -> (Vec<Counting>, u64, usize) {
    let evaluator = Recording::new(UniformEvaluator::default());
    let config = SearchConfig {
        simulations: 16,
        batch_size: 4,
        ..SearchConfig::default()
    };
    let schedule = Schedule {
        games: 6,
        concurrent: 3,
        seed: 3,
        ..Schedule::default()
    };
    let counters = ScheduleCounters::default();
    let mut records = Vec::new();
    play_games(
        &evaluator,
        &config,
        &schedule,
        |i| {
            let policy = Counting {
                skip_forced,
                searched: Vec::new(),
                offered: 0,
                played: Vec::new(),
            };
            (ChainNim::new(9 + i as u8, 0), policy)
        },
        &AtomicBool::new(false),
        &counters,
        |_, record| records.push(record),
    )
    .unwrap();
    let actions = counters.actions.load(Ordering::Relaxed);
    (records, actions, evaluator.total())
}

#[test]
fn forced_actions_are_played_without_a_search_when_the_policy_says_so() {
    let (games, actions, evaluated) = play(true);
    assert_eq!(games.len(), 6);
    for game in &games {
        // Every turn of ChainNim starts with a forced Take: each was offered and played,
        // and no search was run at a root with one legal action.
        assert!(game.offered > 0);
        assert!(game.searched.iter().all(|&n| n >= 2), "{:?}", game.searched);
        assert_eq!(
            game.played.len(),
            game.searched.len() + game.offered as usize,
            "every action is either searched or forced"
        );
        // The sequence of positions is a legal game: each action applied to the last one.
        let mut state = ChainNim::new(game.played[0].1.stones + 1, 0);
        for (action, after) in &game.played {
            state.apply(*action);
            assert_eq!(&state, after);
        }
    }
    let total: usize = games.iter().map(|g| g.played.len()).sum();
    assert_eq!(
        actions, total as u64,
        "the counters count forced actions too"
    );

    // The default searches forced positions like any other, at a cost in evaluations.
    let (searched_games, _, searched_evaluations) = play(false);
    for game in &searched_games {
        assert!(game.searched.contains(&1), "forced roots searched");
        assert_eq!(game.played.len(), game.searched.len());
    }
    assert!(
        evaluated < searched_evaluations,
        "{evaluated} evaluations skipping forced actions, {searched_evaluations} searching them"
    );
}
