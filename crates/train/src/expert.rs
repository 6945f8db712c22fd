//! The expert phase of a network run (`[expert]`, expert iteration): a generation's games are
//! played by the alpha-beta player with a learned evaluation, and every searched turn becomes
//! the network's training samples: the policy target spread from the search's scores of the
//! root turns, the value target from its score and the game's result.
//!
//! The network's actions are steps, the expert's whole turns: a turn start's policy target is
//! the share of each first step among the turns (weighted by the softmax of their scores), and
//! every state in the middle of the played chain is a sample too, its target the share of each
//! next step (or of ending the turn there) among the turns that go through it. Those are the
//! states the network's MCTS decides at.

use std::sync::Arc;
use std::time::Instant;

use fanorona_engine::{Action, Color, Game, Position, Turn};
use fanorona_mcts::derive_seed;
use fanorona_players::{
    AlphaBetaConfig, AlphaBetaPlayer, Evaluation, Player, RootTurn, Score, random_opening,
};
use fanorona_tablebase::{Tablebase, Wdl};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::config::{ExpertSection, TrainConfig};
use crate::metrics::Progress;
use crate::replay::{GameEnd, GameSummary, Sample, Shard, absolute_index};
use crate::run::{Run, TrainError};
use crate::selfplay::FinishedGame;
use crate::selfplay_phase::{SelfPlayReport, play_on_cores, worker_seed};

/// Games per shard file.
const SHARD_GAMES: u64 = 16;
/// Turns after which an expert game is stopped as a draw (the no-progress rule ends every game
/// long before, unless it is switched off).
const MAX_TURNS: u32 = 1000;
/// Scores within this many temperatures of the best are searched exactly; the rest weigh
/// less than e^-3 of the best each and are left out of the target.
const MARGIN_TEMPERATURES: f32 = 3.0;

/// The expert of a run's `[expert]` section: its evaluation, loaded once.
#[derive(Clone)]
pub struct Expert {
    eval: Evaluation,
}

impl std::fmt::Debug for Expert {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Expert")
    }
}

impl Expert {
    /// The expert of `config`, or `None` when it has no expert phase.
    pub fn of(config: &TrainConfig) -> Result<Option<Expert>, TrainError> {
        let e = &config.expert;
        if e.until_steps == 0 {
            return Ok(None);
        }
        let source = match e.evaluation.as_str() {
            fanorona_specs::SHIPPED_EVAL => fanorona_specs::EvalSource::Shipped,
            path => fanorona_specs::EvalSource::File(path.into()),
        };
        let eval = fanorona_specs::load_evaluation(&source).map_err(|err| {
            TrainError::State(format!("expert.evaluation = {:?}: {err}", e.evaluation))
        })?;
        Ok(Some(Expert { eval }))
    }

    /// Whether the expert still teaches a network trained for `steps` optimiser steps.
    pub fn teaches(config: &TrainConfig, steps: u64) -> bool {
        steps < config.expert.until_steps
    }
}

/// The weight of each root turn in the policy target: `exp((score - best) / temperature)` for
/// the turns scored exactly, 0 for those only bounded (worse than the best by more than the
/// margin). Forced wins and losses are far from every evaluation, so a won position puts its
/// weight on the winning turns.
pub fn turn_weights(roots: &[RootTurn], temperature: f32) -> Vec<f64> {
    let best = roots
        .iter()
        .filter(|r| r.exact)
        .map(|r| r.value)
        .max()
        .unwrap_or(0);
    roots
        .iter()
        .map(|r| {
            if r.exact {
                (f64::from(r.value - best) / f64::from(temperature)).exp()
            } else {
                0.0
            }
        })
        .collect()
}

/// The searched value of a score for the mover, in `[-1, 1]`.
pub fn score_value(score: Score, scale: f32) -> f32 {
    match score {
        Score::Centistones(cs) => (cs as f32 / scale).tanh(),
        Score::WinIn(_) => 1.0,
        Score::LossIn(_) => -1.0,
        Score::Value(v) => v.clamp(-1.0, 1.0),
        Score::Tablebase(fanorona_tablebase::Probe { wdl, .. }) | Score::Proven(wdl) => {
            wdl.sign() as f32
        }
    }
}

