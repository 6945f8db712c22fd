//! The self-play phase of a generation: play the generation's games not yet on disk with the
//! current network, on one or several threads, writing shards every few games, and report the
//! rates (log line, TensorBoard).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fanorona_mcts::derive_seed;
use fanorona_mcts::scheduler::{Schedule, ScheduleCounters};
use fanorona_net::{InferenceModel, InferenceService, NetEvaluator};

use crate::config::TrainConfig;
use crate::metrics::Metrics;
use crate::replay::{GameEnd, GameSummary, Shard};
use crate::run::{Run, TrainError};
use crate::rundir::RunDir;
use crate::selfplay::{FinishedGame, SelfPlaySettings, play};

/// Rates of one self-play phase.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SelfPlayReport {
    /// Games finished.
    pub games: u64,
    /// Samples recorded.
    pub samples: u64,
    /// Step-level actions played.
    pub actions: u64,
    /// Network evaluations.
    pub evaluations: u64,
    /// Network calls.
    pub network_calls: u64,
    /// Games ended by the endgame tables.
    pub adjudicated: u64,
    /// Positions inside the searches that the tables decided (evaluations saved).
    pub table_hits: u64,
    /// Wall time.
    pub seconds: f64,
}

impl SelfPlayReport {
    /// The one-line summary of an alpha-beta phase (the expert's games or an evaluation run's
    /// self-play): `gen G <what>: N games, M <items> in S s (R games/s)`, and the games the
    /// tables ended.
    pub fn games_line(&self, generation: u64, what: &str, items: &str) -> String {
        let secs = self.seconds.max(1e-9);
        let mut line = format!(
            "gen {generation} {what}: {} games, {} {items} in {:.0} s ({:.2} games/s)",
            self.games,
            self.samples,
            self.seconds,
            self.games as f64 / secs,
        );
        if self.adjudicated > 0 {
            line.push_str(&format!("; {} games ended by the tables", self.adjudicated));
        }
        line
    }

    /// The one-line summary of the phase.
    pub fn line(&self, generation: u64) -> String {
        let secs = self.seconds.max(1e-9);
        let mut line = format!(
            "gen {generation} self-play: {} games, {} samples in {:.0} s ({:.2} games/s, {:.0} evals/s, {:.1} positions per network call)",
            self.games,
            self.samples,
            self.seconds,
            self.games as f64 / secs,
            self.evaluations as f64 / secs,
            self.evaluations as f64 / self.network_calls.max(1) as f64
        );
        if self.adjudicated > 0 || self.table_hits > 0 {
            line.push_str(&format!(
                "; tables: {} games adjudicated, {} positions decided ({:.1}% of evaluations saved)",
                self.adjudicated,
                self.table_hits,
                100.0 * self.table_hits as f64
                    / (self.table_hits + self.evaluations).max(1) as f64
            ));
        }
        line
    }
}

/// The self-play seed of `worker`: different workers on one run play different games.
pub fn worker_seed(seed: u64, worker: &str) -> u64 {
    let hash = worker
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    derive_seed(seed, hash)
}

/// Plays games `first..wanted` with `play(index)`, one game per core at a time, handing each
/// finished game to `on_played` on the calling thread as it comes (also those that finish
/// after a stop). Returns when every game is played, or once `stop` is set and the games under
/// way are done. With no thread to be had, the calling thread plays them first.
pub fn play_on_cores<T: Send>(
    first: u64,
    wanted: u64,
    stop: &AtomicBool,
    play: impl Fn(u64) -> T + Sync,
    mut on_played: impl FnMut(T),
) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next_game = std::sync::atomic::AtomicU64::new(first);
    std::thread::scope(|scope| {
        let (sender, receiver) = std::sync::mpsc::channel::<T>();
        let player_thread = || {
            let sender = sender.clone();
            let (next_game, play) = (&next_game, &play);
            move || {
                while !stop.load(Ordering::Relaxed) {
                    let index = next_game.fetch_add(1, Ordering::Relaxed);
                    if index >= wanted || sender.send(play(index)).is_err() {
                        return;
                    }
                }
            }
        };
        if fanorona_data::workers::spawn_workers(scope, threads, player_thread) == 0 {
            player_thread()();
        }
        drop(sender);
        for played in receiver {
            on_played(played);
        }
    });
}

/// Games per shard file: a few per concurrent batch of games, so a killed worker loses little.
fn shard_games(concurrent: usize) -> u64 {
    (concurrent as u64 / 4).clamp(4, 64)
}

/// Collects finished games and writes them as shards of `generation` by `worker`.
struct ShardWriter<'a> {
    dir: &'a RunDir,
    network_steps: u64,
    generation: u64,
    worker: &'a str,
    next_shard: u64,
    every: u64,
    pending: Vec<FinishedGame>,
    report: SelfPlayReport,
    error: Option<TrainError>,
}

