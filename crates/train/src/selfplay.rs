//! Self-play: many games at once, every leaf of every game evaluated in one batch per round.
//!
//! Each game owns a [`Search`]; a round steps every search until it needs evaluations (playing
//! moves whose search finished), then hands all pending leaves of all games to the evaluator in
//! one call (`fanorona_search::driver::evaluate_pending`). With `threads > 1` the games are
//! split between threads that share the evaluator.
//!
//! Playout cap randomisation (KataGo): a share of moves gets a full search and is recorded as a
//! training sample; the other moves get a cheap search and are not recorded. Resignation: a
//! side whose full-search loss probability stays above the threshold resigns, except in a
//! share of games that never resign and instead record whether resigning would have been wrong.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use fanorona_engine::{Action, Game, Outcome as EngineOutcome, Position, Rules, WinReason};
use fanorona_search::driver::{evaluate_pending, game_seed};
use fanorona_search::{Evaluator, FanoronaState, GameState, Search, SearchConfig, Step};
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
}

/// A finished game: its training samples and summary.
#[derive(Clone, Debug)]
pub struct FinishedGame {
    /// The recorded (full-search) positions with their targets and the final result.
    pub samples: Vec<Sample>,
    /// How the game went.
    pub summary: GameSummary,
}

/// Counters shared by the self-play threads, for rates in logs and TensorBoard.
#[derive(Debug, Default)]
pub struct SelfPlayCounters {
    /// Leaf evaluations requested from the network.
    pub evaluations: AtomicU64,
    /// Evaluator calls.
    pub batches: AtomicU64,
    /// Games finished.
    pub games: AtomicU64,
    /// Step-level actions played.
    pub actions: AtomicU64,
}

struct PendingSample {
    player: usize,
    sample: Sample,
}

struct Slot {
    search: Search<FanoronaState>,
    rng: StdRng,
    /// Whether the running search is a full (recorded) one.
    full: bool,
    may_resign: bool,
    resign_streak: [u32; 2],
    would_have_resigned: Option<usize>,
    samples: Vec<PendingSample>,
    turn_start: Position,
    chain_steps: Vec<Action>,
    actions: u32,
    turns: u32,
    finished: Option<(Option<usize>, GameEnd)>,
}

impl Slot {
    fn new(index: u64, settings: &SelfPlaySettings, seed: u64) -> Slot {
        let game_seed = game_seed(seed, index);
        let mut rng = StdRng::seed_from_u64(game_seed ^ 0x5E1F_5E1F);
        let game = Game::new(settings.rules);
        let turn_start = *game.position();
        let search = match Search::new(FanoronaState::new(game), settings.search, game_seed) {
            Ok(s) => s,
            // The settings were validated with the config; an invalid one is a programming error.
            Err(e) => panic!("self-play search settings: {e}"),
        };
        let may_resign = settings.play.resign_threshold < 1.0
            && rng.random::<f32>() >= settings.play.no_resign_fraction;
        let mut slot = Slot {
            search,
            rng,
            full: false,
            may_resign,
            resign_streak: [0; 2],
            would_have_resigned: None,
            samples: Vec::new(),
            turn_start,
            chain_steps: Vec::new(),
            actions: 0,
            turns: 0,
            finished: None,
        };
        slot.start_search(settings);
        slot
    }

    fn start_search(&mut self, settings: &SelfPlaySettings) {
        let full = self.rng.random::<f32>() < settings.play.full_search_fraction;
        if full {
            self.search.start();
        } else {
            self.search.start_with(settings.play.cheap_simulations);
        }
        self.full = full;
    }

