//! Self-play: the per-game policy of a self-play game, played by the project's one game runner
//! ([`fanorona_mcts::scheduler::play_games`]), many games at once with every leaf of every game
//! evaluated in one batch per round.
//!
//! [`SelfPlayPolicy`] makes the decisions that are self-play's own:
//! - **Playout cap randomisation** (KataGo): a share of moves gets a full search and is recorded
//!   as a training sample; the other moves get a cheap search and are not recorded.
//! - **Resignation**: a side whose full-search loss probability stays above the threshold for a
//!   number of its consecutive full searches resigns, except in a share of games that never
//!   resign and instead record whether resigning would have been wrong.
//! - **Forced moves** (one legal action) are played without a search and not recorded, unless
//!   `selfplay.search_forced` asks for the old behaviour.
//! - **Varied openings**: with `selfplay.opening_prior_turns`, the first turns are drawn from
//!   the network's own policy after a cheap search, and not recorded.
//! - **A cap** on the actions of a game (a capped game is a draw).
//! - **Adjudication by the endgame tables**: with tables, a game ends at the first position
//!   they cover, with their result, and its searches score covered positions exactly; a share
//!   of games (`tablebase.play_on_fraction`) plays on without tables.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use fanorona_engine::{Action, Game, Position, Rules};
use fanorona_mcts::scheduler::{
    GamePolicy, Schedule, ScheduleCounters, ScheduleError, Verdict, play_games,
};
use fanorona_mcts::{Evaluator, GameState, SearchConfig, SearchResult, Terminal, derive_seed};
use fanorona_players::{FanoronaState, SearchTables};
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::config::SelfPlaySection;
use crate::replay::{GameEnd, GameSummary, Sample, absolute_index};

/// How self-play games are played.
#[derive(Clone, Debug)]
pub struct SelfPlaySettings {
    /// Search settings for full searches (noise, temperature, Gumbel or PUCT).
    pub search: SearchConfig,
    /// Rules of the games.
    pub rules: Rules,
    /// Playout cap randomisation, resignation and the action cap, as configured.
    pub play: SelfPlaySection,
    /// Endgame tables that adjudicate games, if any.
    pub tables: Option<Arc<SearchTables>>,
    /// Share of games that play on without the tables.
    pub play_on_fraction: f32,
}

impl SelfPlaySettings {
    /// Whether game `index` of a run seeded with `seed` is adjudicated by the tables (drawn
    /// from its own stream, so that the other decisions of the game do not change).
    pub fn adjudicates(&self, seed: u64, index: u64) -> bool {
        if self.tables.is_none() {
            return false;
        }
        let mut rng = StdRng::seed_from_u64(derive_seed(seed ^ 0x7AB1_E5E1, index));
        rng.random::<f32>() >= self.play_on_fraction
    }
}

/// A finished game: its training samples and summary.
#[derive(Clone, Debug)]
pub struct FinishedGame {
    /// The recorded (full-search) positions with their targets and the final result.
    pub samples: Vec<Sample>,
    /// How the game went.
    pub summary: GameSummary,
}

struct PendingSample {
    player: usize,
    sample: Sample,
}

/// The decisions of one self-play game (see the [module docs](self)).
pub struct SelfPlayPolicy<'a> {
    play: &'a SelfPlaySection,
    rng: StdRng,
    /// Whether the running search is a full (recorded) one.
    full: bool,
    /// Whether the running search is in the opening, where the action is drawn from the
    /// network's priors.
    opening: bool,
    may_resign: bool,
    resign_streak: [u32; 2],
    would_have_resigned: Option<usize>,
    resigned: Option<usize>,
    samples: Vec<PendingSample>,
    turn_start: Position,
    chain_steps: Vec<Action>,
    actions: u32,
    turns: u32,
}

impl<'a> SelfPlayPolicy<'a> {
    /// The policy of game `index` of a run seeded with `seed`, starting at `start`. Its own
    /// random stream (full or cheap searches, resigning allowed or not) derives from both.
    pub fn new(play: &'a SelfPlaySection, seed: u64, index: u64, start: &Position) -> Self {
        let mut rng = StdRng::seed_from_u64(derive_seed(seed, index) ^ 0x5E1F_5E1F);
        let may_resign =
            play.resign_threshold < 1.0 && rng.random::<f32>() >= play.no_resign_fraction;
        SelfPlayPolicy {
            play,
            rng,
            full: false,
            opening: false,
            may_resign,
            resign_streak: [0; 2],
            would_have_resigned: None,
            resigned: None,
            samples: Vec::new(),
            turn_start: *start,
            chain_steps: Vec::new(),
            actions: 0,
            turns: 0,
        }
    }

