//! `fanorona rate`: many players on one Elo scale, from games that are stored and reused.
//!
//! ```text
//! fanorona rate [PLAYER]... [--panel SPEC]... [--ms MS | --sims N] [--games N] [--run-dir DIR]
//!               [--store DIR] [--plot FILE.svg] [--round-robin] [--stored-only] [--json]
//! ```
//!
//! The harness itself (who plays whom, the time control, the store, the fit) is
//! `fanorona_arena::harness`; this module reads the arguments, lists a run's checkpoints, and
//! prints: a table on standard output (or one JSON object with `--json`), and with `--run-dir`
//! and `--plot FILE` an SVG chart of each checkpoint's Elo against the run's training time,
//! with the panel as reference lines.

mod plot;

use crate::output::{say, say_raw};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use fanorona_arena::arena::{MatchConfig, ThinkStats};
use fanorona_arena::elo::{elo_number, elo_text};
use fanorona_arena::harness::{
    self, ANCHOR, Entrant, Event, Field, Played, Row, RunCheckpoint, Scale, TimeControl,
};
use fanorona_arena::store::Store;
use fanorona_net::Backend;
use fanorona_train::RunLocation;
use serde::Serialize;

use super::tables::TablesArgs;
use plot::CurvePoint;

/// Arguments of `fanorona rate`.
#[derive(Args, Debug)]
pub struct RateArgs {
    /// Players to rate: specs (`net:path=model.fnm`, `mcts`, ...) or model files (`*.fnm`,
    /// `*.ckpt`).
    #[arg(value_name = "PLAYER")]
    pub players: Vec<String>,
    /// A panel member (repeat for several; default: alphabeta:depth=2, alphabeta:depth=3 and
    /// alphabeta at the time control). The anchor, alphabeta:depth=2, is always in the panel.
    #[arg(long = "panel", value_name = "SPEC")]
    pub panel: Vec<String>,
    /// Milliseconds per turn for every player without a limit of its own (default 500).
    #[arg(long, value_name = "MS", conflicts_with = "sims")]
    pub ms: Option<u64>,
    /// Simulations per step for network and MCTS players without a limit of their own
    /// (instead of --ms).
    #[arg(long, value_name = "N")]
    pub sims: Option<u32>,
    /// Games per pairing (1 to 100000).
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub games: u32,
    /// Also rate every checkpoint of this training run (and keep the games in it): a folder,
    /// or the URL of a run on an object store (its checkpoints are downloaded first).
    #[arg(long, value_name = "DIR|URL")]
    pub run_dir: Option<String>,
    /// Folder of stored games (default: `<run-dir>/rating-games`, else `rating-games`).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Write the chart of Elo against training time for --run-dir to this SVG file.
    #[arg(long, value_name = "FILE", requires = "run_dir")]
    pub plot: Option<PathBuf>,
    /// Play the rated players against each other too, not only against the panel.
    #[arg(long)]
    pub round_robin: bool,
    /// Fit the games already stored; play none.
    #[arg(long)]
    pub stored_only: bool,
    /// Games played at once (default: the number of CPUs).
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
    /// Seed of the openings and of the players' random choices.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Random turns played from the start position before the players take over (0 to 64).
    #[arg(long, value_name = "K", default_value_t = 4)]
    pub opening_plies: u32,
    /// Print the result as one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub tables: TablesArgs,
}

