//! Rating and gating: matches of the network (with search) against fixed baselines (any
//! registered player, `net:` included) and the previous rated network, appended to
//! `ratings.csv`, logged and sent to TensorBoard; with gating, the decision whether the new
//! network replaces the best one in self-play.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use fanorona_arena::arena::{FactoryError, MatchConfig, MatchError, MatchResult, play_match};
use fanorona_arena::elo::{EloEstimate, MatchScore, elo_text};
use fanorona_arena::harness::Scale;
use fanorona_arena::rating::Pairing;
use fanorona_engine::Rules;
use fanorona_mcts::derive_seed;
use fanorona_net::{InferenceModel, Trainer, net_player, player_registry};
use fanorona_players::Player;
use fanorona_specs::{NetSettings, Settings};

use crate::run::{Run, RunState, TrainError};

/// One rating match.
#[derive(Clone, Debug)]
pub struct Rating {
    /// The opponent, as a player spec or `ckpt-<steps>`.
    pub opponent: String,
    /// Wins, draws, losses of the network.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// Mean score of the network (win 1, draw 1/2).
    pub score: f64,
    /// Elo difference and its 95% interval (infinite bounds at 0% or 100%).
    pub elo: Option<EloEstimate>,
}

impl Rating {
    /// The rating of one match, from the rated side's view, against `opponent`.
    pub fn from_result(opponent: &str, result: &MatchResult) -> Rating {
        let score: MatchScore = result.score;
        Rating {
            opponent: opponent.to_string(),
            wins: score.wins,
            draws: score.draws,
            losses: score.losses,
            score: result.mean_score().unwrap_or(0.5),
            elo: result.elo(),
        }
    }

    /// Games decided by a win or a loss.
    pub fn decisive(&self) -> u32 {
        self.wins + self.losses
    }
}

/// How rating matches are played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingMatch {
    /// Games per opponent.
    pub games: u32,
    /// Simulations per step of both networks.
    pub simulations: u32,
    /// Random opening turns before each pair of games.
    pub opening_plies: u32,
    /// The rules.
    pub rules: Rules,
    /// Seed of the openings and players.
    pub seed: u64,
}