    /// Whether this game may resign (the others measure false resignations).
    pub fn may_resign(&self) -> bool {
        self.may_resign
    }

    /// Counts a full search's loss probability towards resigning; `true` when `mover`
    /// resigns now.
    fn resigns(&mut self, mover: usize, loss: f32) -> bool {
        if loss > self.play.resign_threshold {
            self.resign_streak[mover] += 1;
        } else {
            self.resign_streak[mover] = 0;
        }
        if self.resign_streak[mover] < self.play.resign_consecutive {
            return false;
        }
        if self.may_resign {
            return true;
        }
        self.would_have_resigned.get_or_insert(mover);
        false
    }

    fn record(&mut self, root: &FanoronaState, result: &SearchResult<Action>) {
        let policy: Vec<(u16, f32)> = result
            .actions
            .iter()
            .zip(&result.policy)
            .filter(|(_, p)| **p > 0.0)
            .map(|(&a, &p)| (absolute_index(a), p))
            .collect();
        let mut sample = Sample::new(
            &self.turn_start,
            &self.chain_steps,
            root.game().repetition_count(),
            policy,
            0,
        );
        // Kept only when it is a distribution: a shard with a bad target is refused whole.
        let wdl = result.wdl;
        let sum: f32 = wdl.iter().sum();
        if wdl.iter().all(|p| p.is_finite() && *p >= 0.0) && (sum - 1.0).abs() < 1e-3 {
            sample = sample.with_search_wdl(wdl.map(|p| p / sum));
        }
        self.samples.push(PendingSample {
            player: root.to_move(),
            sample,
        });
    }
}

impl GamePolicy<FanoronaState> for SelfPlayPolicy<'_> {
    type Record = FinishedGame;

    fn play_forced(&mut self, _root: &FanoronaState, _action: Action) -> bool {
        !self.play.search_forced
    }

    fn simulations(&mut self, _root: &FanoronaState, configured: u32) -> u32 {
        self.opening = self.turns < self.play.opening_prior_turns;
        self.full = !self.opening && self.rng.random::<f32>() < self.play.full_search_fraction;
        if self.full {
            configured
        } else {
            self.play.cheap_simulations
        }
    }

    fn decide(&mut self, root: &FanoronaState, result: &SearchResult<Action>) -> Verdict<Action> {
        if self.opening {
            return Verdict::Play(sample_prior(result, &mut self.rng));
        }
        if self.full {
            self.record(root, result);
            let mover = root.to_move();
            if self.resigns(mover, result.wdl[2]) {
                self.resigned = Some(mover);
                return Verdict::Stop;
            }
        }
        Verdict::Play(result.chosen)
    }

    fn played(&mut self, action: Action, root: &FanoronaState) -> Verdict<()> {
        self.actions += 1;
        let position = root.position();
        if position.is_turn_start() {
            self.turn_start = *position;
            self.chain_steps.clear();
            self.turns += 1;
        } else {
            self.chain_steps.push(action);
        }
        if self.actions >= self.play.max_actions {
            return Verdict::Stop;
        }
        Verdict::Play(())
    }

    fn finish(self, root: &FanoronaState, terminal: Option<Terminal>) -> FinishedGame {
        let (winner, end) = match (terminal, root.engine_outcome(), self.resigned) {
            (Some(_), Some(outcome), _) => (outcome.winner().map(|c| c.index()), outcome.into()),
            // terminal without an outcome of the rules: the tables decided
            (Some(Terminal::Win(w)), None, _) => (Some(w), GameEnd::Tablebase),
            (Some(Terminal::Draw), None, _) => (None, GameEnd::Tablebase),
            (_, _, Some(side)) => (Some(1 - side), GameEnd::Resigned),
            _ => (None, GameEnd::Capped),
        };
        let samples = self
            .samples
            .into_iter()
            .map(|p| Sample {
                result: match winner {
                    Some(w) if w == p.player => 1,
                    Some(_) => -1,
                    None => 0,
                },
                ..p.sample
            })
            .collect();
        let false_resignation = self
            .would_have_resigned
            .map(|side| winner != Some(1 - side));
        FinishedGame {
            samples,
            summary: GameSummary {
                turns: self.turns,
                actions: self.actions,
                end,
                winner: winner.map(|w| w as u8),
                false_resignation,
            },
        }
    }
}

