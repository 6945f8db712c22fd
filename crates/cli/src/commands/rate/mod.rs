//! `fanorona rate`: many players on one Elo scale, from games that are stored and reused.
//!
//! ```text
//! fanorona rate [PLAYER]... [--panel SPEC]... [--ms MS | --sims N] [--games N] [--run-dir DIR]
//!               [--store DIR] [--plot FILE.svg] [--round-robin] [--stored-only] [--json]
//! ```
//!
//! **Who plays whom.** Every player meets every member of a fixed *panel* (default
//! `alphabeta:depth=2`, `alphabeta:depth=3` and `alphabeta` at the time control), and the panel
//! members meet each other; `--round-robin` adds the players' games among themselves. Each
//! pairing is a match of `--games` games with paired random openings and colours swapped (as
//! `fanorona pit`), on every core. A PLAYER is a spec or a model file (`*.fnm` exported,
//! `*.ckpt` checkpoint, both meaning `net:path=<file>`); `--run-dir` adds every checkpoint of a
//! training run.
//!
//! **Equal time.** `--ms MS` (default 500) gives every player without a limit of its own
//! (`ms`, `sims` or `depth`) MS milliseconds a turn; `--sims N` gives the network and MCTS
//! players N simulations a step instead (and alpha-beta without a limit depth 4). The time each
//! player really took per turn is reported, and a player that ran more than 10% over its
//! budget (on average, or on more than 1% of its turns) is flagged.
//!
//! **One scale.** The ratings are the maximum-likelihood fit over every game of every pairing
//! (`fanorona_players::rating`: BayesElo's model with a draw Elo, two virtual draws per pair),
//! anchored at `alphabeta:depth=2` = 0, with 95% intervals.
//!
//! **Stored games.** Each pairing's games are kept in the store (default
//! `<run-dir>/rating-games/`, else `rating-games/`) as a pit games file, saved after every game,
//! and reused: a later run with more players plays only their games, more `--games` plays only
//! the missing ones, and an interrupted run goes on where it stopped. A model is known by its
//! weights, not its path. `--stored-only` fits what is stored without playing.
//!
//! **Output.** A table on standard output (or one JSON object with `--json`), and with
//! `--run-dir` and `--plot FILE` an SVG chart of each checkpoint's Elo against the run's
//! training time, with the panel as reference lines.

mod plot;
mod store;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use fanorona_players::arena::{
    FactoryError, GameResult, MatchConfig, MatchGame, Side, ThinkStats, play_match,
};
use fanorona_players::elo::{MatchScore, elo_number, elo_text};
use fanorona_players::games_file::GamesHeader;
use fanorona_players::rating::{Fit, FitOptions, Pairing, fit};
use fanorona_players::tables::Tables;
use fanorona_players::{Player, PlayerSpec};
use fanorona_train::RunLocation;
use serde::Serialize;

use super::pit::budget_ms;
use super::players::{TablesArgs, make_player, parse_spec};
use plot::CurvePoint;
use store::Store;

/// The player every rating is relative to.
pub const ANCHOR: &str = "alphabeta:depth=2";

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

/// How much thinking each player gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimeControl {
    Millis(u64),
    Simulations(u32),
}

/// A player on the scale.
#[derive(Clone, Debug)]
struct Entrant {
    /// Shown in the table.
    label: String,
    /// What plays.
    spec: PlayerSpec,
    /// Its identity in the store.
    key: String,
    /// A panel member (the rest are rated players).
    panel: bool,
    /// For a run's checkpoint: its training steps and the run's working time then.
    steps: Option<u64>,
    seconds: Option<f64>,
}

/// A pairing's games.
struct Played {
    a: usize,
    b: usize,
    games: Vec<MatchGame>,
    played_now: u32,
}

