//! `fanorona solve`: the exact value of a position by proof-number search, with a certificate;
//! `fanorona solve --check FILE` replays a certificate with the engine and the tables alone.

use crate::output::say;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use fanorona_engine::{Color, DEFAULT_NO_PROGRESS_LIMIT, Position, Rules, parse_position};
use fanorona_solve::state::{Saved, StateHead};
use fanorona_solve::{Certificate, Goal, Progress, SolveOptions, Verdict};
use fanorona_tablebase::{Tablebase, Wdl};

/// Arguments of `fanorona solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// The position to solve (docs/rules.md notation, a turn start); the start position by
    /// default.
    #[arg(long, value_name = "POSITION", conflicts_with = "check")]
    pub fen: Option<String>,
    /// Play these turns (notation, separated by spaces: `"d3e3w c4d4a"`) from `--fen` or the
    /// start position, and solve the position they lead to.
    #[arg(long, value_name = "TURNS", conflicts_with_all = ["check", "positions"])]
    pub after: Option<String>,
    /// Ask only one question: `win` (does the side to move win?), `not-lose` (does it at least
    /// draw?) or `both` (the default, each on one thread). One question gets both halves of
    /// `--memory` and one core: a proof split over the first turns asks `not-lose` of the other
    /// side after each of them, two at a time (docs/solve.md).
    #[arg(long, value_name = "QUESTION", default_value = "both")]
    pub question: String,
    /// Solve every position in FILE (one a line, `#` comments), each with the budget of
    /// `--minutes` or `--nodes`, and report how many were proven and how fast.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fen", "check", "state", "certificate"])]
    pub positions: Option<PathBuf>,
    /// With `--positions`: where a position is proven, let this player (a spec, as in `pit`)
    /// choose a turn and prove the position it leads to: does the player keep the proven
    /// value? (The solver as the perfect yardstick.)
    #[arg(
        long,
        value_name = "PLAYER",
        requires = "positions",
        conflicts_with = "question"
    )]
    pub yardstick: Option<String>,
    /// Join certificates of the position (`--fen`, `--after`) and of the positions after its
    /// turns into one certificate of the position, written to `--certificate` once the checker
    /// confirms it: a proof split over the first turns, put back together (docs/solve.md).
    #[arg(long, value_name = "FILE", num_args = 1..,
          conflicts_with_all = ["check", "positions", "state", "seed"], requires = "certificate")]
    pub join: Vec<PathBuf>,
    /// Check the certificate in FILE instead of solving (engine and tables only).
    #[arg(long, value_name = "FILE")]
    pub check: Option<PathBuf>,
    /// Threads that share the check of `--check` and `--join`, 1 to 1,024 (default: every
    /// core). The search itself runs one thread a question (`--question`).
    #[arg(long, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024))]
    pub threads: Option<usize>,
    /// Write the certificate of what is proven to FILE.
    #[arg(long, value_name = "FILE")]
    pub certificate: Option<PathBuf>,
    /// Resume from FILE when it exists and save what is solved there when stopping (time,
    /// nodes, Ctrl-C, or the answer).
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Start from what another saved search (`--state` of any position, the same no-progress
    /// limit and tables) solved: a position's result does not depend on where the search
    /// began, so the start position's saved search seeds the positions after White's turns.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["check", "positions"])]
    pub seed: Vec<PathBuf>,
    /// Stop after this many minutes.
    #[arg(long, value_name = "MINUTES")]
    pub minutes: Option<f64>,
    /// Stop after this many nodes (both searches together, each gets half of them).
    #[arg(long, value_name = "NODES")]
    pub nodes: Option<u64>,
    /// Nodes that reading the certificate's strategy may search again (the parts of the proof
    /// the table let go); by default four times the search's own nodes, at least two million.
    /// A search seeded (`--seed`) or resumed (`--state`) has searched little itself and may
    /// need more (docs/solve.md).
    #[arg(long, value_name = "NODES", value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..))]
    pub strategy_nodes: Option<u64>,
    /// Memory for the transposition tables, in MiB (both searches together).
    #[arg(long, value_name = "MIB", default_value_t = 2048,
          value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=1_048_576))]
    pub memory: u64,
    /// Order the search by the shipped learned evaluation (`learned`, the default) or not at
    /// all (`none`).
    #[arg(long, value_name = "EVAL", default_value = "learned")]
    pub order: String,
    /// Seconds between progress lines (0: none).
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    pub every: u64,
    /// The endgame tables the proof stops at (the same flags as the players').
    #[command(flatten)]
    pub tables: super::tables::TablesArgs,
    /// The no-progress limit (turns without a capture) of the rules.
    #[arg(long, value_name = "TURNS", default_value_t = DEFAULT_NO_PROGRESS_LIMIT)]
    pub no_progress_limit: u32,
}