/// The step-level samples of the turn `played` from the turn start `start` (the game's
/// `repetitions`-th visit of it): the turn start and every state in the middle of the chain
/// where the mover may go on or stop, each with the policy target the weighted `roots` give
/// it. Results are filled in when the game ends.
pub fn turn_samples(
    start: &Position,
    repetitions: u32,
    roots: &[RootTurn],
    weights: &[f64],
    played: &Turn,
    value: f32,
) -> Vec<Sample> {
    let wdl = [(1.0 + value) / 2.0, 0.0, (1.0 - value) / 2.0];
    let steps = played.steps();
    let mut samples = Vec::with_capacity(steps.len() + 1);
    let mut chain: Vec<Action> = Vec::with_capacity(steps.len());
    let mut at = *start;
    for depth in 0..=steps.len() {
        if depth > 0 && at.is_turn_start() {
            break; // the chain could not go on: no decision here
        }
        let mut policy: Vec<(u16, f64)> = Vec::new();
        for (root, &w) in roots.iter().zip(weights) {
            let rest = root.turn.steps();
            if w <= 0.0 || rest.len() < depth || rest[..depth] != steps[..depth] {
                continue;
            }
            let action = match rest.get(depth) {
                Some(&step) => Action::Step(step),
                None => Action::EndTurn,
            };
            let index = absolute_index(action);
            match policy.iter_mut().find(|(i, _)| *i == index) {
                Some(entry) => entry.1 += w,
                None => policy.push((index, w)),
            }
        }
        let total: f64 = policy.iter().map(|(_, w)| w).sum();
        if total > 0.0 {
            let policy = policy
                .into_iter()
                .map(|(i, w)| (i, (w / total) as f32))
                .collect();
            samples.push(Sample::new(start, &chain, repetitions, policy, 0).with_search_wdl(wdl));
        }
        if let Some(&step) = steps.get(depth) {
            at = at.apply(Action::Step(step));
            chain.push(Action::Step(step));
        }
    }
    samples
}

/// One expert player: alpha-beta `e.depth` turns deep with `eval` and the tables, scoring the
/// root turns within the margin.
fn expert_player(
    e: &ExpertSection,
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
    .score_root_turns((e.temperature * MARGIN_TEMPERATURES).round() as u32)
}

/// Plays one expert game seeded by `seed` at the run's settings; its samples carry the result
/// for their mover.
fn play_game(
    config: &TrainConfig,
    rules: fanorona_engine::Rules,
    eval: &Evaluation,
    tables: Option<&Arc<Tablebase>>,
    seed: u64,
) -> FinishedGame {
    let e = &config.expert;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::new(rules);
    let mut actions = 0u32;
    let mut turns = 0u32;
    for turn in random_opening(seed, e.random_opening_turns, rules) {
        if game.play_turn(&turn).is_err() {
            break;
        }
        actions += turn.steps().len() as u32;
        turns += 1;
    }
    let mut players = [0u64, 1].map(|side| expert_player(e, eval, tables, derive_seed(seed, side)));
    let mut samples: Vec<(Color, Sample)> = Vec::new();
    let mut adjudicated: Option<Option<Color>> = None;
    let start_turns = turns;
    while game.outcome().is_none() && turns - start_turns < MAX_TURNS {
        let pos = *game.position();
        let mover = pos.side_to_move();
        if let Some(probe) = tables
            .filter(|t| t.fits(rules))
            .and_then(|t| fanorona_players::tables::exact(Some(t), &pos, true))
        {
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
            let Ok(choice) = players[slot].choose(&game, None) else {
                break;
            };
            let roots = players[slot].take_root_scores();
            if roots.len() > 1 {
                let weights = turn_weights(&roots, e.temperature);
                let value = choice
                    .info
                    .score
                    .map_or(0.0, |s| score_value(s, e.value_scale));
                let repetitions = game.repetition_count();
                let turn_samples =
                    turn_samples(&pos, repetitions, &roots, &weights, &choice.turn, value);
                samples.extend(turn_samples.into_iter().map(|s| (mover, s)));
            }
            choice.turn
        };
        if game.play_turn(&turn).is_err() {
            break;
        }
        actions += turn.steps().len() as u32;
        turns += 1;
    }
    finish(&game, adjudicated, samples, (turns, actions))
}

