//! The phases of a generation of an evaluation run (`kind = "eval"`): alpha-beta self-play
//! with the current learned evaluation, training the evaluation on the scored positions, and
//! rating it inside the alpha-beta player.
//!
//! Self-play is the same loop's first phase for the other model kind: the games not yet on
//! disk are played (several at once, one per core) and written as shards of the run, now with
//! scored positions ([`Scored`]) instead of policy samples. Generation 0 plays with random
//! weights: the hand-written evaluation is never consulted.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use fanorona_arena::arena::{FactoryError, MatchConfig, play_match};
use fanorona_engine::{Color, Game, Outcome, Position};
use fanorona_eval::EvalNet;
use fanorona_mcts::derive_seed;
use fanorona_net::{EvalTrainer, player_registry};
use fanorona_players::{
    AlphaBetaConfig, AlphaBetaPlayer, Evaluation, Player, Score, random_opening,
};
use fanorona_tablebase::{Tablebase, Wdl};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::metrics::Progress;
use crate::rating::{Rating, RatingError, record_ratings};
use crate::replay::{GameEnd, GameSummary, ReplayBuffer, Scored, SearchScore, Shard};
use crate::run::{Run, RunState, TrainError, TrainingPhase};
use crate::selfplay_phase::{SelfPlayReport, worker_seed};
use crate::training_phase::{batch_rng, start_phase};

/// Games per shard file.
const SHARD_GAMES: u64 = 16;
/// Turns after which a self-play game is stopped as a draw (the no-progress rule ends every
/// game long before, unless it is switched off).
const MAX_TURNS: u32 = 1000;

/// One finished game: its scored positions and summary.
struct Played {
    scored: Vec<Scored>,
    summary: GameSummary,
}

fn result_for(outcome_winner: Option<Color>, mover: Color) -> i8 {
    match outcome_winner {
        None => 0,
        Some(w) if w == mover => 1,
        Some(_) => -1,
    }
}

fn wdl_value(w: Wdl) -> i8 {
    match w {
        Wdl::Win => 1,
        Wdl::Draw => 0,
        Wdl::Loss => -1,
    }
}

/// A self-play player: alpha-beta `e.depth` turns deep with `eval` and the tables.
fn self_play_player(
    e: &crate::config::EvalSection,
    eval: &Evaluation,
    tables: Option<&Arc<Tablebase>>,
    seed: u64,
) -> AlphaBetaPlayer {
    AlphaBetaPlayer::new(AlphaBetaConfig {
        depth: Some(e.depth),
        millis: None,
        quiescence: e.quiescence,
        tt_mebibytes: 4,
        seed,
    })
    .with_evaluation(eval.clone())
    .with_tables(tables.cloned())
}

/// The search's score as recorded (an evaluation or a forced result), if it gave one.
fn search_score(score: Option<Score>) -> Option<SearchScore> {
    match score {
        Some(Score::Centistones(cs)) => Some(SearchScore::Centistones(cs)),
        Some(Score::WinIn(_)) => Some(SearchScore::Win),
        Some(Score::LossIn(_)) => Some(SearchScore::Loss),
        _ => None,
    }
}

/// The recorded positions of a game that `winner` won (or drew), as scored positions.
fn scored_positions(
    recorded: Vec<(Position, Color, SearchScore, Option<i8>)>,
    winner: Option<Color>,
) -> Vec<Scored> {
    recorded
        .into_iter()
        .map(|(pos, mover, score, exact)| Scored {
            white: pos.stones(Color::White).0,
            black: pos.stones(Color::Black).0,
            black_to_move: mover == Color::Black,
            score,
            result: result_for(winner, mover),
            exact,
        })
        .collect()
}

