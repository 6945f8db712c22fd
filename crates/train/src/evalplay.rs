//! The phases of a generation of an evaluation run (`kind = "eval"`): alpha-beta self-play
//! with the current learned evaluation (or Descent's, with `eval.descent_nodes`), training the
//! evaluation on the scored positions, and rating it inside the alpha-beta player.
//!
//! Self-play is the same loop's first phase for the other model kind: the games not yet on
//! disk are played (several at once, one per core) and written as shards of the run, now with
//! scored positions ([`Scored`]) instead of policy samples. Generation 0 plays with random
//! weights: the hand-written evaluation is never consulted.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use fanorona_arena::arena::{FactoryError, MatchConfig, play_match};
use fanorona_engine::{Color, Game, Outcome, Position, Turn};
use fanorona_eval::EvalNet;
use fanorona_mcts::derive_seed;
use fanorona_net::{EvalTrainer, player_registry};
use fanorona_players::descent::WIN;
use fanorona_players::{
    AlphaBetaConfig, AlphaBetaPlayer, Descent, Evaluation, Player, Score, ScoreBound, SearchedNode,
    random_opening,
};
use fanorona_tablebase::{Tablebase, Wdl};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

use serde::{Deserialize, Serialize};

use crate::config::EvalSection;
use crate::metrics::Progress;
use crate::rating::{Rating, RatingError, record_ratings};
use crate::replay::{GameEnd, GameSummary, Origin, ReplayBuffer, Scored, SearchScore, Shard};
use crate::run::{Run, RunState, TrainError, TrainingPhase};
use crate::selfplay_phase::{SelfPlayReport, play_on_cores, worker_seed};
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