/// Why a rating match could not be played.
#[derive(Debug, thiserror::Error)]
pub enum RatingError {
    /// A baseline is not a valid player spec.
    #[error("baseline {0:?}: {1}")]
    Baseline(String, fanorona_specs::SpecError),
    /// The match stopped.
    #[error(transparent)]
    Match(#[from] MatchError),
    /// An earlier checkpoint could not be loaded.
    #[error(transparent)]
    Net(#[from] fanorona_net::NetError),
}

/// Play the games of `how` with the network `model` against `opponent` (a player spec or
/// another network) and return the rating, named `opponent_name`.
pub fn rate(
    model: &InferenceModel,
    opponent_name: &str,
    opponent: Opponent<'_>,
    how: &RatingMatch,
) -> Result<Rating, RatingError> {
    let config = MatchConfig {
        games: how.games,
        threads: 2,
        seed: how.seed,
        opening_plies: how.opening_plies,
        rules: how.rules,
        ..MatchConfig::default()
    };
    let simulations = how.simulations;
    let make_net = |stream: u64| -> Result<Box<dyn Player>, FactoryError> {
        Ok(Box::new(net_player(
            model.clone(),
            NetSettings::search_with(simulations, stream),
            "net",
        )))
    };
    let result = match opponent {
        Opponent::Spec(settings) => {
            let registry = player_registry(model.backend());
            let make = |stream: u64| -> Result<Box<dyn Player>, FactoryError> {
                Ok(registry.build(settings, stream)?)
            };
            play_match(&config, &make_net, &make, |_, _| {})
        }
        Opponent::Net(other) => {
            let make = |stream: u64| -> Result<Box<dyn Player>, FactoryError> {
                Ok(Box::new(net_player(
                    other.clone(),
                    NetSettings::search_with(simulations, stream),
                    "previous",
                )))
            };
            play_match(&config, &make_net, &make, |_, _| {})
        }
    }?;
    Ok(Rating::from_result(opponent_name, &result))
}

/// Who the network plays in a rating match.
pub enum Opponent<'a> {
    /// A registered player.
    Spec(&'a Settings),
    /// An earlier network.
    Net(&'a InferenceModel),
}

/// Append ratings of the checkpoint after `steps` optimiser steps to `ratings.csv`
/// (with a header when the file is new).
pub fn append_ratings(
    path: &Path,
    steps: u64,
    state: &RunState,
    ratings: &[Rating],
) -> std::io::Result<()> {
    let new = !path.exists();
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    let mut text = String::new();
    if new {
        text.push_str(
            "checkpoint,steps,generation,selfplay_games,opponent,games,wins,draws,losses,score,elo,elo_low,elo_high\n",
        );
    }
    for r in ratings {
        let elo = |x: Option<f64>| x.map_or("nan".into(), |x| elo_text(x, 1));
        text.push_str(&format!(
            "ckpt-{steps:09},{steps},{},{},{},{},{},{},{},{:.4},{},{},{}\n",
            state.generation,
            state.games_seen,
            r.opponent,
            r.wins + r.draws + r.losses,
            r.wins,
            r.draws,
            r.losses,
            r.score,
            elo(r.elo.map(|e| e.elo)),
            elo(r.elo.map(|e| e.lower)),
            elo(r.elo.map(|e| e.upper)),
        ));
    }
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

/// The player the run's rating scale is anchored at, when it is one of the baselines.
pub const SCALE_ANCHOR: &str = fanorona_arena::harness::ANCHOR;

/// Every rating of a run on one scale: the joint fit of `fanorona_arena::rating` over every
/// row of `ratings.csv` (each checkpoint against the baselines and the previous network),
/// anchored at `alphabeta:depth=2` when it is a baseline, else at the first opponent listed.
#[derive(Clone, Debug, PartialEq)]
pub struct RunScale {
    /// The anchor.
    pub anchor: String,
    /// Each player (checkpoints as `ckpt-<steps>`, baselines as their specs) with its rating
    /// and 95% interval, in the order first seen.
    pub players: Vec<(String, f64, (f64, f64))>,
    /// Games behind the fit.
    pub games: u32,
}

impl RunScale {
    /// The rating of `name`, if it is on the scale.
    pub fn get(&self, name: &str) -> Option<(f64, (f64, f64))> {
        self.players
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, elo, ci)| (*elo, *ci))
    }
}

/// The run's scale from the text of `ratings.csv`; `None` when it has no usable rows or the
/// table cannot be fitted (a checkpoint with no games linking it to the anchor).
pub fn run_scale(csv: &str) -> Option<RunScale> {
    let mut names: Vec<String> = Vec::new();
    let index = |name: &str, names: &mut Vec<String>| {
        names.iter().position(|n| n == name).unwrap_or_else(|| {
            names.push(name.to_string());
            names.len() - 1
        })
    };
    let mut pairings = Vec::new();
    let mut opponents = Vec::new();
    for line in csv.lines().skip(1) {
        // checkpoint, steps, generation, games seen, opponent (may hold commas), games, W, D,
        // L, score, elo, low, high.
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() < 13 {
            continue;
        }
        let opponent = fields[4..fields.len() - 8].join(",");
        let counts: Vec<u32> = fields[fields.len() - 7..fields.len() - 4]
            .iter()
            .filter_map(|f| f.parse().ok())
            .collect();
        let [wins, draws, losses] = counts[..] else {
            continue;
        };
        let a = index(fields[0], &mut names);
        let b = index(&opponent, &mut names);
        if a == b {
            continue;
        }
        if !opponents.contains(&opponent) {
            opponents.push(opponent);
        }
        pairings.push(Pairing {
            a,
            b,
            score: MatchScore::new(wins, draws, losses),
        });
    }
    let anchor = if opponents.iter().any(|o| o == SCALE_ANCHOR) {
        SCALE_ANCHOR.to_string()
    } else {
        opponents.first()?.clone()
    };
    let anchor_index = names.iter().position(|n| *n == anchor)?;
    let scale = Scale::fit(names, &pairings, anchor_index).ok()?;
    let players = scale
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.clone(), scale.fit.elo[i], scale.fit.interval(i)))
        .collect();
    Some(RunScale {
        anchor,
        players,
        games: pairings.iter().map(|p| p.score.games()).sum(),
    })
}

/// Whether the new network replaces the best one in self-play: the first rated network always
/// does; later ones need `threshold` of the score against the best with at least
/// `min_decisive` decisive games (draws alone never promote), and no match means no promotion.
pub fn promotes(
    against_best: Option<&Rating>,
    has_best: bool,
    threshold: f64,
    min_decisive: u32,
) -> bool {
    match (against_best, has_best) {
        (_, false) => true,
        (Some(r), true) => r.score >= threshold && r.decisive() >= min_decisive,
        (None, true) => false,
    }
}