impl ShardWriter<'_> {
    fn add(&mut self, game: FinishedGame) {
        self.report.games += 1;
        self.report.samples += game.samples.len() as u64;
        self.report.actions += u64::from(game.summary.actions);
        if game.summary.end == GameEnd::Tablebase {
            self.report.adjudicated += 1;
        }
        self.pending.push(game);
        if self.pending.len() as u64 >= self.every
            && self.error.is_none()
            && let Err(e) = self.flush()
        {
            self.error = Some(e);
        }
    }

    fn flush(&mut self) -> Result<(), TrainError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let shard = Shard {
            samples: self
                .pending
                .iter()
                .flat_map(|g| g.samples.iter().cloned())
                .collect(),
            games: self.pending.iter().map(|g| g.summary.clone()).collect(),
            network_steps: self.network_steps,
            scored: Vec::new(),
        };
        let used = self
            .dir
            .write_shard(self.generation, self.worker, self.next_shard, &shard)?;
        self.next_shard = used + 1;
        self.pending.clear();
        Ok(())
    }
}

/// The network a self-play phase plays with.
#[derive(Clone, Debug)]
pub struct SelfPlayNet {
    /// The model.
    pub model: InferenceModel,
    /// The optimiser steps it was trained for (recorded in every shard).
    pub steps: u64,
}

/// Plays the rest of `generation`'s games (those not yet on disk) as `worker` with `net`,
/// writing shards. Returns what this call played.
pub fn selfplay_generation(
    run: &mut Run,
    generation: u64,
    net: &SelfPlayNet,
    worker: &str,
) -> Result<SelfPlayReport, TrainError> {
    let config = &run.config;
    let per_generation = config.selfplay.games_per_generation as u64;
    let (shards, done) = run.dir.shards_written(generation, worker)?;
    let remaining = per_generation.saturating_sub(done);
    if remaining == 0 {
        return Ok(SelfPlayReport::default());
    }
    let schedule = Schedule {
        games: remaining,
        first_game: generation * per_generation + done,
        concurrent: config.selfplay.concurrent_games,
        seed: worker_seed(config.seed, worker),
    };
    let settings = SelfPlaySettings {
        search: config.search,
        rules: run.rules(),
        play: config.selfplay.clone(),
        tables: run.tables.clone(),
        play_on_fraction: config.tablebase.play_on_fraction,
    };
    let hits_before = run.tables.as_ref().map_or(0, |t| t.hits());
    let threads = config.selfplay.threads;
    let every = shard_games(schedule.concurrent);
    let phase = format!("gen {generation} self-play");
    run.progress.phase(&phase, remaining);
    let counters = ScheduleCounters::default();
    let started = Instant::now();
    let (dir, stop) = (run.dir.clone(), Arc::clone(&run.stop));
    let mut writer = ShardWriter {
        dir: &dir,
        network_steps: net.steps,
        generation,
        worker,
        next_shard: shards,
        every,
        pending: Vec::new(),
        report: SelfPlayReport::default(),
        error: None,
    };
    let progress = &mut run.progress;
    let mut on_game = |game: FinishedGame| {
        writer.add(game);
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        let evals = counters.evaluations.load(Ordering::Relaxed) as f64;
        let done = writer.report.games;
        let rates = format!(
            "{:.2} games/s, {:.0} evals/s",
            done as f64 / secs,
            evals / secs
        );
        progress.update(&phase, done, remaining, &rates);
    };
    let played = play_on_threads(
        &net.model,
        &settings,
        &schedule,
        threads,
        &stop,
        &counters,
        &mut on_game,
    );
    if let Some(e) = writer.error.take() {
        return Err(e);
    }
    played?;
    writer.flush()?;
    let mut report = writer.report;
    report.seconds = started.elapsed().as_secs_f64();
    report.evaluations = counters.evaluations.load(Ordering::Relaxed);
    report.network_calls = counters.network_calls.load(Ordering::Relaxed);
    report.table_hits = run.tables.as_ref().map_or(0, |t| t.hits()) - hits_before;
    if report.games > 0 {
        run.progress.line(&report.line(generation));
    }
    Ok(report)
}

/// Plays `schedule` with `threads` search threads: one thread evaluates directly; several
/// share one inference service that merges their batches.
fn play_on_threads(
    model: &InferenceModel,
    settings: &SelfPlaySettings,
    schedule: &Schedule,
    threads: usize,
    stop: &AtomicBool,
    counters: &ScheduleCounters,
    on_game: &mut dyn FnMut(FinishedGame),
) -> Result<(), TrainError> {
    if threads <= 1 {
        let evaluator = NetEvaluator::new(model.clone());
        return Ok(play(
            &evaluator, settings, schedule, counters, stop, on_game,
        )?);
    }
    let service = InferenceService::start(
        model.clone(),
        schedule.concurrent * settings.search.batch_size as usize,
        Duration::from_millis(2),
    );
    let (sender, receiver) = std::sync::mpsc::channel::<FinishedGame>();
    std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(threads);
        for part in split_schedule(schedule, threads) {
            let evaluator = service.evaluator();
            let sender = sender.clone();
            let spawned = std::thread::Builder::new()
                .name("selfplay".into())
                .spawn_scoped(scope, move || {
                    let mut send = |g: FinishedGame| {
                        let _ = sender.send(g);
                    };
                    play(&evaluator, settings, &part, counters, stop, &mut send)
                })
                .map_err(|e| TrainError::Thread(e.to_string()))?;
            handles.push(spawned);
        }
        drop(sender);
        for game in receiver {
            on_game(game);
        }
        for handle in handles {
            handle
                .join()
                .map_err(|_| TrainError::Thread("a self-play thread panicked".into()))??;
        }
        Ok(())
    })
}