/// Plays one self-play game with `eval` at the run's settings, seeded by `seed`.
fn play_game(run: &Run, eval: &Evaluation, tables: Option<&Arc<Tablebase>>, seed: u64) -> Played {
    let e = &run.config.eval;
    let rules = run.rules();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::new(rules);
    let mut actions = 0u32;
    for turn in random_opening(seed, e.random_opening_turns, rules) {
        actions += turn.steps().len() as u32;
        if game.play_turn(&turn).is_err() {
            break;
        }
    }
    let player = |side: u64| self_play_player(e, eval, tables, derive_seed(seed, side));
    let mut players = [player(0), player(1)];
    // (position, its mover, the search's score)
    let mut recorded: Vec<(Position, Color, SearchScore, Option<i8>)> = Vec::new();
    let mut adjudicated: Option<Option<Color>> = None;
    let mut turns = 0;
    while game.outcome().is_none() && turns < MAX_TURNS {
        let pos = *game.position();
        let mover = pos.side_to_move();
        if let Some(t) = tables.filter(|t| t.fits(rules))
            && let Some(probe) = fanorona_players::tables::exact(Some(t), &pos, true)
        {
            // The tables know the result (waiting for their distances, so that the game does
            // not depend on timing): the game ends here with it.
            let exact = wdl_value(probe.wdl);
            recorded.push((pos, mover, SearchScore::Centistones(0), Some(exact)));
            adjudicated = Some(match probe.wdl {
                Wdl::Win => Some(mover),
                Wdl::Loss => Some(!mover),
                Wdl::Draw => None,
            });
            break;
        }
        let turn = if rng.random::<f32>() < e.random_turn_share {
            let legal = pos.legal_turns();
            legal[rng.random_range(0..legal.len())]
        } else {
            let slot = usize::from(mover == Color::Black);
            match players[slot].choose(&game, None) {
                Ok(choice) => {
                    let score = search_score(choice.info.score);
                    let quiet = !e.quiet_only || !pos.has_capture();
                    if let (Some(score), true) = (score, quiet) {
                        recorded.push((pos, mover, score, None));
                    }
                    choice.turn
                }
                Err(_) => break,
            }
        };
        actions += turn.steps().len() as u32;
        if game.play_turn(&turn).is_err() {
            break;
        }
        turns += 1;
    }
    let outcome: Option<Outcome> = game.outcome();
    let winner = match adjudicated {
        Some(w) => w,
        None => outcome.and_then(|o| o.winner()),
    };
    let end = match (adjudicated, outcome) {
        (Some(_), _) => GameEnd::Tablebase,
        (None, Some(o)) => GameEnd::from(o),
        (None, None) => GameEnd::Capped,
    };
    Played {
        scored: scored_positions(recorded, winner),
        summary: GameSummary {
            turns: turns + e.random_opening_turns,
            actions,
            end,
            winner: winner.map(|w| w.index() as u8),
            false_resignation: None,
        },
    }
}

/// Plays the rest of `generation`'s games (those not yet on disk) as `worker` with `eval`
/// (trained for `steps` optimiser steps), writing shards as they finish.
pub fn eval_selfplay_generation(
    run: &mut Run,
    generation: u64,
    eval: &Evaluation,
    steps: u64,
    worker: &str,
) -> Result<SelfPlayReport, TrainError> {
    let wanted = run.config.selfplay.games_per_generation as u64;
    let (next_shard, done) = run.dir.shards_written(generation, worker)?;
    let mut report = SelfPlayReport::default();
    if done >= wanted {
        return Ok(report);
    }
    let label = format!("gen {generation} self-play");
    run.progress.phase(&label, wanted);
    let started = Instant::now();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let seed = derive_seed(
        worker_seed(run.config.seed ^ 0xE7A1_5E1F, worker),
        generation,
    );
    let tables = run.tables.as_ref().map(|t| Arc::clone(t.tables()));
    let next_game = AtomicU64::new(done);
    let mut writer = Writer {
        next_shard,
        pending: Vec::new(),
    };
    let mut progress = std::mem::replace(&mut run.progress, Progress::new(false));
    let run_ref: &Run = run;
    let mut error = None;
    std::thread::scope(|scope| {
        let (sender, receiver) = std::sync::mpsc::channel::<Played>();
        let player_thread = || {
            let sender = sender.clone();
            let next_game = &next_game;
            let tables = tables.as_ref();
            move || {
                while !run_ref.stopped() {
                    let index = next_game.fetch_add(1, Ordering::Relaxed);
                    if index >= wanted {
                        return;
                    }
                    let played = play_game(run_ref, eval, tables, derive_seed(seed, index));
                    if sender.send(played).is_err() {
                        return;
                    }
                }
            }
        };
        // As many threads as the system gives; with none, this thread plays the games first.
        if fanorona_data::workers::spawn_workers(scope, threads, player_thread) == 0 {
            player_thread()();
        }
        drop(sender);
        // This thread writes the shards as games finish (also those that finish after a
        // stop), until every player thread is done.
        for played in receiver {
            report.games += 1;
            report.samples += played.scored.len() as u64;
            report.actions += u64::from(played.summary.actions);
            if played.summary.end == GameEnd::Tablebase {
                report.adjudicated += 1;
            }
            writer.pending.push(played);
            let total = (done + report.games).min(wanted);
            progress.update(&label, total, wanted, "");
            if writer.pending.len() as u64 >= SHARD_GAMES
                && error.is_none()
                && let Err(e) = writer.flush(run_ref, generation, worker, steps)
            {
                error = Some(e);
            }
        }
    });
    run.progress = progress;
    if let Some(e) = error {
        return Err(e);
    }
    writer.flush(run, generation, worker, steps)?;
    report.seconds = started.elapsed().as_secs_f64();
    record(run, generation, &report, steps);
    Ok(report)
}