/// A self-play player: alpha-beta `depth` turns deep with `eval` and the tables.
fn self_play_player(
    e: &crate::config::EvalSection,
    depth: u32,
    eval: &Evaluation,
    tables: Option<&Arc<Tablebase>>,
    seed: u64,
) -> AlphaBetaPlayer {
    AlphaBetaPlayer::new(AlphaBetaConfig {
        depth: Some(depth),
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

/// A node's score as recorded: a table's result counts as a forced one (a draw as 0).
fn node_score(score: Score) -> Option<SearchScore> {
    match score {
        Score::Tablebase(fanorona_tablebase::Probe { wdl, .. }) | Score::Proven(wdl) => {
            Some(match wdl {
                Wdl::Win => SearchScore::Win,
                Wdl::Loss => SearchScore::Loss,
                Wdl::Draw => SearchScore::Centistones(0),
            })
        }
        other => search_score(Some(other)),
    }
}

/// A scored position of a game (its result filled in when the game ends).
fn scored(pos: &Position, score: SearchScore, exact: Option<i8>, origin: Origin) -> Scored {
    Scored {
        white: pos.stones(Color::White).0,
        black: pos.stones(Color::Black).0,
        black_to_move: pos.side_to_move() == Color::Black,
        score,
        result: 0,
        exact,
        origin,
    }
}

/// Up to `e.tree_positions` of the search's `nodes` (those searched at least
/// `e.tree_min_depth` deep), drawn at random, as scored positions.
fn sampled_nodes(
    mut nodes: Vec<SearchedNode>,
    e: &EvalSection,
    rng: &mut SmallRng,
) -> impl Iterator<Item = Scored> {
    nodes.retain(|n| n.depth >= e.tree_min_depth && (!e.quiet_only || !n.position.has_capture()));
    let (drawn, _) = nodes.partial_shuffle(rng, e.tree_positions as usize);
    let drawn = drawn.to_vec();
    drawn.into_iter().filter_map(|n| {
        let origin = match n.bound {
            ScoreBound::Exact => Origin::NodeExact,
            ScoreBound::Lower => Origin::NodeAtLeast,
            ScoreBound::Upper => Origin::NodeAtMost,
        };
        Some(scored(&n.position, node_score(n.score)?, None, origin))
    })
}

/// Positions a game's Descent tree may hold before its examples are taken and it starts again
/// (about 60 bytes a position).
const DESCENT_TREE_MAX: usize = 4_000_000;

/// A Descent value as recorded: a resolved win or loss as a forced result.
fn descent_score(value: i32) -> SearchScore {
    match value {
        WIN => SearchScore::Win,
        v if v == -WIN => SearchScore::Loss,
        v => SearchScore::Centistones(v),
    }
}

/// The expanded positions of a game's Descent tree (its values backed up once more), but
/// those played from (`roots`, recorded already), a share `e.descent_keep` drawn at random:
/// each with its value, the exact result where the tree resolved it.
fn descent_examples(
    d: &mut Descent,
    roots: &HashSet<Position>,
    e: &EvalSection,
    rng: &mut SmallRng,
) -> Vec<Scored> {
    d.refresh();
    d.expanded()
        .filter(|n| !roots.contains(&n.position))
        .filter(|n| !e.quiet_only || !n.position.has_capture())
        .filter(|_| e.descent_keep >= 1.0 || rng.random::<f32>() < e.descent_keep)
        .map(|n| {
            let exact = n.resolved.then(|| n.value.signum() as i8);
            scored(
                &n.position,
                descent_score(n.value),
                exact,
                Origin::NodeExact,
            )
        })
        .collect()
}

/// A turn of an alpha-beta game: `player`'s choice in `game`, its search's score recorded
/// (at the end of its principal variation with `pv_leaf`) with the nodes `tree_positions`
/// keeps. `None` where the player found no turn.
fn alpha_beta_turn(
    player: &mut AlphaBetaPlayer,
    game: &Game,
    e: &EvalSection,
    recorded: &mut Vec<Scored>,
    rng: &mut SmallRng,
) -> Option<Turn> {
    let pos = game.position();
    let choice = player.choose(game, None).ok()?;
    let score = search_score(choice.info.score);
    let quiet = !e.quiet_only || !pos.has_capture();
    match (player.take_leaf(), score) {
        (Some((leaf, value)), _) => {
            let score = SearchScore::Centistones(value);
            recorded.push(scored(&leaf, score, None, Origin::Played));
        }
        (None, Some(score)) if quiet => {
            recorded.push(scored(pos, score, None, Origin::Played));
        }
        _ => {}
    }
    recorded.extend(sampled_nodes(player.take_nodes(), e, rng));
    Some(choice.turn)
}

/// A turn of a Descent game from `pos`: the position is recorded with the root's value (and
/// kept in `roots`), and a tree grown past [`DESCENT_TREE_MAX`] gives its examples and starts
/// again. `None` where the position has no turn.
fn descent_turn(
    d: &mut Descent,
    pos: &Position,
    e: &EvalSection,
    (recorded, roots): (&mut Vec<Scored>, &mut HashSet<Position>),
    rng: &mut SmallRng,
) -> Option<Turn> {
    let (turn, value) = d.search(pos, e.descent_nodes)?;
    if !e.quiet_only || !pos.has_capture() {
        recorded.push(scored(pos, descent_score(value), None, Origin::Played));
        roots.insert(*pos);
    }
    if d.len() > DESCENT_TREE_MAX {
        recorded.extend(descent_examples(d, roots, e, rng));
        d.clear();
    }
    Some(turn)
}

/// Plays one self-play game with `eval` searched `depth` turns deep at the run's settings,
/// seeded by `seed`.
fn play_game(
    run: &Run,
    (eval, depth): (&Evaluation, u32),
    tables: Option<&Arc<Tablebase>>,
    seed: u64,
) -> Played {
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
    let player = |side: u64| {
        self_play_player(e, depth, eval, tables, derive_seed(seed, side))
            .record_nodes(e.tree_positions > 0)
            .record_leaf(e.pv_leaf)
    };
    let mut players = [player(0), player(1)];
    let mut descent =
        (e.descent_nodes > 0).then(|| Descent::new(eval.clone(), tables.cloned(), rules));
    let mut roots: HashSet<Position> = HashSet::new();
    let mut recorded: Vec<Scored> = Vec::new();
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
            let score = SearchScore::Centistones(0);
            recorded.push(scored(&pos, score, Some(exact), Origin::Played));
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
        } else if let Some(d) = descent.as_mut() {
            let Some(turn) = descent_turn(d, &pos, e, (&mut recorded, &mut roots), &mut rng) else {
                break;
            };
            turn
        } else {
            let player = &mut players[usize::from(mover == Color::Black)];
            let Some(turn) = alpha_beta_turn(player, &game, e, &mut recorded, &mut rng) else {
                break;
            };
            turn
        };
        actions += turn.steps().len() as u32;
        if game.play_turn(&turn).is_err() {
            break;
        }
        turns += 1;
    }
    if let Some(d) = descent.as_mut() {
        recorded.extend(descent_examples(d, &roots, e, &mut rng));
    }
    finish(
        &game,
        adjudicated,
        recorded,
        (turns + e.random_opening_turns, actions),
    )
}

/// A game that ended (or was `adjudicated` by the tables, or stopped) after `turns` turns of
/// `actions` steps: every recorded position learns the result for its side to move.
fn finish(
    game: &Game,
    adjudicated: Option<Option<Color>>,
    mut recorded: Vec<Scored>,
    (turns, actions): (u32, u32),
) -> Played {
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
    for s in &mut recorded {
        let mover = if s.black_to_move {
            Color::Black
        } else {
            Color::White
        };
        s.result = result_for(winner, mover);
    }
    Played {
        scored: recorded,
        summary: GameSummary {
            turns,
            actions,
            end,
            winner: winner.map(|w| w.index() as u8),
            false_resignation: None,
        },
    }
}

/// Plays the rest of `generation`'s games (those not yet on disk) as `worker` with `eval`
/// (trained for `steps` optimiser steps) searched `depth` turns deep (the teacher's depth,
/// [`Teacher::depth`]), writing shards as they finish.
pub fn eval_selfplay_generation(
    run: &mut Run,
    generation: u64,
    (eval, depth): (&Evaluation, u32),
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
    let seed = derive_seed(
        worker_seed(run.config.seed ^ 0xE7A1_5E1F, worker),
        generation,
    );
    let tables = run.tables.as_ref().map(|t| Arc::clone(t.tables()));
    let mut writer = Writer {
        next_shard,
        pending: Vec::new(),
    };
    let mut progress = std::mem::replace(&mut run.progress, Progress::new(false));
    let run_ref: &Run = run;
    let mut error = None;
    let play = |index| {
        let game_seed = derive_seed(seed, index);
        play_game(run_ref, (eval, depth), tables.as_ref(), game_seed)
    };
    // This thread writes the shards as games finish.
    play_on_cores(done, wanted, &run_ref.stop, play, |played: Played| {
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
    let line = report.games_line(generation, "self-play", "scored positions");
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
            e.inputs,
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
    let previous = ratings
        .iter()
        .find(|r| r.opponent.starts_with("ckpt-"))
        .map(|r| [r.wins, r.draws, r.losses]);
    if let Some(line) = state.teacher.after_rating(&run.config.eval, previous) {
        run.progress.line(&line);
        run.log(&line)?;
        run.metrics.scalar(
            "selfplay/teacher_depth",
            f64::from(state.teacher.depth),
            steps,
        );
    }
    Ok(())
}

/// The teacher of an evaluation run: how deep its self-play searches label positions now,
/// deepened (up to `eval.depth_max`) once the in-run rating flattens. Stored in the run's
/// state, so a resumed run and its self-play workers go on at the same depth.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Teacher {
    /// Self-play depth in turns (0: not yet set, `eval.depth`).
    #[serde(default)]
    pub depth: u32,
    /// Wins, draws and losses of each in-run rating against the previous checkpoint since
    /// the teacher last deepened, oldest first (at most `eval.deepen_after`).
    #[serde(default)]
    pub recent: Vec<[u32; 3]>,
}

impl Teacher {
    /// The depth self-play searches at under `e`.
    pub fn depth(&self, e: &EvalSection) -> u32 {
        if self.depth == 0 {
            e.depth
        } else {
            self.depth.clamp(e.depth, e.depth_max.max(e.depth))
        }
    }

    /// Takes a new rating against the previous checkpoint into account: when the last
    /// `eval.deepen_after` of them together score below `eval.deepen_below` (the newest
    /// evaluation no longer clearly beats the one before; a threshold of 1 counts every
    /// score, a clean sweep included), the teacher searches one turn deeper (up to `eval.depth_max`) and starts counting again. Returns the line that says
    /// so, when it deepens.
    /// `previous` is the wins, draws and losses against the previous checkpoint.
    pub fn after_rating(&mut self, e: &EvalSection, previous: Option<[u32; 3]>) -> Option<String> {
        let depth = self.depth(e);
        let previous = previous?;
        if depth >= e.depth_max || e.deepen_after == 0 {
            return None;
        }
        self.recent.push(previous);
        let keep = e.deepen_after as usize;
        if self.recent.len() > keep {
            self.recent.drain(..self.recent.len() - keep);
        }
        if self.recent.len() < keep {
            return None;
        }
        let [w, d, l] = self
            .recent
            .iter()
            .fold([0, 0, 0], |a, r| [a[0] + r[0], a[1] + r[1], a[2] + r[2]]);
        let games = (w + d + l).max(1);
        let score = (f64::from(w) + f64::from(d) / 2.0) / f64::from(games);
        // A threshold of 1 deepens after every `deepen_after` ratings, whatever they scored.
        if score >= f64::from(e.deepen_below) && e.deepen_below < 1.0 {
            return None;
        }
        self.depth = depth + 1;
        self.recent.clear();
        Some(format!(
            "teacher: self-play now searches {} turns deep (the last {keep} ratings against \
             the previous checkpoint scored {:.1}% over {games} games, threshold {:.1}%)",
            self.depth,
            score * 100.0,
            f64::from(e.deepen_below) * 100.0
        ))
    }
}

/// The learned evaluation of an [`EvalTrainer`], ready for the search.
pub fn evaluation_of(trainer: &EvalTrainer) -> Result<Evaluation, TrainError> {
    let net = EvalNet::new(trainer.weights())
        .map_err(|e| TrainError::State(format!("the evaluation cannot run: {e}")))?;
    Ok(Evaluation::Learned(Arc::new(net)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(depth: u32, depth_max: u32) -> EvalSection {
        EvalSection {
            depth,
            depth_max,
            deepen_after: 3,
            deepen_below: 0.55,
            ..EvalSection::default()
        }
    }

    #[test]
    fn the_teacher_deepens_when_three_ratings_in_a_row_score_below_the_threshold() {
        let e = section(3, 5);
        let mut t = Teacher::default();
        assert_eq!(t.depth(&e), 3);
        // climbing: 60% each
        for _ in 0..5 {
            assert_eq!(t.after_rating(&e, Some([8, 8, 4])), None);
        }
        assert_eq!(t.depth(&e), 3);
        // one flat rating (50%) pooled with two climbing ones is not yet below 55% ...
        assert_eq!(t.after_rating(&e, Some([5, 10, 5])), None);
        // ... two are: (60 + 50 + 50) / 3 = 53.3%, the teacher deepens
        let line = t.after_rating(&e, Some([6, 8, 6])).unwrap_or_default();
        assert!(line.contains("4 turns deep"), "{line}");
        assert_eq!(t.depth(&e), 4);
        assert!(t.recent.is_empty(), "counting starts again");
        // no rating against a previous checkpoint: nothing changes
        assert_eq!(t.after_rating(&e, None), None);
        for _ in 0..2 {
            assert_eq!(t.after_rating(&e, Some([0, 20, 0])), None);
        }
        assert!(t.after_rating(&e, Some([0, 20, 0])).is_some());
        assert_eq!(t.depth(&e), 5);
        // at depth_max it stays
        for _ in 0..6 {
            assert_eq!(t.after_rating(&e, Some([0, 0, 20])), None);
        }
        assert_eq!(t.depth(&e), 5);
    }

    #[test]
    fn a_threshold_of_one_deepens_even_after_clean_sweeps() {
        let e = EvalSection {
            deepen_after: 2,
            deepen_below: 1.0,
            ..section(2, 4)
        };
        let mut t = Teacher::default();
        assert_eq!(t.after_rating(&e, Some([20, 0, 0])), None);
        assert!(t.after_rating(&e, Some([20, 0, 0])).is_some());
        assert_eq!(t.depth(&e), 3);
    }

    #[test]
    fn without_depth_max_the_teacher_keeps_the_configured_depth() {
        let e = section(3, 0);
        let mut t = Teacher::default();
        for _ in 0..10 {
            assert_eq!(t.after_rating(&e, Some([0, 0, 20])), None);
        }
        assert_eq!(t.depth(&e), 3);
        // a stored depth outside the config's range is brought back into it
        let stored = Teacher {
            depth: 7,
            recent: Vec::new(),
        };
        assert_eq!(stored.depth(&section(3, 5)), 5);
        assert_eq!(stored.depth(&e), 3);
    }
}