/// Run `fanorona rate`.
pub fn run(args: &RateArgs) -> Result<()> {
    let control = time_control(args)?;
    let config = match_config(args)?;
    let entrants = entrants(args, control)?;
    let anchor = entrants
        .iter()
        .position(|e| e.spec.to_string() == ANCHOR)
        .context("the anchor is missing from the panel")?;
    if entrants.len() < 2 {
        bail!("nothing to rate: give players, --run-dir or --panel members");
    }
    let store_dir = match (&args.store, args.run_dir.as_deref().map(RunLocation::parse)) {
        (Some(dir), _) => dir.clone(),
        (None, Some(RunLocation::Local(run))) => run.join("rating-games"),
        (None, Some(RunLocation::Store(url))) => {
            fanorona_train::store::default_cache_dir(&url).join("rating-games")
        }
        (None, None) => PathBuf::from("rating-games"),
    };
    let store = Store::open(&store_dir)?;
    let tables = if args.stored_only {
        None
    } else {
        args.tables.load(config.rules)?
    };
    let schedule = schedule(&entrants, args.round_robin);
    let mut played = Vec::with_capacity(schedule.len());
    for (n, &(a, b)) in schedule.iter().enumerate() {
        let label = format!("{}/{}", n + 1, schedule.len());
        played.push(play_pairing(
            &entrants,
            (a, b),
            &config,
            &store,
            &tables,
            args,
            &label,
        )?);
    }
    let pairings: Vec<Pairing> = played
        .iter()
        .map(|p| Pairing {
            a: p.a,
            b: p.b,
            score: score_of(&p.games),
        })
        .collect();
    let fitted = fit(entrants.len(), &pairings, &FitOptions::anchored(anchor)).map_err(|e| {
        anyhow::anyhow!("cannot place the players on one scale: {e} (players are numbered from 0 in the order of the table: {})",
            entrants.iter().map(|e| e.label.as_str()).collect::<Vec<_>>().join(", "))
    })?;
    let rows = rows(&entrants, &played, &fitted);
    if let Some(path) = &args.plot {
        write_plot(path, args.run_dir.as_deref(), &rows, &entrants)?;
    }
    if args.json {
        let report = Report::new(&rows, &played, &entrants, &fitted, control, store.dir());
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!(
            "{}",
            table(&rows, &entrants, &played, &fitted, control, store.dir())
        );
        if let Some(path) = &args.plot {
            println!("chart written to {}", path.display());
        }
    }
    Ok(())
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

/// `spec` with the time control added when it has no limit of its own.
fn with_control(spec: &PlayerSpec, control: TimeControl) -> Result<PlayerSpec> {
    let limited = ["ms", "sims", "depth"]
        .iter()
        .any(|k| spec.get(k).is_some());
    let addition = match (spec.kind(), control) {
        _ if limited => None,
        ("alphabeta" | "mcts" | "net", TimeControl::Millis(ms)) => Some(format!("ms={ms}")),
        ("mcts" | "net", TimeControl::Simulations(n)) => Some(format!("sims={n}")),
        ("alphabeta", TimeControl::Simulations(_)) => Some("depth=4".to_string()),
        _ => None,
    };
    let text = match addition {
        None => return Ok(spec.clone()),
        Some(a) if spec.params().is_empty() => format!("{spec}:{a}"),
        Some(a) => format!("{spec},{a}"),
    };
    parse_spec(&text)
}

/// A player argument as a spec: a model file means `net:path=<file>`.
fn player_text(arg: &str) -> String {
    let path = Path::new(arg);
    let is_model =
        !arg.contains(':') && (path.is_file() || arg.ends_with(".fnm") || arg.ends_with(".ckpt"));
    if is_model {
        format!("net:path={arg}")
    } else {
        arg.to_string()
    }
}

/// A spec's identity in the store: a model file's path replaced by its weights' fingerprint.
fn identity(spec: &PlayerSpec) -> Result<String> {
    let mut text = spec.kind().to_string();
    for (i, (k, v)) in spec.params().iter().enumerate() {
        let part = if k == "path" {
            // The model is already loaded (and cached) by `parse_spec`: no second read.
            let print = fanorona_net::load_model_cached(Path::new(v))
                .and_then(|m| m.native_weights())
                .map(|w| w.fingerprint())
                .with_context(|| format!("reading the model {v}"))?;
            format!("model={print:016x}")
        } else {
            format!("{k}={v}")
        };
        text.push(if i == 0 { ':' } else { ',' });
        text.push_str(&part);
    }
    Ok(text)
}

fn entrant(text: &str, control: TimeControl, panel: bool) -> Result<Entrant> {
    let spec = with_control(&parse_spec(text)?, control)?;
    Ok(Entrant {
        label: spec.to_string(),
        key: identity(&spec)?,
        spec,
        panel,
        steps: None,
        seconds: None,
    })
}

/// The panel, the players and the run's checkpoints, without duplicates.
fn entrants(args: &RateArgs, control: TimeControl) -> Result<Vec<Entrant>> {
    let mut panel: Vec<String> = if args.panel.is_empty() {
        ["alphabeta:depth=2", "alphabeta:depth=3", "alphabeta"]
            .map(String::from)
            .to_vec()
    } else {
        args.panel.clone()
    };
    if !panel.iter().any(|p| p.trim() == ANCHOR) {
        panel.insert(0, ANCHOR.to_string());
    }
    let mut list: Vec<Entrant> = Vec::new();
    let add = |e: Entrant, list: &mut Vec<Entrant>| {
        if let Some(same) = list.iter().find(|o| o.key == e.key) {
            eprintln!(
                "note: {} is the same player as {}; rated once",
                e.label, same.label
            );
        } else {
            list.push(e);
        }
    };
    for text in &panel {
        let e = entrant(text, control, true).with_context(|| format!("--panel {text}"))?;
        add(e, &mut list);
    }
    if let Some(run) = &args.run_dir {
        let checkpoints = match RunLocation::parse(run) {
            RunLocation::Local(dir) => run_checkpoints(&dir)?,
            RunLocation::Store(url) => fanorona_train::rundir::fetch_checkpoints(&url, None)
                .with_context(|| format!("--run-dir {url}"))?,
        };
        for (steps, path) in checkpoints {
            let mut e = entrant(&format!("net:path={}", path.display()), control, false)?;
            e.label = format!("ckpt-{steps}");
            e.steps = Some(steps);
            e.seconds = checkpoint_seconds(&path);
            add(e, &mut list);
        }
    }
    for arg in &args.players {
        let e =
            entrant(&player_text(arg), control, false).with_context(|| format!("player {arg}"))?;
        add(e, &mut list);
    }
    Ok(list)
}

/// The checkpoints of a run, by steps.
fn run_checkpoints(run: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let dir = run.join("checkpoints");
    let entries = std::fs::read_dir(&dir).with_context(|| {
        format!(
            "--run-dir {}: no checkpoints (cannot list {})",
            run.display(),
            dir.display()
        )
    })?;
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(steps) = name
            .to_str()
            .and_then(|n| n.strip_prefix("ckpt-"))
            .and_then(|n| n.strip_suffix(".ckpt"))
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            found.push((steps, entry.path()));
        }
    }
    if found.is_empty() {
        bail!(
            "--run-dir {}: no checkpoints in {}",
            run.display(),
            dir.display()
        );
    }
    found.sort();
    Ok(found)
}