    /// Play moves until the search needs evaluations or the game ends.
    fn drive(&mut self, settings: &SelfPlaySettings) {
        while self.finished.is_none() {
            if self.search.step() == Step::NeedsEvaluation {
                return;
            }
            let Some(result) = self.search.result() else {
                self.finish_by_rules();
                return;
            };
            let state = self.search.root_state();
            let mover = state.to_move();
            if self.full {
                let policy: Vec<(u16, f32)> = result
                    .actions
                    .iter()
                    .zip(&result.policy)
                    .filter(|(_, p)| **p > 0.0)
                    .map(|(&a, &p)| (absolute_index(a), p))
                    .collect();
                let sample = Sample::new(
                    &self.turn_start,
                    &self.chain_steps,
                    state.game().repetition_count(),
                    policy,
                    0,
                );
                self.samples.push(PendingSample {
                    player: mover,
                    sample,
                });
                if result.wdl[2] > settings.play.resign_threshold {
                    self.resign_streak[mover] += 1;
                } else {
                    self.resign_streak[mover] = 0;
                }
                if self.resign_streak[mover] >= settings.play.resign_consecutive {
                    if self.may_resign {
                        self.finished = Some((Some(1 - mover), GameEnd::Resigned));
                        return;
                    }
                    self.would_have_resigned.get_or_insert(mover);
                }
            }
            let action = result.chosen;
            self.search.advance(action);
            self.actions += 1;
            let pos = *self.search.root_state().position();
            if pos.is_turn_start() {
                self.turn_start = pos;
                self.chain_steps.clear();
                self.turns += 1;
            } else {
                self.chain_steps.push(action);
            }
            if self.search.root_state().outcome().is_some() {
                self.finish_by_rules();
                return;
            }
            if self.actions >= settings.play.max_actions {
                self.finished = Some((None, GameEnd::Capped));
                return;
            }
            self.start_search(settings);
        }
    }

    fn finish_by_rules(&mut self) {
        let outcome = self.search.root_state().engine_outcome();
        self.finished = Some(match outcome {
            Some(EngineOutcome::Win { winner, reason }) => (
                Some(winner.index()),
                match reason {
                    WinReason::AllCaptured => GameEnd::AllCaptured,
                    WinReason::NoLegalMove => GameEnd::NoLegalMove,
                },
            ),
            Some(EngineOutcome::Draw(fanorona_engine::DrawReason::Repetition)) => {
                (None, GameEnd::Repetition)
            }
            Some(EngineOutcome::Draw(fanorona_engine::DrawReason::NoProgress)) => {
                (None, GameEnd::NoProgress)
            }
            None => (None, GameEnd::Capped),
        });
    }

    fn into_finished(self) -> FinishedGame {
        let (winner, end) = self.finished.unwrap_or((None, GameEnd::Capped));
        let samples = self
            .samples
            .into_iter()
            .map(|p| {
                let mut s = p.sample;
                s.result = match winner {
                    Some(w) if w == p.player => 1,
                    Some(_) => -1,
                    None => 0,
                };
                s
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

/// Play games `first_game .. first_game + games` (indices feed the per-game seeds), keeping
/// `concurrent` of them going at once and evaluating all their leaves in one batch per round.
/// `on_game` receives every finished game. Once `stop` is set the function returns at the next
/// round; games still running are dropped (they were never written, so nothing is lost).
#[allow(clippy::too_many_arguments)]
pub fn play<E: Evaluator<FanoronaState> + ?Sized>(
    evaluator: &E,
    settings: &SelfPlaySettings,
    seed: u64,
    first_game: u64,
    games: u64,
    concurrent: usize,
    counters: &SelfPlayCounters,
    stop: &AtomicBool,
    on_game: &mut dyn FnMut(FinishedGame),
) {
    let mut next = first_game;
    let end = first_game + games;
    let mut slots: Vec<Slot> = Vec::with_capacity(concurrent);
    let mut evaluations = Vec::new();
    loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        while slots.len() < concurrent && next < end {
            slots.push(Slot::new(next, settings, seed));
            next += 1;
        }
        if slots.is_empty() {
            return;
        }
        for slot in &mut slots {
            let before = slot.actions;
            slot.drive(settings);
            counters
                .actions
                .fetch_add(u64::from(slot.actions - before), Ordering::Relaxed);
        }
        let mut i = 0;
        while i < slots.len() {
            if slots[i].finished.is_some() {
                let slot = slots.swap_remove(i);
                counters.games.fetch_add(1, Ordering::Relaxed);
                on_game(slot.into_finished());
            } else {
                i += 1;
            }
        }
        let mut searches: Vec<&mut Search<FanoronaState>> =
            slots.iter_mut().map(|s| &mut s.search).collect();
        let n = evaluate_pending(&mut searches, evaluator, &mut evaluations);
        if n > 0 {
            counters.evaluations.fetch_add(n as u64, Ordering::Relaxed);
            counters.batches.fetch_add(1, Ordering::Relaxed);
        }
    }
}