struct Writer {
    next_shard: u64,
    pending: Vec<Played>,
}

impl Writer {
    fn flush(
        &mut self,
        run: &Run,
        generation: u64,
        worker: &str,
        steps: u64,
    ) -> Result<(), TrainError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let shard = Shard {
            samples: Vec::new(),
            games: self.pending.iter().map(|p| p.summary.clone()).collect(),
            network_steps: steps,
            scored: self
                .pending
                .iter()
                .flat_map(|p| p.scored.iter().copied())
                .collect(),
        };
        let used = run
            .dir
            .write_shard(generation, worker, self.next_shard, &shard)?;
        self.next_shard = used + 1;
        self.pending.clear();
        Ok(())
    }
}

fn record(run: &mut Run, generation: u64, report: &SelfPlayReport, steps: u64) {
    let secs = report.seconds.max(1e-9);
    let line = format!(
        "gen {generation} self-play: {} games, {} scored positions in {:.0} s ({:.2} games/s){}",
        report.games,
        report.samples,
        report.seconds,
        report.games as f64 / secs,
        if report.adjudicated > 0 {
            format!("; {} games ended by the tables", report.adjudicated)
        } else {
            String::new()
        }
    );
    run.progress.line(&line);
    let _ = run.log(&line);
    run.metrics.scalar(
        "selfplay/games_per_second",
        report.games as f64 / secs,
        steps,
    );
    run.metrics.scalar(
        "selfplay/positions_per_game",
        report.samples as f64 / report.games.max(1) as f64,
        steps,
    );
}

/// Trains the evaluation until the phase's target steps (or a stop), checkpointing on the way.
pub fn eval_train_phase(
    run: &mut Run,
    trainer: &mut EvalTrainer,
    state: &RunState,
    phase: TrainingPhase,
    replay: &ReplayBuffer,
) -> Result<(), TrainError> {
    let Some((end, window, label)) = start_phase(run, trainer.steps(), state, phase, replay) else {
        return Ok(());
    };
    let (mut sum, mut count) = (0.0f64, 0u32);
    let started = Instant::now();
    let first = trainer.steps();
    while trainer.steps() < end && !run.stopped() {
        let step = trainer.steps();
        let t = &run.config.training;
        let e = &run.config.eval;
        let batch = replay.sample_eval_batch(
            &mut batch_rng(run.config.seed, step),
            window,
            t.batch_size,
            t.symmetry_augmentation,
            e.lambda,
            e.score_scale,
        );
        if batch.is_empty() {
            break;
        }
        let loss = trainer.train_step(&batch, t.learning_rate_at(step))?;
        sum += f64::from(loss);
        count += 1;
        let now = trainer.steps();
        if now.is_multiple_of(10) || now == end {
            let mean = sum / f64::from(count.max(1));
            let rate = (now - first) as f64 * t.batch_size as f64
                / started.elapsed().as_secs_f64().max(1e-9);
            run.metrics.scalar("train/eval_loss", mean, now);
            run.metrics
                .scalar("train/learning_rate", t.learning_rate_at(step), now);
            run.metrics
                .scalar("train/window_samples", window as f64, now);
            run.metrics.scalar("train/samples_per_second", rate, now);
            run.progress.update(
                &label,
                now - phase.start_steps,
                phase.target_steps,
                &format!("loss {mean:.4}, {rate:.0} positions/s"),
            );
            (sum, count) = (0.0, 0);
        }
        if now.is_multiple_of(run.config.checkpoints.every_steps) && now < end {
            run.save_eval(trainer, state)?;
        }
    }
    Ok(())
}