/// An action drawn from the root's priors (the network's policy), or the search's choice
/// when the priors are no distribution (all zero, or not finite).
fn sample_prior(result: &SearchResult<Action>, rng: &mut StdRng) -> Action {
    match WeightedIndex::new(&result.priors) {
        Ok(index) => result.actions[index.sample(rng)],
        Err(_) => result.chosen,
    }
}

/// Plays the self-play games of `schedule` from the start position, `on_game` receiving every
/// finished game. Once `stop` is set the function returns at the next round; games still
/// running are dropped (they were never written, so nothing is lost).
pub fn play(
    evaluator: &(impl Evaluator<FanoronaState> + ?Sized),
    settings: &SelfPlaySettings,
    schedule: &Schedule,
    counters: &ScheduleCounters,
    stop: &AtomicBool,
    on_game: &mut dyn FnMut(FinishedGame),
) -> Result<(), ScheduleError> {
    let start = Game::new(settings.rules);
    play_games(
        evaluator,
        &settings.search,
        schedule,
        |index| {
            let policy =
                SelfPlayPolicy::new(&settings.play, schedule.seed, index, start.position());
            let tables = if settings.adjudicates(schedule.seed, index) {
                settings.tables.clone()
            } else {
                None
            };
            let state = FanoronaState::new(start.clone()).with_search_tables(tables);
            (state, policy)
        },
        stop,
        counters,
        |_, game| on_game(game),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_mcts::{EvalError, EvalRequest, Evaluation};

    fn section() -> SelfPlaySection {
        SelfPlaySection {
            full_search_fraction: 1.0,
            resign_threshold: 0.9,
            resign_consecutive: 2,
            no_resign_fraction: 0.0,
            ..SelfPlaySection::default()
        }
    }

    /// A finished search at `root` whose root loss probability is `loss`.
    fn result(root: &FanoronaState, loss: f32) -> SearchResult<Action> {
        let mut actions = Vec::new();
        root.legal_actions(&mut actions);
        let n = actions.len();
        SearchResult {
            to_move: root.to_move(),
            chosen: actions[0],
            best: actions[0],
            priors: vec![1.0 / n as f32; n],
            visits: vec![1; n],
            q: vec![None; n],
            policy: vec![1.0 / n as f32; n],
            value: -loss,
            wdl: [0.0, 1.0 - loss, loss],
            actions,
            simulations: 1,
        }
    }

    /// Plays `decisions` decisions through the policy as the scheduler would, the mover's root
    /// loss given by `loss(mover, its decision number)`; returns the last position and whether
    /// the policy stopped the game.
    fn drive(
        policy: &mut SelfPlayPolicy<'_>,
        decisions: usize,
        loss: impl Fn(usize, usize) -> f32,
    ) -> (FanoronaState, bool) {
        let mut state = FanoronaState::new(Game::new(Rules::default()));
        let mut made = [0usize; 2];
        for _ in 0..decisions {
            policy.simulations(&state, 32);
            let mover = state.to_move();
            let r = result(&state, loss(mover, made[mover]));
            made[mover] += 1;
            let Verdict::Play(action) = policy.decide(&state, &r) else {
                return (state, true);
            };
            state.apply(action);
            assert_eq!(policy.played(action, &state), Verdict::Play(()));
            assert!(state.terminal().is_none(), "the test game stays open");
        }
        (state, false)
    }

    const WHITE: usize = 0;

    /// White's searches all look lost, Black's fine.
    fn white_hopeless(mover: usize, _: usize) -> f32 {
        if mover == WHITE { 0.95 } else { 0.1 }
    }

    #[test]
    fn a_side_resigns_after_its_consecutive_hopeless_searches_only() {
        let play = section();
        let mut policy = SelfPlayPolicy::new(&play, 1, 0, &Position::start());
        assert!(policy.may_resign());
        let (state, stopped) = drive(&mut policy, 20, white_hopeless);
        assert!(
            stopped,
            "White resigns at its second hopeless search in a row"
        );
        assert_eq!(state.to_move(), WHITE);
        let game = policy.finish(&state, None);
        assert_eq!(game.summary.end, GameEnd::Resigned);
        assert_eq!(game.summary.winner, Some(1));
        // White resigned at exactly its second search: two White samples.
        let white_samples = game.samples.iter().filter(|s| !s.black_to_move).count();
        assert_eq!(white_samples, 2);
        // Every recorded sample gets the result from its mover's side, and keeps its search's
        // root value (from the mover's side too).
        for (i, s) in game.samples.iter().enumerate() {
            let expected = if s.black_to_move { 1 } else { -1 };
            assert_eq!(s.result, expected, "sample {i}");
            let loss = white_hopeless(usize::from(s.black_to_move), 0);
            assert_eq!(s.search_wdl, Some([0.0, 1.0 - loss, loss]), "sample {i}");
        }

        // A hopeful search in between resets the streak: nobody resigns.
        let mut policy = SelfPlayPolicy::new(&play, 1, 0, &Position::start());
        let alternating = |mover, k: usize| {
            if mover == WHITE && k.is_multiple_of(2) {
                0.95
            } else {
                0.1
            }
        };
        let (_, stopped) = drive(&mut policy, 20, alternating);
        assert!(!stopped);
    }

    #[test]
    fn games_that_may_not_resign_measure_false_resignations() {
        let play = SelfPlaySection {
            no_resign_fraction: 1.0,
            ..section()
        };
        for (winner, false_resignation) in [(WHITE, true), (1, false)] {
            let mut policy = SelfPlayPolicy::new(&play, 1, 0, &Position::start());
            assert!(!policy.may_resign());
            let (state, stopped) = drive(&mut policy, 20, white_hopeless);
            assert!(!stopped, "a game that may not resign plays on");
            let game = finish_with_winner(policy, &state, winner);
            assert_eq!(
                game.summary.false_resignation,
                Some(false_resignation),
                "White would have resigned; winner {winner}"
            );
        }
        // No hopeless streak: nothing to measure.
        let mut policy = SelfPlayPolicy::new(&play, 1, 0, &Position::start());
        let (state, _) = drive(&mut policy, 20, |_, _| 0.5);
        let game = finish_with_winner(policy, &state, 1);
        assert_eq!(game.summary.false_resignation, None);
    }

    /// Finishes the game as if `winner` had just captured every stone of the other side.
    fn finish_with_winner(
        policy: SelfPlayPolicy<'_>,
        state: &FanoronaState,
        winner: usize,
    ) -> FinishedGame {
        let text = if winner == WHITE {
            "9/9/9/9/W8 b"
        } else {
            "9/9/9/9/B8 w"
        };
        let over = FanoronaState::from_position(text.parse().unwrap(), Rules::default());
        assert!(over.terminal().is_some() && state.terminal().is_none());
        let game = policy.finish(&over, over.terminal());
        assert_eq!(game.summary.end, GameEnd::AllCaptured);
        assert_eq!(game.summary.winner, Some(winner as u8));
        game
    }

    #[test]
    fn playout_cap_randomisation_records_only_full_searches() {
        let play = SelfPlaySection {
            full_search_fraction: 0.25,
            cheap_simulations: 5,
            resign_threshold: 1.0,
            ..SelfPlaySection::default()
        };
        let mut policy = SelfPlayPolicy::new(&play, 9, 3, &Position::start());
        let state = FanoronaState::new(Game::new(Rules::default()));
        let (mut full, n) = (0, 4000);
        for _ in 0..n {
            let before = policy.samples.len();
            let sims = policy.simulations(&state, 64);
            assert!(sims == 64 || sims == 5, "{sims}");
            policy.decide(&state, &result(&state, 0.0));
            let recorded = policy.samples.len() - before;
            assert_eq!(
                recorded,
                usize::from(sims == 64),
                "only full searches are samples"
            );
            full += recorded;
        }
        let share = full as f64 / n as f64;
        assert!((0.22..0.28).contains(&share), "full-search share {share}");
    }

    #[test]
    fn opening_turns_are_drawn_from_the_priors_and_not_recorded() {
        let play = SelfPlaySection {
            opening_prior_turns: 2,
            resign_threshold: 1.0,
            ..section()
        };
        let mut policy = SelfPlayPolicy::new(&play, 4, 0, &Position::start());
        let mut state = FanoronaState::new(Game::new(Rules::default()));
        let mut recorded_in_opening = 0;
        let mut searches_after = 0;
        for _ in 0..40 {
            let turns_before = policy.turns;
            let sims = policy.simulations(&state, 32);
            let before = policy.samples.len();
            let Verdict::Play(action) = policy.decide(&state, &result(&state, 0.0)) else {
                panic!("nobody resigns");
            };
            let recorded = policy.samples.len() - before;
            if turns_before < 2 {
                assert_eq!(
                    sims, play.cheap_simulations,
                    "a cheap search in the opening"
                );
                recorded_in_opening += recorded;
            } else {
                assert_eq!((sims, recorded), (32, 1), "every later search is full");
                searches_after += 1;
            }
            state.apply(action);
            policy.played(action, &state);
            if state.terminal().is_some() {
                break;
            }
        }
        assert_eq!(recorded_in_opening, 0);
        assert!(searches_after > 10);
    }

    #[test]
    fn prior_sampling_follows_the_priors() {
        let state = FanoronaState::new(Game::new(Rules::default()));
        let mut r = result(&state, 0.0);
        let n = r.actions.len();
        assert!(n >= 3, "{n} opening actions");
        // Most of the mass on the second action, none on the last; the search chose the first.
        r.priors = (0..n)
            .map(|i| match i {
                1 => 0.7,
                _ if i == n - 1 => 0.0,
                _ => 0.3 / (n - 2) as f32,
            })
            .collect();
        let mut rng = StdRng::seed_from_u64(1);
        let mut counts = vec![0u32; n];
        let draws = 20_000;
        for _ in 0..draws {
            let a = sample_prior(&r, &mut rng);
            counts[r.actions.iter().position(|&b| b == a).unwrap()] += 1;
        }
        let share = f64::from(counts[1]) / f64::from(draws);
        assert!((0.68..0.72).contains(&share), "{counts:?}");
        assert_eq!(counts[n - 1], 0, "an action without prior is never drawn");
        assert!(counts[0] > 0);
        // Priors that say nothing: the search's choice.
        r.priors = vec![0.0; n];
        assert_eq!(sample_prior(&r, &mut rng), r.chosen);
        r.priors = vec![f32::NAN; n];
        assert_eq!(sample_prior(&r, &mut rng), r.chosen);
    }

    /// Every position looks lost to the side to move.
    struct Hopeless;
    impl Evaluator<FanoronaState> for Hopeless {
        fn evaluate(
            &self,
            batch: &[EvalRequest<'_, FanoronaState>],
            out: &mut Vec<Evaluation>,
        ) -> Result<(), EvalError> {
            out.extend(
                batch
                    .iter()
                    .map(|r| Evaluation::uniform(r.legal.len(), [0.0, 0.0, 1.0])),
            );
            Ok(())
        }
    }

    #[test]
    fn whole_games_resign_cap_and_record_through_the_scheduler() {
        let settings = |play| SelfPlaySettings {
            // One simulation: the root's own evaluation is its value.
            search: SearchConfig {
                simulations: 1,
                batch_size: 1,
                ..SearchConfig::default()
            },
            rules: Rules::default(),
            play,
            tables: None,
            play_on_fraction: 0.0,
        };
        let schedule = Schedule {
            games: 6,
            concurrent: 3,
            seed: 5,
            ..Schedule::default()
        };
        let mut games = Vec::new();
        let counters = ScheduleCounters::default();
        let stop = AtomicBool::new(false);
        play(
            &Hopeless,
            &settings(section()),
            &schedule,
            &counters,
            &stop,
            &mut |g| games.push(g),
        )
        .unwrap();
        assert_eq!(games.len(), 6);
        for g in &games {
            // Every root looks lost: White resigns at its second search.
            assert_eq!(g.summary.end, GameEnd::Resigned, "{:?}", g.summary);
            assert!(g.summary.actions <= 4);
        }
        assert!(
            counters
                .network_calls
                .load(std::sync::atomic::Ordering::Relaxed)
                > 0
        );

        let capped = SelfPlaySection {
            resign_threshold: 1.0,
            max_actions: 7,
            ..section()
        };
        let mut games = Vec::new();
        play(
            &Hopeless,
            &settings(capped),
            &schedule,
            &ScheduleCounters::default(),
            &stop,
            &mut |g| games.push(g),
        )
        .unwrap();
        for g in &games {
            assert_eq!((g.summary.end, g.summary.actions), (GameEnd::Capped, 7));
            assert!(
                g.samples.iter().all(|s| s.result == 0),
                "a capped game is a draw"
            );
            assert_eq!(g.samples.len(), 7, "every search was full");
        }
    }
}