/// The run's working time when a checkpoint was saved, if it records one.
fn checkpoint_seconds(path: &Path) -> Option<f64> {
    let extra = fanorona_net::checkpoint_extra(path).ok()?;
    let state: fanorona_train::RunState = serde_json::from_slice(&extra).ok()?;
    (state.seconds > 0.0).then_some(state.seconds)
}

/// The pairings: panel among itself, each player against the panel, and with `round_robin`
/// the players among themselves.
fn schedule(entrants: &[Entrant], round_robin: bool) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (i, a) in entrants.iter().enumerate() {
        for (j, b) in entrants.iter().enumerate().skip(i + 1) {
            let both_panel = a.panel && b.panel;
            let one_panel = a.panel != b.panel;
            if both_panel || round_robin || one_panel {
                // The rated player is A, so its results read from its side.
                pairs.push(if a.panel && !b.panel { (j, i) } else { (i, j) });
            }
        }
    }
    pairs
}

/// The games of one pairing: those stored, plus (unless `--stored-only`) the missing ones,
/// played now and saved after each game.
fn play_pairing(
    entrants: &[Entrant],
    (a, b): (usize, usize),
    config: &MatchConfig,
    store: &Store,
    tables: &Tables,
    args: &RateArgs,
    label: &str,
) -> Result<Played> {
    let (ea, eb) = (&entrants[a], &entrants[b]);
    let header = GamesHeader {
        a: ea.spec.to_string(),
        b: eb.spec.to_string(),
        seed: config.seed,
        opening_plies: config.opening_plies,
        rules: config.rules,
    };
    let slot = store.slot(&ea.key, &eb.key, header);
    let mut games = slot.load(config)?;
    let stored = games.len() as u32;
    if stored >= config.games || args.stored_only {
        return Ok(Played {
            a,
            b,
            games,
            played_now: 0,
        });
    }
    eprintln!(
        "pairing {label}: {} vs {}: {stored} games stored, playing {}",
        ea.label,
        eb.label,
        config.games - stored
    );
    let factory = |spec: &PlayerSpec| {
        let (spec, tables) = (spec.clone(), tables.clone());
        move |stream: u64| -> Result<Box<dyn Player>, FactoryError> {
            make_player(&spec, stream, &tables).map_err(FactoryError::from)
        }
    };
    let (make_a, make_b) = (factory(&ea.spec), factory(&eb.spec));
    let bar = super::progress_bar(
        Some(u64::from(config.games - stored)),
        "{bar:30} {pos}/{len} games  {msg}  [{elapsed} < {eta}]",
    );
    bar.set_message(format!("{} vs {}", ea.label, eb.label));
    let mut pending: BTreeMap<u32, MatchGame> = BTreeMap::new();
    let mut save_error = None;
    let extend = MatchConfig {
        first_game: stored,
        ..*config
    };
    let result = play_match(&extend, &make_a, &make_b, |game, _| {
        bar.inc(1);
        pending.insert(game.index, game.clone());
        let before = games.len();
        while let Some(next) = pending.remove(&(games.len() as u32)) {
            games.push(next);
        }
        if games.len() > before && save_error.is_none() {
            save_error = slot.save(&games).err();
        }
    });
    bar.finish_and_clear();
    result.with_context(|| format!("{} vs {}", ea.label, eb.label))?;
    if let Some(e) = save_error {
        return Err(e);
    }
    Ok(Played {
        a,
        b,
        played_now: config.games - stored,
        games,
    })
}