/// A game that ended (or was `adjudicated` by the tables, or stopped): every sample learns the
/// result for its mover.
fn finish(
    game: &Game,
    adjudicated: Option<Option<Color>>,
    samples: Vec<(Color, Sample)>,
    (turns, actions): (u32, u32),
) -> FinishedGame {
    let outcome = game.outcome();
    let winner = match adjudicated {
        Some(w) => w,
        None => outcome.and_then(|o| o.winner()),
    };
    let end = match (adjudicated, outcome) {
        (Some(_), _) => GameEnd::Tablebase,
        (None, Some(o)) => GameEnd::from(o),
        (None, None) => GameEnd::Capped,
    };
    let samples = samples
        .into_iter()
        .map(|(mover, s)| Sample {
            result: match winner {
                None => 0,
                Some(w) if w == mover => 1,
                Some(_) => -1,
            },
            ..s
        })
        .collect();
    FinishedGame {
        samples,
        summary: GameSummary {
            turns,
            actions,
            end,
            winner: winner.map(|w| w.index() as u8),
            false_resignation: None,
        },
    }
}

/// Plays the rest of `generation`'s games (those not yet on disk) as `worker` with the
/// `expert`, for a network trained `steps` optimiser steps, one game per core at a time,
/// writing shards as they finish.
pub fn expert_generation(
    run: &mut Run,
    generation: u64,
    expert: &Expert,
    steps: u64,
    worker: &str,
) -> Result<SelfPlayReport, TrainError> {
    let wanted = run.config.selfplay.games_per_generation as u64;
    let (mut next_shard, done) = run.dir.shards_written(generation, worker)?;
    let mut report = SelfPlayReport::default();
    if done >= wanted {
        return Ok(report);
    }
    let label = format!("gen {generation} expert play");
    run.progress.phase(&label, wanted);
    let started = Instant::now();
    let seed = derive_seed(
        worker_seed(run.config.seed ^ 0xE4BE_7E4C, worker),
        generation,
    );
    let tables = run.tables.as_ref().map(|t| Arc::clone(t.tables()));
    let mut pending: Vec<FinishedGame> = Vec::new();
    let mut progress = std::mem::replace(&mut run.progress, Progress::new(false));
    let run_ref: &Run = run;
    let rules = run_ref.rules();
    let mut error = None;
    let mut flush = |pending: &mut Vec<FinishedGame>| -> Result<(), TrainError> {
        if pending.is_empty() {
            return Ok(());
        }
        let shard = Shard {
            samples: pending
                .iter()
                .flat_map(|g| g.samples.iter().cloned())
                .collect(),
            games: pending.iter().map(|g| g.summary.clone()).collect(),
            network_steps: steps,
            scored: Vec::new(),
        };
        let used = run_ref
            .dir
            .write_shard(generation, worker, next_shard, &shard)?;
        next_shard = used + 1;
        pending.clear();
        Ok(())
    };
    let play = |index| {
        let game_seed = derive_seed(seed, index);
        play_game(
            &run_ref.config,
            rules,
            &expert.eval,
            tables.as_ref(),
            game_seed,
        )
    };
    play_on_cores(done, wanted, &run_ref.stop, play, |played| {
        report.games += 1;
        report.samples += played.samples.len() as u64;
        report.actions += u64::from(played.summary.actions);
        if played.summary.end == GameEnd::Tablebase {
            report.adjudicated += 1;
        }
        pending.push(played);
        progress.update(&label, (done + report.games).min(wanted), wanted, "");
        if pending.len() as u64 >= SHARD_GAMES
            && error.is_none()
            && let Err(e) = flush(&mut pending)
        {
            error = Some(e);
        }
    });
    if error.is_none()
        && let Err(e) = flush(&mut pending)
    {
        error = Some(e);
    }
    run.progress = progress;
    if let Some(e) = error {
        return Err(e);
    }
    report.seconds = started.elapsed().as_secs_f64();
    let line = report.games_line(generation, "expert play", "samples");
    run.progress.line(&line);
    run.log(&line)?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_engine::Rules;

    fn searched(fen: &str, depth: u32, margin: u32) -> (Game, Turn, Vec<RootTurn>, Option<Score>) {
        let game = Game::from_position(fen.parse().unwrap(), Rules::default());
        let mut player = AlphaBetaPlayer::new(AlphaBetaConfig {
            depth: Some(depth),
            ..AlphaBetaConfig::default()
        })
        .score_root_turns(margin);
        let choice = player.choose(&game, None).unwrap();
        let roots = player.take_root_scores();
        (game, choice.turn, roots, choice.info.score)
    }

    #[test]
    fn weights_follow_the_scores_and_leave_out_the_bounded_turns() {
        let (_, _, roots, _) = searched("W1B1B4/9/4W4/1B7/4W2B1 w", 2, 120);
        let weights = turn_weights(&roots, 40.0);
        let best = roots.iter().filter(|r| r.exact).map(|r| r.value).max();
        for (r, w) in roots.iter().zip(&weights) {
            if r.exact {
                let expected = (f64::from(r.value - best.unwrap()) / 40.0).exp();
                assert!((w - expected).abs() < 1e-12);
            } else {
                assert_eq!(*w, 0.0);
            }
        }
        assert!(weights.contains(&1.0));
    }

    /// Every sample of a searched turn is a state the played turn passes through, its policy a
    /// distribution over that state's legal actions, and the turn start's target is the
    /// weights' share of each first step, worked out here from the turns themselves.
    #[test]
    fn samples_spread_the_turns_weights_over_the_steps_of_the_played_chain() {
        let mut checked_chains = 0;
        for seed in 0..40u64 {
            let mut game = Game::new(Rules::default());
            for t in random_opening(seed, 6 + seed as u32 % 20, Rules::default()) {
                game.play_turn(&t).unwrap();
            }
            if game.outcome().is_some() {
                continue;
            }
            let fen = game.position().to_string();
            let (game, played, roots, score) = searched(&fen, 2, 200);
            if roots.len() < 2 {
                continue;
            }
            let weights = turn_weights(&roots, 50.0);
            let value = score_value(score.unwrap(), 300.0);
            let samples = turn_samples(game.position(), 1, &roots, &weights, &played, value);
            assert!(!samples.is_empty());
            // The turn start's target, summed by hand over the turns.
            let total: f64 = weights.iter().sum();
            let first = &samples[0];
            assert!(first.chain_steps.is_empty());
            for (root, w) in roots.iter().zip(&weights) {
                let index = absolute_index(Action::Step(root.turn.steps()[0]));
                let share: f64 = roots
                    .iter()
                    .zip(&weights)
                    .filter(|(r, _)| r.turn.steps()[0] == root.turn.steps()[0])
                    .map(|(_, w)| w / total)
                    .sum();
                let got = first
                    .policy
                    .iter()
                    .find(|(i, _)| *i == index)
                    .map_or(0.0, |(_, p)| f64::from(*p));
                assert!((got - share).abs() < 1e-5, "{got} vs {share} ({w})");
            }
            for (k, s) in samples.iter().enumerate() {
                assert!(s.target_problem().is_none(), "{:?}", s.target_problem());
                assert_eq!(s.chain_steps.len(), k, "one sample per state of the chain");
                let at = s.position().unwrap();
                assert_eq!(k == 0, at.is_turn_start());
                let legal: Vec<u16> = at
                    .legal_actions()
                    .iter()
                    .map(|&a| absolute_index(a))
                    .collect();
                for (i, _) in &s.policy {
                    assert!(legal.contains(i), "seed {seed}: action {i} not legal");
                }
                assert_eq!(
                    s.search_wdl,
                    Some([(1.0 + value) / 2.0, 0.0, (1.0 - value) / 2.0])
                );
            }
            checked_chains += usize::from(samples.len() > 1);
        }
        assert!(checked_chains >= 3, "only {checked_chains} chains");
    }

    #[test]
    fn a_won_position_puts_the_whole_target_on_the_winning_turn() {
        // White a1 takes every Black stone with a1b1a,b1b2a (see the players' tests); the
        // first step alone leaves three Black stones.
        let (game, played, roots, score) = searched("1B7/1B7/1B7/9/W1BBW4 w", 2, 120);
        assert_eq!(played.to_string(), "a1b1a,b1b2a");
        assert_eq!(score_value(score.unwrap(), 300.0), 1.0);
        let weights = turn_weights(&roots, 40.0);
        let samples = turn_samples(game.position(), 1, &roots, &weights, &played, 1.0);
        assert_eq!(samples.len(), 2, "the turn start and the state after a1b1a");
        let second = &samples[1];
        let after = second.position().unwrap();
        let go_on = absolute_index(Action::Step(played.steps()[1]));
        let (_, p) = second.policy.iter().find(|(i, _)| *i == go_on).unwrap();
        assert!(*p > 0.999, "going on wins: {p}");
        assert!(!after.is_turn_start());
    }
}