/// The spec of the alpha-beta player with the evaluation in `checkpoint` at the run's depth.
pub fn eval_player_spec(run: &Run, checkpoint: &std::path::Path) -> String {
    format!(
        "alphabeta:depth={},eval={}",
        run.config.eval.depth,
        checkpoint.display()
    )
}

/// Rates the evaluation in the newest checkpoint (`checkpoint`, after `steps` steps) inside
/// the alpha-beta player against the baselines and the previous rated checkpoint; records the
/// ratings on the run's scale and updates `state`.
pub fn rate_eval_checkpoint(
    run: &mut Run,
    checkpoint: &std::path::Path,
    steps: u64,
    state: &mut RunState,
) -> Result<(), TrainError> {
    let e = run.config.evaluation.clone();
    let registry = player_registry(run.backend).with_tables(
        run.tables
            .as_ref()
            .map(|t| Arc::clone(t.tables()))
            .filter(|t| t.fits(run.rules())),
    );
    let config = MatchConfig {
        games: e.games,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        seed: derive_seed(run.config.seed ^ 0xE7A1, steps),
        opening_plies: e.opening_plies,
        rules: run.rules(),
        ..MatchConfig::default()
    };
    let me = registry
        .parse(&eval_player_spec(run, checkpoint))
        .map_err(|err| TrainError::State(format!("the rated evaluation: {err}")))?;
    let mut opponents: Vec<(String, String)> =
        e.baselines.iter().map(|b| (b.clone(), b.clone())).collect();
    if e.against_previous
        && let Some(prev) = state.last_rated.filter(|&p| p != steps)
    {
        let path = run
            .dir
            .fetch_checkpoint(&run.dir.checkpoint_path(prev))?
            .unwrap_or_else(|| run.dir.checkpoint_path(prev));
        opponents.push((format!("ckpt-{prev:09}"), eval_player_spec(run, &path)));
    }
    let total = opponents.len() as u64;
    let label = format!("gen {} rating", state.generation);
    run.progress.phase(&label, total);
    let mut ratings = Vec::new();
    for (i, (name, text)) in opponents.iter().enumerate() {
        let rated = registry
            .parse(text)
            .map_err(|err| RatingError::Baseline(text.clone(), err))
            .and_then(|them| {
                let make = |s: &fanorona_specs::Settings| {
                    let (s, registry) = (s.clone(), registry.clone());
                    move |stream: u64| -> Result<Box<dyn Player>, FactoryError> {
                        Ok(registry.build(&s, stream)?)
                    }
                };
                let result = play_match(&config, &make(&me), &make(&them), |_, _| {})?;
                Ok(Rating::from_result(name, &result))
            });
        match rated {
            Ok(r) => ratings.push(r),
            Err(err) => run.say(&format!("warning: rating against {name} failed: {err}"))?,
        }
        run.progress.update(&label, i as u64 + 1, total, name);
    }
    record_ratings(run, steps, state, &ratings)?;
    state.rated.push(steps);
    state.last_rated = Some(steps);
    Ok(())
}

/// The learned evaluation of an [`EvalTrainer`], ready for the search.
pub fn evaluation_of(trainer: &EvalTrainer) -> Result<Evaluation, TrainError> {
    let net = EvalNet::new(trainer.weights())
        .map_err(|e| TrainError::State(format!("the evaluation cannot run: {e}")))?;
    Ok(Evaluation::Learned(Arc::new(net)))
}
