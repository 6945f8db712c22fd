//! Rating checkpoints: matches of the network (with search) against fixed baselines and the
//! previous rated network, appended to `ratings.csv`.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use fanorona_engine::Rules;
use fanorona_net::{InferenceModel, net_player};
use fanorona_search::arena::FactoryError;
use fanorona_search::elo::MatchScore;
use fanorona_search::players::{MctsConfig, Player, PlayerSpec};
use fanorona_search::{MatchConfig, MatchResult, play_match};

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
    pub elo: Option<(f64, f64, f64)>,
}

impl Rating {
    fn from_result(opponent: &str, result: &MatchResult) -> Rating {
        let score: MatchScore = result.score;
        Rating {
            opponent: opponent.to_string(),
            wins: score.wins,
            draws: score.draws,
            losses: score.losses,
            score: result.mean_score().unwrap_or(0.5),
            elo: result.elo().map(|e| (e.elo, e.lower, e.upper)),
        }
    }

    /// Games decided by a win or a loss.
    pub fn decisive(&self) -> u32 {
        self.wins + self.losses
    }
}

/// Settings of the network player in rating games.
pub fn rating_player_config(simulations: u32, seed: u64) -> MctsConfig {
    MctsConfig {
        simulations,
        millis: None,
        c_puct: fanorona_net::player::DEFAULT_C_PUCT,
        seed,
        batch_size: fanorona_net::player::DEFAULT_BATCH,
    }
}

/// Play `games` games of the network `model` against `opponent` (a classical player spec or
/// another network) and return the rating.
#[allow(clippy::too_many_arguments)]
pub fn rate(
    model: &InferenceModel,
    opponent_name: &str,
    opponent: Opponent<'_>,
    games: u32,
    simulations: u32,
    opening_plies: u32,
    rules: Rules,
    seed: u64,
) -> Result<Rating, String> {
    let config = MatchConfig {
        games,
        threads: 2,
        seed,
        opening_plies,
        rules,
        ..MatchConfig::default()
    };
    let make_net = |stream: u64| -> Result<Box<dyn Player>, FactoryError> {
        Ok(Box::new(net_player(
            model.clone(),
            rating_player_config(simulations, stream),
            "net",
        )))
    };
    let result = match opponent {
        Opponent::Spec(spec) => {
            let make =
                |stream: u64| -> Result<Box<dyn Player>, FactoryError> { Ok(spec.build(stream)?) };
            play_match(&config, &make_net, &make, |_, _| {})
        }
        Opponent::Net(other) => {
            let make = |stream: u64| -> Result<Box<dyn Player>, FactoryError> {
                Ok(Box::new(net_player(
                    other.clone(),
                    rating_player_config(simulations, stream),
                    "previous",
                )))
            };
            play_match(&config, &make_net, &make, |_, _| {})
        }
    }
    .map_err(|e| e.to_string())?;
    Ok(Rating::from_result(opponent_name, &result))
}

/// Who the network plays in a rating match.
pub enum Opponent<'a> {
    /// A classical player.
    Spec(&'a PlayerSpec),
    /// An earlier network.
    Net(&'a InferenceModel),
}

fn fmt_elo(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}")
    } else if x > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

/// Append ratings of the checkpoint after `steps` optimiser steps to `ratings.csv`
/// (with a header when the file is new).
pub fn append_ratings(
    path: &Path,
    steps: u64,
    generation: u64,
    games_seen: u64,
    ratings: &[Rating],
) {
    let new = !path.exists();
    let Ok(mut file) = OpenOptions::new().create(true).append(true).open(path) else {
        return;
    };
    if new {
        let _ = writeln!(
            file,
            "checkpoint,steps,generation,selfplay_games,opponent,games,wins,draws,losses,score,elo,elo_low,elo_high"
        );
    }
    for r in ratings {
        let (elo, low, high) = r.elo.unwrap_or((f64::NAN, f64::NAN, f64::NAN));
        let _ = writeln!(
            file,
            "ckpt-{steps:09},{steps},{generation},{games_seen},{},{},{},{},{},{:.4},{},{},{}",
            r.opponent,
            r.wins + r.draws + r.losses,
            r.wins,
            r.draws,
            r.losses,
            r.score,
            fmt_elo(elo),
            fmt_elo(low),
            fmt_elo(high)
        );
    }
    let _ = file.sync_all();
}