/// Run `fanorona solve`.
pub fn run(args: &SolveArgs) -> Result<()> {
    let rules = Rules {
        no_progress_limit: args.no_progress_limit,
    };
    if rules.no_progress_limit == 0 {
        bail!(
            "--no-progress-limit 0: a proof needs the no-progress rule (its graph of positions would have cycles)"
        );
    }
    if args.threads.is_some() && args.check.is_none() && args.join.is_empty() {
        bail!(
            "--threads sets the threads of --check and --join; a search runs one thread a question (--question)"
        );
    }
    let tables = args.tables.load_with_hint(rules, true)?;
    if let Some(file) = &args.check {
        return check(file, tables.as_deref(), check_threads(args));
    }
    if !args.join.is_empty() {
        return join(args, tables.as_deref());
    }
    let eval = match args.order.as_str() {
        "learned" => Some(
            fanorona_specs::shipped_evaluation()
                .map_err(|e| anyhow::anyhow!("--order learned: {e}"))?,
        ),
        "none" => None,
        other => bail!("--order must be `learned` or `none`, got {other:?}"),
    };
    if !["both", "win", "not-lose"].contains(&args.question.as_str()) {
        bail!(
            "--question must be `win`, `not-lose` or `both`, got {:?}",
            args.question
        );
    }
    if args.minutes.is_some_and(|m| !(m > 0.0 && m <= 1e6)) {
        bail!("--minutes must be above 0 and at most 1,000,000");
    }
    if let Some(file) = &args.positions {
        return solve_list(file, args, rules, tables, eval);
    }
    solve_one(args, rules, tables, eval)
}