/// Rates the newest checkpoint of the run (`trainer`) against the baselines and the previous
/// (or, with gating, the best) network; records the ratings and updates `state` (rated
/// checkpoints, gating). A match that cannot be played is reported and skipped.
pub fn rate_checkpoint(
    run: &mut Run,
    trainer: &Trainer,
    state: &mut RunState,
) -> Result<(), TrainError> {
    let e = run.config.evaluation.clone();
    let steps = trainer.steps();
    let model = trainer.inference_model(run.backend);
    let how = RatingMatch {
        games: e.games,
        simulations: e.simulations,
        opening_plies: e.opening_plies,
        rules: run.rules(),
        seed: derive_seed(run.config.seed ^ 0xE7A1, steps),
    };
    let total = e.baselines.len() as u64 + 1;
    let label = format!("gen {} rating", state.generation);
    run.progress.phase(&label, total);
    let mut ratings: Vec<Rating> = Vec::new();
    for (i, text) in e.baselines.iter().enumerate() {
        let rated = player_registry(run.backend)
            .parse(text)
            .map_err(|err| RatingError::Baseline(text.clone(), err))
            .and_then(|settings| rate(&model, text, Opponent::Spec(&settings), &how));
        match rated {
            Ok(r) => ratings.push(r),
            Err(err) => run.say(&format!("warning: rating against {text} failed: {err}"))?,
        }
        run.progress.update(&label, i as u64 + 1, total, text);
    }
    // The network opponent: the best net when gating, otherwise the previous rated one.
    let previous = if e.gating {
        state.best
    } else if e.against_previous {
        state.last_rated
    } else {
        None
    };
    let mut against_best = None;
    if let Some(prev) = previous.filter(|&p| p != steps) {
        let name = format!("ckpt-{prev:09}");
        let prev_path = run
            .dir
            .fetch_checkpoint(&run.dir.checkpoint_path(prev))?
            .unwrap_or_else(|| run.dir.checkpoint_path(prev));
        match rate_against_checkpoint(run, &model, &prev_path, &name, &how) {
            Ok(r) => {
                against_best = Some(r.clone());
                ratings.push(r);
            }
            Err(err) => run.say(&format!("warning: rating against {name} failed: {err}"))?,
        }
    }
    record_ratings(run, steps, state, &ratings)?;
    state.rated.push(steps);
    state.last_rated = Some(steps);
    if e.gating {
        let has_best = state.best.is_some();
        if promotes(
            against_best.as_ref(),
            has_best,
            e.gating_threshold,
            e.gating_min_decisive,
        ) {
            state.best = Some(steps);
        }
        run.log(&format!("gating: self-play uses ckpt {:?}", state.best))?;
    }
    Ok(())
}

fn rate_against_checkpoint(
    run: &Run,
    model: &InferenceModel,
    path: &Path,
    name: &str,
    how: &RatingMatch,
) -> Result<Rating, RatingError> {
    let (previous, _) = Trainer::load_checkpoint(path, &run.device)?;
    let opponent = previous.inference_model(run.backend);
    rate(model, name, Opponent::Net(&opponent), how)
}

/// Writes the ratings of the checkpoint after `steps` steps: TensorBoard, the terminal,
/// `train.log` and `ratings.csv`.
pub(crate) fn record_ratings(
    run: &mut Run,
    steps: u64,
    state: &RunState,
    ratings: &[Rating],
) -> Result<(), TrainError> {
    for r in ratings {
        let name = r.opponent.replace([':', '='], "_");
        run.metrics
            .scalar(&format!("eval/score_vs_{name}"), r.score, steps);
        let elo = r.elo.map_or(f64::NAN, |e| e.elo);
        run.metrics
            .scalar(&format!("eval/elo_vs_{name}"), elo, steps);
        let elo = r.elo.map_or("no games".to_string(), |e| format!("{e} Elo"));
        run.progress.line(&format!(
            "rating ckpt-{steps:09} vs {}: +{} ={} -{} score {:.1}% {elo}",
            r.opponent,
            r.wins,
            r.draws,
            r.losses,
            r.score * 100.0
        ));
        run.log(&format!(
            "rating steps {steps} vs {}: +{} ={} -{}",
            r.opponent, r.wins, r.draws, r.losses
        ))?;
    }
    let path = run.dir.ratings_path();
    if let Err(error) = append_ratings(&path, steps, state, ratings) {
        return Err(TrainError::RunDir(crate::rundir::RunDirError::Io {
            path,
            error,
        }));
    }
    record_scale(run, steps, &path)
}