/// Splits a schedule into `parts` consecutive ranges of games, as even as can be, each with its
/// share of the concurrent games.
pub fn split_schedule(schedule: &Schedule, parts: usize) -> Vec<Schedule> {
    let parts = parts.max(1) as u64;
    let mut first = schedule.first_game;
    (0..parts)
        .map(|t| {
            let games = schedule.games / parts + u64::from(t < schedule.games % parts);
            let part = Schedule {
                games,
                first_game: first,
                concurrent: (schedule.concurrent / parts as usize).max(1),
                seed: schedule.seed,
            };
            first += games;
            part
        })
        .collect()
}

/// Writes the self-play scalars of a generation: rates from `report`, and game lengths, draw
/// rate, end reasons and the false-resignation rate from the ingested `games`.
pub fn record_selfplay(
    metrics: &mut Metrics,
    games: &[GameSummary],
    report: &SelfPlayReport,
    step: u64,
) {
    if report.seconds > 0.0 {
        let per_second = |x: u64| x as f64 / report.seconds;
        metrics.scalar("selfplay/games_per_second", per_second(report.games), step);
        metrics.scalar(
            "selfplay/samples_per_second",
            per_second(report.samples),
            step,
        );
        let evals = per_second(report.evaluations);
        metrics.scalar("selfplay/evaluations_per_second", evals, step);
        let per_call = report.evaluations as f64 / report.network_calls.max(1) as f64;
        metrics.scalar("selfplay/positions_per_network_call", per_call, step);
    }
    if report.games > 0 {
        let per_game = report.table_hits as f64 / report.games as f64;
        metrics.scalar("selfplay/tablebase_positions_per_game", per_game, step);
        let saved =
            report.table_hits as f64 / (report.table_hits + report.evaluations).max(1) as f64;
        metrics.scalar("selfplay/tablebase_evaluations_saved", saved, step);
    }
    if games.is_empty() {
        return;
    }
    let n = games.len() as f64;
    let turns = games.iter().map(|g| f64::from(g.turns)).sum::<f64>() / n;
    metrics.scalar("selfplay/average_game_turns", turns, step);
    let draws = games.iter().filter(|g| g.winner.is_none()).count() as f64 / n;
    metrics.scalar("selfplay/draw_rate", draws, step);
    for end in GameEnd::ALL {
        let share = games.iter().filter(|g| g.end == end).count() as f64 / n;
        metrics.scalar(&format!("selfplay/end_{}", end.tag()), share, step);
    }
    let checked: Vec<bool> = games.iter().filter_map(|g| g.false_resignation).collect();
    if !checked.is_empty() {
        let rate = checked.iter().filter(|&&f| f).count() as f64 / checked.len() as f64;
        metrics.scalar("selfplay/false_resignation_rate", rate, step);
    }
}

/// Optimiser steps for a generation that brought `new_samples` samples to a window of `total`.
pub fn training_steps(config: &TrainConfig, total: usize, new_samples: usize) -> u64 {
    if total < config.replay.window_min {
        return 0;
    }
    if config.training.steps_per_generation > 0 {
        return config.training.steps_per_generation;
    }
    let samples = new_samples as f64 * config.replay.sample_reuse;
    (samples / config.training.batch_size as f64).ceil() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_schedules_cover_every_game_once_in_order() {
        let schedule = Schedule {
            games: 11,
            first_game: 100,
            concurrent: 8,
            seed: 4,
        };
        let parts = split_schedule(&schedule, 3);
        assert_eq!(
            parts
                .iter()
                .map(|p| (p.first_game, p.games))
                .collect::<Vec<_>>(),
            [(100, 4), (104, 4), (108, 3)]
        );
        assert!(parts.iter().all(|p| p.concurrent == 2 && p.seed == 4));
        assert_eq!(split_schedule(&schedule, 1), [schedule]);
    }

    #[test]
    fn workers_play_different_games_and_the_same_worker_the_same() {
        assert_eq!(worker_seed(1, "main"), worker_seed(1, "main"));
        assert_ne!(worker_seed(1, "main"), worker_seed(1, "box-2"));
        assert_ne!(worker_seed(1, "main"), worker_seed(2, "main"));
    }

    #[test]
    fn training_steps_follow_the_reuse_or_the_fixed_count() {
        let mut config = TrainConfig::parse("name = \"t\"", "test").unwrap();
        config.replay.window_min = 100;
        config.replay.sample_reuse = 4.0;
        config.training.batch_size = 64;
        assert_eq!(training_steps(&config, 99, 99), 0, "window not full yet");
        assert_eq!(training_steps(&config, 1000, 100), 7, "ceil(100 * 4 / 64)");
        config.training.steps_per_generation = 9;
        assert_eq!(training_steps(&config, 1000, 100), 9);
    }
}