/// `fanorona solve [--fen]`: one position, resumed and saved with `--state`.
fn solve_one(
    args: &SolveArgs,
    rules: Rules,
    tables: Option<Arc<Tablebase>>,
    eval: Option<Arc<fanorona_eval::EvalNet>>,
) -> Result<()> {
    let pos = position(args)?;
    let table_stones = tables.as_ref().map_or(0, |t| t.max_stones());
    let head = StateHead {
        position: fanorona_engine::format_position(&pos),
        no_progress_limit: rules.no_progress_limit,
        table_stones,
    };
    let mut saved = load_state(args.state.as_deref(), &head)?;
    for file in &args.seed {
        saved.extend(load_seed(file, &head, pos.side_to_move())?);
    }
    let stop =
        super::stop_on_ctrl_c("stopping: saving what is solved (Ctrl-C again to quit at once)...");
    let started = Instant::now();
    let options = budget(args, rules, started, &stop, eval);
    say!(
        "solving {} ({} to move), tables up to {} stones, {} MiB, {}",
        head.position,
        side_name(pos.side_to_move()),
        table_stones,
        args.memory,
        match options.only {
            None => "both questions at once".to_string(),
            Some(goal) => format!("only the {} question", goal.name()),
        }
    )?;
    let report: Option<(Duration, fanorona_solve::Report)> = (args.every > 0).then(|| {
        let every = Duration::from_secs(args.every);
        let f: fanorona_solve::Report = Arc::new(|goal: Goal, p: &Progress| {
            eprintln!("{}", progress_line(goal, p));
        });
        (every, f)
    });
    // What the searches solved is saved as soon as they stop, before the certificate.
    let save = |solved: &Saved| {
        if let Some(path) = &args.state {
            match solved.save(path, &head) {
                Ok(()) => eprintln!(
                    "{} solved positions saved to {}",
                    solved.len(),
                    path.display()
                ),
                Err(e) => eprintln!("warning: --state {}: {e}", path.display()),
            }
        }
    };
    let (solution, _) =
        fanorona_solve::solve_saving(&pos, tables.clone(), &options, &saved, report, &save)?;
    let seconds = started.elapsed().as_secs_f64();
    let mover = side_name(pos.side_to_move());
    say!(
        "does {mover} win? {}; does {mover} at least draw? {}",
        verdict_name(solution.win),
        verdict_name(solution.not_lose)
    )?;
    match solution.value {
        Some(v) => say!("value: {} for {mover}", v.name())?,
        None => say!("value: not proven yet")?,
    }
    say!(
        "{} nodes in {seconds:.1} s ({:.0} nodes/s)",
        solution.nodes,
        solution.nodes as f64 / seconds.max(1e-9)
    )?;
    if let (Some(path), Some(e)) = (&args.certificate, &solution.certificate_error) {
        bail!("--certificate {}: not written: {e}", path.display());
    }
    if let (Some(path), Some(cert)) = (&args.certificate, &solution.certificate) {
        write_certificate(cert, path, "certificate:")?;
    }
    Ok(())
}

/// The question `--question` names (`None`: both).
fn question(name: &str) -> Option<Goal> {
    match name {
        "win" => Some(Goal::Win),
        "not-lose" => Some(Goal::NotLose),
        _ => None,
    }
}

/// The position `--fen` (or the start position) and `--after` name.
fn position(args: &SolveArgs) -> Result<Position> {
    let mut pos = match &args.fen {
        Some(text) => parse_position(text).context("--fen")?,
        None => Position::start(),
    };
    if !pos.is_turn_start() {
        bail!("--fen: the position is in the middle of a capture chain; give a turn start");
    }
    for (i, text) in args
        .after
        .iter()
        .flat_map(|t| t.split_whitespace())
        .enumerate()
    {
        let turn: fanorona_engine::Turn = text
            .parse()
            .with_context(|| format!("--after: turn {} ({text:?})", i + 1))?;
        pos = pos
            .try_play_turn(&turn)
            .with_context(|| format!("--after: turn {} ({text})", i + 1))?;
    }
    Ok(pos)
}

/// A saved search of another position (`--seed`), seen from `attacker`'s side.
fn load_seed(file: &Path, head: &StateHead, attacker: Color) -> Result<Saved> {
    let (found, saved) = Saved::load(file).with_context(|| format!("--seed {}", file.display()))?;
    if (found.no_progress_limit, found.table_stones) != (head.no_progress_limit, head.table_stones)
    {
        bail!(
            "--seed {}: saved under limit {} with tables up to {} stones, this search has limit {} and tables up to {} stones",
            file.display(),
            found.no_progress_limit,
            found.table_stones,
            head.no_progress_limit,
            head.table_stones
        );
    }
    let from = parse_position(&found.position)
        .with_context(|| format!("--seed {}: its position", file.display()))?
        .side_to_move();
    eprintln!(
        "seeding from {} ({}): {} solved positions",
        file.display(),
        found.position,
        saved.len()
    );
    Ok(saved.seen_by(from, attacker))
}

