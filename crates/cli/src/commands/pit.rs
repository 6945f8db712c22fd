//! `fanorona pit`: a match between two players.
//!
//! ```text
//! fanorona pit <A> <B> --games N [--threads T] [--seed S] [--opening-plies K] [--out games.txt] [--json]
//! ```
//!
//! Plays N games (colours alternate; each random opening of K turns is played twice, once with
//! each colour assignment; see `fanorona_arena::arena`), showing a progress bar on a terminal
//! (hidden when standard error is not one), then prints, for player A: wins, draws, losses,
//! score, the Elo difference with its 95% confidence interval, the average game length in turns
//! and the draw reasons.
//!
//! **Infinite Elo.** At a 100% (0%) score the Elo estimate and one bound of its interval are
//! infinite: the text report prints `+inf` (`-inf`), and the JSON report writes `null`.
//!
//! **JSON** (`--json`): one object on one line instead of the text report:
//! `{"a", "b", "games", "wins", "draws", "losses", "score", "elo", "elo_ci95": [lower, upper],
//! "avg_turns", "draw_reasons": {"repetition", "no_progress", "turn_limit"}, "seed",
//! "opening_plies"}`, where `score` is A's mean score in [0, 1], and `elo` and either bound of
//! `elo_ci95` are `null` when infinite.
//!
//! **Think time.** Every turn is timed; the report gives each player's mean, median and
//! longest turn and, for a player with a budget (`ms=`), how many turns ran more than 10% over
//! it, flagging `OVERRUN` when the mean did or more than 1% of the turns did.
//!
//! **Games file** (`--out`): written atomically (a temporary file in the same folder, synced,
//! then renamed), in the format of `fanorona_arena::games_file` (`# fanorona-pit-games v2`):
//! comment lines describing the match, one line per game, and a last line `# crc32 <hex>`,
//! the CRC-32 of every byte before it. A game line has five fields separated by `" | "`:
//!
//! ```text
//! 7 white=A black=B opening=4 | BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1 | d2e3a f4d2w ... | 1-0 all-captured | ms 312 498 ...
//! ```
//!
//! game number (from 1), which player had each colour, how many of the turns were the random
//! opening; the start position (docs/rules.md notation); every turn in notation, opening included,
//! separated by spaces; the result (`1-0`, `0-1`, `1/2-1/2`, or `*` for a game stopped by the
//! runaway guard) and the reason (`all-captured`, `no-legal-move`, `repetition`, `no-progress`,
//! `turn-limit`); the think time in milliseconds of every turn after the opening.

use crate::output::{say, say_raw};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use fanorona_arena::arena::{
    FactoryError, MatchConfig, MatchGame, MatchResult, Side, ThinkStats, play_match,
};
use fanorona_arena::elo::{MatchScore, elo_number};
use fanorona_arena::games_file::{GamesHeader, games_text};
use fanorona_net::Backend;
use fanorona_players::Player;
use fanorona_specs::Settings;
use serde::Serialize;

use super::players::parse_player;
use super::tables::TablesArgs;

/// Arguments of `fanorona pit`.
#[derive(Args, Debug)]
pub struct PitArgs {
    /// Player A, e.g. `alphabeta:depth=4`, `mcts:sims=800`, `greedy`, `random` (results are
    /// given from A's side).
    #[arg(value_name = "A")]
    pub a: String,
    /// Player B.
    #[arg(value_name = "B")]
    pub b: String,
    /// Number of games (1 to 100000).
    #[arg(long, value_name = "N")]
    pub games: u32,
    /// Games played at once, 1 to 1024 (default: the number of CPUs). The results do not
    /// depend on it.
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
    /// Seed of the openings and of the players' random choices.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
    /// Random turns played from the start position before the players take over (0 to 64).
    #[arg(long, value_name = "K", default_value_t = 4)]
    pub opening_plies: u32,
    /// Write every game to this file, atomically: comment lines describing the match, then one
    /// line per game (its number and colours, the start position, the turns in notation, the
    /// result and how it ended, each turn's think time) and a CRC-32 line (docs/formats.md).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print the result as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub tables: TablesArgs,
}