/// Run `fanorona rate`.
pub fn run(args: &RateArgs, backend: Backend) -> Result<()> {
    if let Some(path) = &args.plot {
        crate::output::check_output_file("--plot", path, crate::output::FileKind::Chart)?;
    }
    let control = time_control(args)?;
    let config = match_config(args)?;
    let registry = fanorona_net::player_registry(backend);
    let field = Field {
        panel: args.panel.clone(),
        players: args.players.iter().map(|p| player_text(p)).collect(),
        checkpoints: match &args.run_dir {
            Some(run) => run_checkpoints(run)?,
            None => Vec::new(),
        },
    };
    let entrants = harness::entrants(&field, control, &registry, &mut |note| {
        eprintln!("note: {note}")
    })?;
    let store_dir = match (&args.store, args.run_dir.as_deref().map(RunLocation::parse)) {
        (Some(dir), _) => dir.clone(),
        (None, Some(RunLocation::Local(run))) => run.join("rating-games"),
        (None, Some(RunLocation::Store(url))) => {
            fanorona_train::store::default_cache_dir(&url).join("rating-games")
        }
        (None, None) => PathBuf::from("rating-games"),
    };
    let largest = |skip: Option<usize>| {
        (0..entrants.len())
            .filter(|&i| Some(i) != skip)
            .max_by_key(|&i| super::table_mebibytes(&entrants[i].settings))
    };
    if let (Some(a), Some(b)) = (largest(None), largest(largest(None))) {
        let threads = config.threads.min(config.games as usize);
        super::check_table_memory(&entrants[a].settings, &entrants[b].settings, threads)?;
    }
    let store = Store::open(&store_dir)?;
    let registry = if args.stored_only {
        registry
    } else {
        registry.with_tables(args.tables.load(config.rules)?)
    };
    let schedule = harness::schedule(&entrants, args.round_robin);
    let mut played = Vec::with_capacity(schedule.len());
    let bar = super::progress_bar(
        None,
        "{bar:30} {pos}/{len} games  {msg}  [{elapsed} < {eta}]",
    );
    for (n, &pair) in schedule.iter().enumerate() {
        let label = format!("{}/{}", n + 1, schedule.len());
        played.push(harness::play_pairing(
            &entrants,
            pair,
            harness::PairingSettings {
                config: &config,
                store: &store,
                registry: &registry,
                stored_only: args.stored_only,
            },
            &label,
            &mut |event| show(&bar, event),
        )?);
    }
    let scale = harness::entrants_scale(&entrants, &played)?;
    let rows = harness::rows(&entrants, &played, &scale);
    if let Some(path) = &args.plot {
        write_plot(path, args.run_dir.as_deref(), &rows, &entrants)?;
    }
    if args.json {
        let report = Report::new(&rows, &played, &entrants, &scale, control, store.dir());
        say!("{}", serde_json::to_string(&report)?)?;
    } else {
        say_raw!(
            "{}",
            table(&rows, &entrants, &played, &scale, control, store.dir())
        )?;
        if let Some(path) = &args.plot {
            say!("chart written to {}", path.display())?;
        }
    }
    Ok(())
}

/// What the harness says, on standard error: a line per pairing played, its games on a bar.
fn show(bar: &indicatif::ProgressBar, event: Event<'_>) {
    match event {
        Event::Pairing {
            label,
            a,
            b,
            stored,
            playing,
        } => {
            eprintln!(
                "pairing {label}: {} vs {}: {stored} games stored, playing {playing}",
                a.label, b.label
            );
            bar.reset();
            bar.set_length(u64::from(playing));
            bar.set_message(format!("{} vs {}", a.label, b.label));
        }
        Event::Game => bar.inc(1),
        Event::Done => bar.finish_and_clear(),
        Event::Warning(w) => bar.suspend(|| eprintln!("warning: {w}")),
    }
}

fn time_control(args: &RateArgs) -> Result<TimeControl> {
    Ok(match (args.ms, args.sims) {
        (_, Some(0)) => bail!("--sims must be at least 1"),
        (_, Some(n)) => TimeControl::Simulations(n),
        (Some(ms), None) if !(1..=600_000).contains(&ms) => {
            bail!("--ms must be between 1 and 600000 (ten minutes), got {ms}")
        }
        (Some(ms), None) => TimeControl::Millis(ms),
        (None, None) => TimeControl::Millis(500),
    })
}

fn match_config(args: &RateArgs) -> Result<MatchConfig> {
    super::match_settings(args.games, args.threads, args.seed, args.opening_plies)
}

/// A player argument as a spec: an evaluation (an `.fne` file, or a checkpoint of an
/// evaluation run) means `alphabeta:eval=<file>`, another model file `net:path=<file>`.
fn player_text(arg: &str) -> String {
    let path = Path::new(arg);
    let is_file = !arg.contains(':')
        && (path.is_file() || [".fnm", ".ckpt", ".fne"].iter().any(|s| arg.ends_with(s)));
    if !is_file {
        arg.to_string()
    } else if arg.ends_with(".fne") || fanorona_eval::EvalWeights::load_any(path).is_ok() {
        format!("alphabeta:eval={arg}")
    } else {
        format!("net:path={arg}")
    }
}