/// The search's options from the command line: memory, nodes and minutes from `started`
/// (nodes shared by the two searches).
fn budget(
    args: &SolveArgs,
    rules: Rules,
    started: Instant,
    stop: &Arc<std::sync::atomic::AtomicBool>,
    eval: Option<Arc<fanorona_eval::EvalNet>>,
) -> SolveOptions {
    SolveOptions {
        rules,
        table_bytes: (args.memory as usize) << 20,
        max_nodes: args.nodes.map(|n| match question(&args.question) {
            None => n / 2,
            Some(_) => n,
        }),
        deadline: args
            .minutes
            .map(|m| started + Duration::from_secs_f64(m * 60.0)),
        stop: Some(Arc::clone(stop)),
        eval,
        certificate: args.certificate.is_some(),
        only: question(&args.question),
        strategy_nodes: args.strategy_nodes,
        ..SolveOptions::default()
    }
}

/// How often a player kept the proven value (`--yardstick`).
#[derive(Default)]
struct Yardstick {
    known: usize,
    kept: usize,
    wins: usize,
    wins_kept: usize,
    draws: usize,
    draws_kept: usize,
    unknown: usize,
}

impl Yardstick {
    /// A position of value `v` (a loss is kept by any turn and not counted).
    fn add(&mut self, v: Wdl, kept: Option<bool>) {
        if v == Wdl::Loss {
            return;
        }
        let Some(kept) = kept else {
            self.unknown += 1;
            return;
        };
        self.known += 1;
        self.kept += usize::from(kept);
        if v == Wdl::Win {
            self.wins += 1;
            self.wins_kept += usize::from(kept);
        } else {
            self.draws += 1;
            self.draws_kept += usize::from(kept);
        }
    }
}

/// Most positions a `--positions` file may hold.
const MAX_POSITIONS: usize = 100_000;

/// The positions of a `--positions` file: one a line, blank lines and `#` comments skipped.
fn read_positions(file: &Path) -> Result<Vec<Position>> {
    let bytes = fanorona_data::read_bounded(file, 64 << 20)
        .with_context(|| format!("--positions {}", file.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("--positions {}: not text", file.display()))?;
    let mut positions = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let pos = parse_position(line)
            .with_context(|| format!("--positions {} line {}", file.display(), n + 1))?;
        positions.push(pos);
        if positions.len() > MAX_POSITIONS {
            bail!(
                "--positions {}: more than {MAX_POSITIONS} positions",
                file.display()
            );
        }
    }
    Ok(positions)
}

/// The yardstick's turn at `pos`, proven `v`: whether the position after it keeps the value
/// (`None` when that position is not proven within the budget `options` gives).
fn judge(
    player: &mut dyn fanorona_players::Player,
    name: &str,
    pos: &Position,
    v: Wdl,
    rules: Rules,
    tables: &Option<Arc<Tablebase>>,
    options: impl Fn() -> SolveOptions,
) -> Result<Option<bool>> {
    let game = fanorona_engine::Game::from_position(*pos, rules);
    player.new_game();
    let turn = player
        .choose(&game, None)
        .map_err(|e| anyhow::anyhow!("--yardstick: {e}"))?
        .turn;
    let after = pos.try_play_turn(&turn)?;
    let reply = fanorona_solve::solve(&after, tables.clone(), &options())?;
    let kept = reply.value.map(|r| r.flip() == v);
    say!(
        "     {name} plays {turn}: {}",
        match kept {
            Some(true) => format!("keeps the {}", v.name()),
            Some(false) => format!(
                "gives up the {} (now a {})",
                v.name(),
                reply.value.map_or("?", |r| r.flip().name())
            ),
            None => "not proven after it".to_string(),
        }
    )?;
    Ok(kept)
}