/// Places the checkpoint on the run's one scale (every rating so far, jointly fitted) and says
/// where, with its interval: single matches of a few dozen games are noisy, the scale pools
/// them.
fn record_scale(run: &mut Run, steps: u64, path: &Path) -> Result<(), TrainError> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let name = format!("ckpt-{steps:09}");
    let Some((scale, (elo, (low, high)))) =
        run_scale(&text).and_then(|s| s.get(&name).map(|r| (s, r)))
    else {
        return Ok(());
    };
    let line = format!(
        "scale: {name} {} Elo (95% {} to {}) with {} = 0, from {} rating games of the run",
        elo_text(elo, 0),
        elo_text(low, 0),
        elo_text(high, 0),
        scale.anchor,
        scale.games
    );
    run.progress.line(&line);
    run.log(&line)?;
    run.metrics.scalar("eval/elo_on_scale", elo, steps);
    run.metrics.scalar(
        "eval/elo_on_scale_ci95_half_width",
        (high - low) / 2.0,
        steps,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(wins: u32, draws: u32, losses: u32) -> Rating {
        let score = MatchScore::new(wins, draws, losses);
        Rating {
            opponent: "ckpt-000000010".into(),
            wins,
            draws,
            losses,
            score: score.score().unwrap_or(0.5),
            elo: score.elo(),
        }
    }

    #[test]
    fn gating_promotes_on_score_and_decisive_games_never_on_draws() {
        let (threshold, decisive) = (0.55, 10);
        assert!(
            promotes(None, false, threshold, decisive),
            "the first network"
        );
        assert!(promotes(Some(&rating(8, 2, 2)), true, threshold, decisive));
        // 55% from draws alone: not enough decisive games.
        assert!(!promotes(
            Some(&rating(2, 18, 0)),
            true,
            threshold,
            decisive
        ));
        assert!(
            !promotes(Some(&rating(6, 0, 6)), true, threshold, decisive),
            "50%"
        );
        assert!(
            !promotes(None, true, threshold, decisive),
            "no match, no promotion"
        );
    }

    #[test]
    fn the_run_scale_pools_every_rating_and_is_anchored_at_depth_2() {
        let header = "checkpoint,steps,generation,selfplay_games,opponent,games,wins,draws,losses,score,elo,elo_low,elo_high\n";
        let rows = [
            "ckpt-000000010,10,1,100,greedy,20,15,1,4,0.7750,+215.2,+90.0,+400.0",
            "ckpt-000000010,10,1,100,alphabeta:depth=2,20,2,4,14,0.2000,-240.8,-400.0,-120.0",
            "ckpt-000000020,20,2,200,greedy,20,19,1,0,0.9750,+636.0,+300.0,+inf",
            "ckpt-000000020,20,2,200,alphabeta:depth=2,20,8,6,6,0.5500,+34.9,-80.0,+150.0",
            "ckpt-000000020,20,2,200,ckpt-000000010,20,14,2,4,0.7500,+190.8,+60.0,+330.0",
            // An opponent whose spec holds commas.
            "ckpt-000000020,20,2,200,net:path=a.fnm,sims=8,20,10,0,10,0.5000,+0.0,-150.0,+150.0",
            "a damaged line",
        ];
        let csv = format!("{header}{}\n", rows.join("\n"));
        let scale = run_scale(&csv).unwrap();
        assert_eq!(scale.anchor, "alphabeta:depth=2");
        assert_eq!(scale.games, 120);
        assert_eq!(scale.get("alphabeta:depth=2").unwrap().0, 0.0);
        let (early, (low, high)) = scale.get("ckpt-000000010").unwrap();
        let (late, _) = scale.get("ckpt-000000020").unwrap();
        assert!(early < -100.0 && late > early + 100.0, "{early} {late}");
        assert!(low < early && early < high);
        assert!(scale.get("net:path=a.fnm,sims=8").is_some());
        // Without alpha-beta depth 2 among the opponents, the first one anchors.
        let other = format!("{header}{}\n", rows[0]);
        assert_eq!(run_scale(&other).unwrap().anchor, "greedy");
        assert_eq!(run_scale(header), None);
    }

    #[test]
    fn ratings_append_to_one_csv_with_one_header() {
        let dir = fanorona_testkit::TempDir::new("ratings");
        let path = dir.join("ratings.csv");
        let state = RunState {
            generation: 3,
            games_seen: 96,
            ..RunState::default()
        };
        append_ratings(&path, 10, &state, &[rating(3, 1, 0)]).unwrap();
        append_ratings(&path, 20, &state, &[rating(0, 0, 4), rating(1, 1, 1)]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].starts_with("checkpoint,steps,generation"));
        assert!(lines[1].starts_with("ckpt-000000010,10,3,96,ckpt-000000010,4,3,1,0,0.8750,"));
        assert!(lines[2].contains(",0.0000,-inf,-inf,"), "{}", lines[2]);
        // A directory that cannot hold the file is an error, not silence.
        assert!(append_ratings(&dir.join("missing/ratings.csv"), 1, &state, &[]).is_err());
    }
}