/// Run `fanorona pit`.
pub fn run(args: &PitArgs, backend: Backend) -> Result<()> {
    let registry = fanorona_net::player_registry(backend);
    let spec_a = parse_player(&args.a, &registry)?;
    let spec_b = parse_player(&args.b, &registry)?;
    let config = super::match_settings(args.games, args.threads, args.seed, args.opening_plies)?;
    super::check_table_memory(&spec_a, &spec_b, config.threads.min(config.games as usize))?;
    if let Some(path) = &args.out {
        crate::output::check_output_file("--out", path, crate::output::FileKind::Games)?;
    }
    let registry = registry.with_tables(args.tables.load(config.rules)?);
    let factory = |settings: &Settings| {
        let (settings, registry) = (settings.clone(), registry.clone());
        move |stream: u64| -> Result<Box<dyn Player>, FactoryError> {
            registry
                .build(&settings, stream)
                .map_err(FactoryError::from)
        }
    };
    let (make_a, make_b) = (factory(&spec_a), factory(&spec_b));

    let bar = super::progress_bar(
        Some(u64::from(args.games)),
        "{bar:40} {pos}/{len} games  {msg}  [{elapsed} < {eta}]",
    );
    let result = play_match(&config, &make_a, &make_b, |_, totals| {
        bar.inc(1);
        bar.set_message(format!(
            "A +{} ={} -{}",
            totals.wins, totals.draws, totals.losses
        ));
    });
    bar.finish_and_clear();
    let result = result?;

    // The result is printed whatever becomes of the games file.
    let written = args.out.as_ref().map(|path| {
        write_games(path, &result.games, &spec_a, &spec_b, &config)
            .with_context(|| format!("writing {}", path.display()))
    });
    if args.json {
        let report = PitReport::new(&spec_a, &spec_b, &config, &result);
        say!("{}", serde_json::to_string(&report)?)?;
    } else {
        say_raw!("{}", text_report(&spec_a, &spec_b, &result))?;
        if let (Some(path), Some(Ok(()))) = (&args.out, &written) {
            say!("games written to {}", path.display())?;
        }
    }
    written.transpose().map(|_| ())
}

fn text_report(a: &Settings, b: &Settings, result: &MatchResult) -> String {
    let MatchScore {
        wins,
        draws,
        losses,
    } = result.score;
    let mut out = String::new();
    out.push_str(&format!("A: {a}\nB: {b}\n"));
    out.push_str(&format!(
        "games {}: A wins {wins}, draws {draws}, losses {losses}\n",
        result.score.games()
    ));
    if let Some(s) = result.mean_score() {
        out.push_str(&format!("score {:.1}%\n", 100.0 * s));
    }
    if let Some(e) = result.elo() {
        out.push_str(&format!("Elo {e}\n"));
    }
    out.push_str(&format!(
        "average length {:.1} turns\n",
        result.average_turns()
    ));
    out.push_str(&format!(
        "draws: repetition {}, no-progress {}",
        result.repetition_draws, result.no_progress_draws
    ));
    if result.turn_limit_draws > 0 {
        out.push_str(&format!(", turn limit {}", result.turn_limit_draws));
    }
    out.push('\n');
    for (side, spec) in [(Side::A, a), (Side::B, b)] {
        if let Some(stats) = ThinkStats::of(&result.games, side, spec.millis()) {
            out.push_str(&format!("time per turn {side}: {}\n", stats.summary()));
        }
    }
    out
}

/// What `pit --json` prints: one match, from A's point of view.
#[derive(Debug, Serialize)]
struct PitReport {
    /// Player A's spec.
    a: String,
    /// Player B's spec.
    b: String,
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    /// A's mean score in [0, 1] (`null` with no games).
    score: Option<f64>,
    /// Elo of A over B, rounded to a tenth; `null` when infinite or with no games.
    elo: Option<f64>,
    /// The 95% interval, each bound `null` when infinite.
    elo_ci95: Option<[Option<f64>; 2]>,
    avg_turns: f64,
    draw_reasons: DrawReasons,
    seed: u64,
    opening_plies: u32,
}

#[derive(Debug, Serialize)]
struct DrawReasons {
    repetition: u32,
    no_progress: u32,
    turn_limit: u32,
}

impl PitReport {
    fn new(a: &Settings, b: &Settings, config: &MatchConfig, result: &MatchResult) -> Self {
        let elo = result.elo();
        PitReport {
            a: a.to_string(),
            b: b.to_string(),
            games: result.score.games(),
            wins: result.score.wins,
            draws: result.score.draws,
            losses: result.score.losses,
            score: result.mean_score(),
            elo: elo.and_then(|e| elo_number(e.elo)),
            elo_ci95: elo.map(|e| [elo_number(e.lower), elo_number(e.upper)]),
            avg_turns: (result.average_turns() * 100.0).round() / 100.0,
            draw_reasons: DrawReasons {
                repetition: result.repetition_draws,
                no_progress: result.no_progress_draws,
                turn_limit: result.turn_limit_draws,
            },
            seed: config.seed,
            opening_plies: config.opening_plies,
        }
    }
}

/// Writes the games file atomically.
fn write_games(
    path: &Path,
    games: &[MatchGame],
    a: &Settings,
    b: &Settings,
    config: &MatchConfig,
) -> Result<()> {
    let header = GamesHeader {
        a: a.to_string(),
        b: b.to_string(),
        seed: config.seed,
        opening_plies: config.opening_plies,
        rules: config.rules,
    };
    fanorona_data::write_atomic(path, games_text(&header, games).as_bytes())?;
    Ok(())
}