fn score_of(games: &[MatchGame]) -> MatchScore {
    let mut score = MatchScore::default();
    for g in games {
        match g.result_for_a() {
            GameResult::Win => score.wins += 1,
            GameResult::Draw => score.draws += 1,
            GameResult::Loss => score.losses += 1,
        }
    }
    score
}

/// One line of the table.
struct Row {
    index: usize,
    elo: f64,
    interval: (f64, f64),
    games: u32,
    score: Option<f64>,
    time: Option<ThinkStats>,
}

fn rows(entrants: &[Entrant], played: &[Played], fitted: &Fit) -> Vec<Row> {
    let mut rows: Vec<Row> = entrants
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut total = MatchScore::default();
            let mut times = Vec::new();
            for p in played.iter().filter(|p| p.a == i || p.b == i) {
                let s = score_of(&p.games);
                let (side, mine) = if p.a == i {
                    (Side::A, s)
                } else {
                    (Side::B, MatchScore::new(s.losses, s.draws, s.wins))
                };
                total.wins += mine.wins;
                total.draws += mine.draws;
                total.losses += mine.losses;
                times.extend(p.games.iter().flat_map(|g| g.think_ms_of(side)));
            }
            Row {
                index: i,
                elo: fitted.elo[i],
                interval: fitted.interval(i),
                games: total.games(),
                score: total.score(),
                time: ThinkStats::from_times(&mut times, budget_ms(&e.spec)),
            }
        })
        .collect();
    rows.sort_by(|x, y| y.elo.total_cmp(&x.elo));
    rows
}

fn table(
    rows: &[Row],
    entrants: &[Entrant],
    played: &[Played],
    fitted: &Fit,
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
        let interval = if fitted.sd[r.index] == 0.0 {
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
    let control = match control {
        TimeControl::Millis(ms) => format!("{ms} ms a turn"),
        TimeControl::Simulations(n) => format!("{n} simulations a step"),
    };
    out.push_str(&format!(
        "{total} games in {} pairings ({now} played now, the rest from {}); {control}; anchor {ANCHOR} = 0; draw Elo {:.0}\n",
        played.len(),
        store.display(),
        fitted.draw_elo
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
        fitted: &Fit,
        control: TimeControl,
        store: &Path,
    ) -> Report {
        let players = rows
            .iter()
            .map(|r| {
                let e = &entrants[r.index];
                PlayerJson {
                    name: e.label.clone(),
                    spec: e.spec.to_string(),
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
                let s = score_of(&p.games);
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
            draw_elo: (fitted.draw_elo * 10.0).round() / 10.0,
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