/// The checkpoints of a run (a folder or a store's URL, downloaded first), by steps, with the
/// run's working time when each was saved. A checkpoint that cannot be read (damaged, cut) is
/// left out with a warning naming it and why; the others are rated.
fn run_checkpoints(run: &str) -> Result<Vec<RunCheckpoint>> {
    let found = fanorona_train::rundir::fetch_checkpoints(&RunLocation::parse(run), None)
        .with_context(|| format!("--run-dir {run}"))?;
    let mut kept = Vec::with_capacity(found.len());
    for (steps, path) in found {
        let player = match checkpoint_player(&path) {
            Ok(player) => player,
            Err(e) => {
                eprintln!("warning: --run-dir {run}: left out: {e}");
                continue;
            }
        };
        kept.push(RunCheckpoint {
            steps,
            seconds: checkpoint_seconds(&path),
            player,
            path,
        });
    }
    anyhow::ensure!(
        !kept.is_empty(),
        "--run-dir {run}: no checkpoint of the run can be read"
    );
    Ok(kept)
}

/// The player of a run's checkpoint, told by what the checkpoint holds (read and checked
/// whole): `alphabeta:eval=` for an evaluation run's, `net:path=` for a network run's.
fn checkpoint_player(path: &Path) -> Result<String> {
    use fanorona_data::container;
    let payload = container::read(
        path,
        &container::CHECKPOINT_MAGIC,
        container::CHECKPOINT_VERSION,
    )?;
    let sections = container::Sections::parse(path, &payload)?;
    Ok(if sections.get("eval").is_some() {
        format!("alphabeta:eval={}", path.display())
    } else {
        format!("net:path={}", path.display())
    })
}

/// The run's working time when a checkpoint was saved, if it records one.
fn checkpoint_seconds(path: &Path) -> Option<f64> {
    let extra = fanorona_net::checkpoint_extra(path).ok()?;
    let state: fanorona_train::RunState = serde_json::from_slice(&extra).ok()?;
    (state.seconds > 0.0).then_some(state.seconds)
}

fn table(
    rows: &[Row],
    entrants: &[Entrant],
    played: &[Played],
    scale: &Scale,
    control: TimeControl,
    store: &Path,
) -> String {
    let names: Vec<&str> = rows
        .iter()
        .map(|r| entrants[r.index].label.as_str())
        .collect();
    let width = names.iter().map(|n| n.len()).max().unwrap_or(6).max(6);
    let mut out = format!(
        "{:>4}  {:<width$}  {:>6}  {:>17}  {:>6}  {:>6}  {:>14}\n",
        "rank", "player", "Elo", "95% interval", "games", "score", "ms/turn"
    );
    let mut overruns = Vec::new();
    for (rank, (r, name)) in rows.iter().zip(&names).enumerate() {
        let interval = if r.anchor {
            "anchor".to_string()
        } else {
            format!(
                "{} to {}",
                elo_text(r.interval.0, 0),
                elo_text(r.interval.1, 0)
            )
        };
        let time = r.time.map_or("-".to_string(), |t| match t.budget_ms {
            Some(b) => format!(
                "{:.0} of {b}{}",
                t.mean_ms,
                if t.overran() { " !" } else { "" }
            ),
            None => format!("{:.0}", t.mean_ms),
        });
        if let Some(t) = r.time.filter(ThinkStats::overran) {
            overruns.push(format!("{name}: {}", t.summary()));
        }
        out.push_str(&format!(
            "{:>4}  {name:<width$}  {:>6}  {interval:>17}  {:>6}  {:>6}  {time:>14}\n",
            rank + 1,
            elo_text(r.elo, 0),
            r.games,
            r.score.map_or("-".into(), |s| format!("{:.1}%", 100.0 * s)),
        ));
    }
    let total: usize = played.iter().map(|p| p.games.len()).sum();
    let now: u32 = played.iter().map(|p| p.played_now).sum();
    out.push_str(&format!(
        "{total} games in {} pairings ({now} played now, the rest from {}); {control}; anchor {ANCHOR} = 0; draw Elo {:.0}\n",
        played.len(),
        store.display(),
        scale.fit.draw_elo
    ));
    for o in overruns {
        out.push_str(&format!("over budget: {o}\n"));
    }
    out
}

/// What `rate --json` prints.
#[derive(Serialize)]
struct Report {
    anchor: &'static str,
    time_control: ControlJson,
    draw_elo: f64,
    store: String,
    players: Vec<PlayerJson>,
    pairings: Vec<PairingJson>,
}