/// `--positions FILE`: each position solved in turn with the same budget.
fn solve_list(
    file: &Path,
    args: &SolveArgs,
    rules: Rules,
    tables: Option<Arc<Tablebase>>,
    eval: Option<Arc<fanorona_eval::EvalNet>>,
) -> Result<()> {
    let positions = read_positions(file)?;
    if args.minutes.is_none() && args.nodes.is_none() {
        bail!("--positions needs a budget for each position: --minutes or --nodes");
    }
    let mut judged = match &args.yardstick {
        Some(spec) => {
            let registry = fanorona_net::player_registry(fanorona_net::Backend::Native);
            let settings = super::players::parse_player(spec, &registry)?;
            let player = registry
                .with_tables(tables.clone())
                .build(&settings, 0)
                .map_err(|e| anyhow::anyhow!("--yardstick {spec}: {e}"))?;
            Some((player, Yardstick::default()))
        }
        None => None,
    };
    let stop = super::stop_on_ctrl_c("stopping after this position...");
    let (mut proven, mut times) = (0usize, Vec::new());
    for (i, pos) in positions.iter().enumerate() {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        let started = Instant::now();
        let options = budget(args, rules, started, &stop, eval.clone());
        let solution = fanorona_solve::solve(pos, tables.clone(), &options)?;
        let seconds = started.elapsed().as_secs_f64();
        let stones = pos.occupied().count();
        let value = match solution.value {
            Some(v) => {
                proven += 1;
                times.push(seconds);
                format!("{} for {}", v.name(), side_name(pos.side_to_move()))
            }
            None => "not proven".to_string(),
        };
        say!(
            "{:>4} {} ({stones} stones): {value} in {seconds:.1} s, {} nodes",
            i + 1,
            fanorona_engine::format_position(pos),
            solution.nodes
        )?;
        if let (Some((player, tally)), Some(v)) = (&mut judged, solution.value) {
            let name = args.yardstick.as_deref().unwrap_or_default();
            let options = || budget(args, rules, Instant::now(), &stop, eval.clone());
            let kept = judge(player.as_mut(), name, pos, v, rules, &tables, options)?;
            tally.add(v, kept);
        }
    }
    if let Some((_, tally)) = &judged {
        say!(
            "{} kept the proven value in {} of {} positions ({:.0}%): wins {} of {}, draws {} of {}; {} not proven after its turn",
            args.yardstick.as_deref().unwrap_or_default(),
            tally.kept,
            tally.known,
            100.0 * tally.kept as f64 / tally.known.max(1) as f64,
            tally.wins_kept,
            tally.wins,
            tally.draws_kept,
            tally.draws,
            tally.unknown
        )?;
    }
    times.sort_by(f64::total_cmp);
    let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
    say!(
        "proven {proven} of {} ({:.0}%), median time of those proven {median:.1} s",
        positions.len(),
        100.0 * proven as f64 / positions.len().max(1) as f64
    )?;
    Ok(())
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Proven => "yes (proven)",
        Verdict::Disproven => "no (disproven)",
        Verdict::Unknown => "unknown",
    }
}

fn progress_line(goal: Goal, p: &Progress) -> String {
    let secs = p.elapsed.as_secs_f64().max(1e-9);
    if let Some((turns, visited)) = p.strategy {
        return format!(
            "{:>8} {:>7.0} s: reading the certificate: {turns} positions with a turn, {visited} visited, {} nodes searched in all",
            goal.name(),
            secs,
            p.nodes
        );
    }
    format!(
        "{:>8} {:>7.0} s: {} nodes ({:.0}/s), root proof {} disproof {}, table {:.0}% of {} entries, {} solved",
        goal.name(),
        secs,
        p.nodes,
        p.nodes as f64 / secs,
        number(p.root_pn),
        number(p.root_dn),
        100.0 * p.entries as f64 / p.capacity.max(1) as f64,
        p.capacity,
        p.solved
    )
}

fn number(n: u32) -> String {
    if n >= u32::MAX / 4 {
        "inf".into()
    } else {
        n.to_string()
    }
}