#[derive(Serialize)]
struct ControlJson {
    ms: Option<u64>,
    sims: Option<u32>,
}

#[derive(Serialize)]
struct PlayerJson {
    name: String,
    spec: String,
    panel: bool,
    /// Rounded to a tenth.
    elo: Option<f64>,
    ci95: [Option<f64>; 2],
    games: u32,
    score: Option<f64>,
    steps: Option<u64>,
    training_seconds: Option<f64>,
    time: Option<TimeJson>,
}

#[derive(Serialize)]
struct TimeJson {
    mean_ms: f64,
    median_ms: u32,
    max_ms: u32,
    budget_ms: Option<u64>,
    turns: usize,
    turns_over: usize,
    overran: bool,
}

#[derive(Serialize)]
struct PairingJson {
    a: String,
    b: String,
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    played_now: u32,
}

impl Report {
    fn new(
        rows: &[Row],
        played: &[Played],
        entrants: &[Entrant],
        scale: &Scale,
        control: TimeControl,
        store: &Path,
    ) -> Report {
        let players = rows
            .iter()
            .map(|r| {
                let e = &entrants[r.index];
                PlayerJson {
                    name: e.label.clone(),
                    spec: e.settings.to_string(),
                    panel: e.panel,
                    elo: elo_number(r.elo),
                    ci95: [elo_number(r.interval.0), elo_number(r.interval.1)],
                    games: r.games,
                    score: r.score.map(|s| (s * 10_000.0).round() / 10_000.0),
                    steps: e.steps,
                    training_seconds: e.seconds.map(|s| (s * 1000.0).round() / 1000.0),
                    time: r.time.map(|t| TimeJson {
                        mean_ms: (t.mean_ms * 10.0).round() / 10.0,
                        median_ms: t.median_ms,
                        max_ms: t.max_ms,
                        budget_ms: t.budget_ms,
                        turns: t.turns,
                        turns_over: t.over,
                        overran: t.overran(),
                    }),
                }
            })
            .collect();
        let pairings = played
            .iter()
            .map(|p| {
                let s = p.score();
                PairingJson {
                    a: entrants[p.a].label.clone(),
                    b: entrants[p.b].label.clone(),
                    games: s.games(),
                    wins: s.wins,
                    draws: s.draws,
                    losses: s.losses,
                    played_now: p.played_now,
                }
            })
            .collect();
        let (ms, sims) = match control {
            TimeControl::Millis(ms) => (Some(ms), None),
            TimeControl::Simulations(n) => (None, Some(n)),
        };
        Report {
            anchor: ANCHOR,
            time_control: ControlJson { ms, sims },
            draw_elo: (scale.fit.draw_elo * 10.0).round() / 10.0,
            store: store.display().to_string(),
            players,
            pairings,
        }
    }
}

/// The chart of the run's checkpoints against training time, the panel as reference lines.
fn write_plot(path: &Path, run: Option<&str>, rows: &[Row], entrants: &[Entrant]) -> Result<()> {
    let mut points: Vec<(u64, CurvePoint)> = rows
        .iter()
        .filter_map(|r| {
            let e = &entrants[r.index];
            Some((
                e.steps?,
                CurvePoint {
                    minutes: e.seconds? / 60.0,
                    elo: r.elo,
                    lower: r.interval.0,
                    upper: r.interval.1,
                },
            ))
        })
        .collect();
    let undated = rows
        .iter()
        .filter(|r| entrants[r.index].steps.is_some() && entrants[r.index].seconds.is_none())
        .count();
    if undated > 0 {
        eprintln!(
            "note: {undated} checkpoints record no training time (written before it was kept) and are left off the chart"
        );
    }
    points.sort_by_key(|(steps, _)| *steps);
    let points: Vec<CurvePoint> = points.into_iter().map(|(_, p)| p).collect();
    let references: Vec<(String, f64)> = rows
        .iter()
        .filter(|r| entrants[r.index].panel)
        .map(|r| (entrants[r.index].label.clone(), r.elo))
        .collect();
    let title = format!(
        "Elo over training time: {}",
        run.map_or(String::new(), str::to_string)
    );
    let text = plot::svg(&title, &points, &references);
    fanorona_data::write_atomic(path, text.as_bytes())
        .with_context(|| format!("writing the chart {}", path.display()))
}