fn load_state(path: Option<&Path>, head: &StateHead) -> Result<Saved> {
    let Some(path) = path else {
        return Ok(Saved::default());
    };
    if !path.exists() {
        return Ok(Saved::default());
    }
    let (found, saved) =
        Saved::load(path).with_context(|| format!("--state {}", path.display()))?;
    if &found != head {
        bail!(
            "--state {}: saved for {} (limit {}, tables up to {} stones), not for {} (limit {}, tables up to {} stones); give another file",
            path.display(),
            found.position,
            found.no_progress_limit,
            found.table_stones,
            head.position,
            head.no_progress_limit,
            head.table_stones
        );
    }
    eprintln!(
        "resuming from {}: {} solved positions",
        path.display(),
        saved.len()
    );
    Ok(saved)
}

/// `--join`: the parts joined, checked, then written.
fn join(args: &SolveArgs, tables: Option<&Tablebase>) -> Result<()> {
    let started = Instant::now();
    let pos = position(args)?;
    let mut parts = Vec::new();
    for file in &args.join {
        let part = Certificate::load(file).with_context(|| format!("--join {}", file.display()))?;
        say!(
            "part {}: {} ({})",
            file.display(),
            fanorona_engine::format_position(&part.position),
            part.claims
                .iter()
                .map(|c| format!("{} {}", side_name(c.side), claim_words(c.at_least)))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
        parts.push(part);
    }
    let joined = fanorona_solve::join::join(&pos, &parts).context("--join")?;
    // The parts are in the joined certificate now: their memory goes back before the check.
    drop(parts);
    let out = args
        .certificate
        .as_deref()
        .expect("clap requires --certificate");
    let report = fanorona_solve::check::check_with(&joined, tables, check_threads(args))
        .context("--join: the joined certificate does not hold")?;
    write_certificate(&joined, out, "joined into")?;
    print_report(&joined, &report, started)
}

/// Writes `cert` to `path` (`--certificate`) and says so, after `what`, with its size.
fn write_certificate(cert: &Certificate, path: &Path, what: &str) -> Result<()> {
    cert.save(path)
        .with_context(|| format!("--certificate {}", path.display()))?;
    let entries: usize = cert.claims.iter().map(|c| c.turns.len()).sum();
    say!(
        "{what} {} ({} claims, {entries} positions with a turn)",
        path.display(),
        cert.claims.len()
    )?;
    Ok(())
}

fn claim_words(at_least: Wdl) -> &'static str {
    match at_least {
        Wdl::Win => "wins",
        _ => "does not lose",
    }
}

/// `--threads`, or every core.
fn check_threads(args: &SolveArgs) -> usize {
    super::or_every_core(args.threads)
}

fn check(file: &Path, tables: Option<&Tablebase>, threads: usize) -> Result<()> {
    let started = Instant::now();
    let cert = Certificate::load(file).with_context(|| format!("--check {}", file.display()))?;
    let report = fanorona_solve::check::check_with(&cert, tables, threads)
        .with_context(|| format!("--check {}: the certificate does not hold", file.display()))?;
    print_report(&cert, &report, started)
}

/// What a checked certificate establishes.
fn print_report(
    cert: &Certificate,
    report: &fanorona_solve::CheckReport,
    started: Instant,
) -> Result<()> {
    say!(
        "position {} ({} to move), no-progress limit {}, tables up to {} stones",
        fanorona_engine::format_position(&cert.position),
        side_name(cert.position.side_to_move()),
        cert.rules.no_progress_limit,
        cert.table_stones
    )?;
    for (side, at_least, visited) in &report.claims {
        say!(
            "checked: {} {} ({visited} positions visited)",
            side_name(*side),
            claim_words(*at_least)
        )?;
    }
    match report.value {
        Some(v) => say!(
            "value: {} for {}",
            v.name(),
            side_name(cert.position.side_to_move())
        )?,
        None => say!("value: not decided by these claims alone")?,
    }
    say!("in {:.1} s", started.elapsed().as_secs_f64())?;
    Ok(())
}
