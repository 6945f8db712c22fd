//! `fanorona tablebase`: build, probe and verify the endgame tables, and check a network
//! against them.

use crate::output::say;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use fanorona_engine::parse_position;
use fanorona_tablebase::Wdl;
use fanorona_tablebase::build::{self, ClassStats, Progress};

use super::tablecheck::CheckArgs;
use super::tables::TableDir;

/// Arguments of `fanorona tablebase`.
#[derive(Args, Debug)]
pub struct TablebaseArgs {
    #[command(subcommand)]
    pub command: TablebaseCommand,
}

/// What `fanorona tablebase` does.
#[derive(Subcommand, Debug)]
pub enum TablebaseCommand {
    /// Solve every class up to N stones (resumes: classes already built are kept).
    Build {
        /// Largest total number of stones.
        #[arg(long, value_name = "N")]
        stones: usize,
        /// Directory to write the tables into (the same as --tablebases).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Threads, 1 to 1,024 (default: every core; fewer run when the system gives fewer).
        #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new()
              .range(1..=fanorona_tablebase::build::MAX_THREADS as u64))]
        threads: Option<usize>,
        #[command(flatten)]
        tables: TableDir,
    },
    /// The exact result of a position, its best turn and the result of every turn.
    Probe {
        /// The position, in the notation of docs/rules.md (the third field is the counter).
        #[arg(long, value_name = "POSITION")]
        fen: String,
        #[command(flatten)]
        tables: TableDir,
    },
    /// Check every entry of every table against its successors.
    Verify {
        /// Threads, 1 to 1,024 (default: every core; fewer run when the system gives fewer).
        #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new()
              .range(1..=fanorona_tablebase::build::MAX_THREADS as u64))]
        threads: Option<usize>,
        #[command(flatten)]
        tables: TableDir,
    },
    /// Measure a network against the truth: its value head, its policy's top turn and its
    /// search's turn on positions sampled from the tables.
    Check(CheckArgs),
}

/// Run `fanorona tablebase`.
pub fn run(args: &TablebaseArgs, backend: fanorona_net::Backend) -> Result<()> {
    match &args.command {
        TablebaseCommand::Build {
            stones,
            out,
            threads,
            tables,
        } => run_build(
            *stones,
            out.as_deref().unwrap_or(&tables.dir),
            *threads,
            tables,
        ),
        TablebaseCommand::Probe { fen, tables } => run_probe(fen, tables),
        TablebaseCommand::Verify { threads, tables } => run_verify(*threads, tables),
        TablebaseCommand::Check(args) => super::tablecheck::run(args, backend),
    }
}

fn threads(asked: Option<usize>) -> usize {
    super::or_every_core(asked).min(build::MAX_THREADS)
}

fn stats_line(s: &ClassStats, rate: Option<f64>) -> String {
    let mut line = format!(
        "class {:>4}: {:>11} positions  win {:>11}  draw {:>11}  loss {:>11}  longest win {:>2}  longest loss {:>2}",
        s.name(),
        s.wins + s.draws + s.losses,
        s.wins,
        s.draws,
        s.losses,
        s.longest_win,
        s.longest_loss,
    );
    if let Some(rate) = rate {
        let t = &s.time;
        line.push_str(&format!(
            "  ({:.1} s, {:.2} M entries/s: initial pass {:.1} s, {} levels {:.1} s, saving {:.1} s)",
            s.seconds,
            rate / 1e6,
            t.initial,
            t.level_count,
            t.levels,
            t.saving
        ));
    }
    line
}

fn run_build(
    stones: usize,
    dir: &Path,
    threads_asked: Option<usize>,
    tables: &TableDir,
) -> Result<()> {
    if stones < 2 {
        bail!("--stones must be at least 2 (one stone each), got {stones}");
    }
    let bar = super::progress_bar(None, "{bar:40} {msg}  [{elapsed}]");
    let started = Instant::now();
    let mut total_classes = 0;
    let mut done = 0;
    // The build goes on when standard output fails (the tables are what it makes); the
    // first failure is reported at the end.
    let mut unwritten = None;
    let mut report = |p: Progress| match p {
        Progress::Plan { classes, entries } => {
            total_classes = classes.len();
            bar.set_length(entries);
            bar.set_message(format!("0/{total_classes} classes"));
        }
        Progress::Loaded(s) => {
            done += 1;
            bar.inc(s.entries);
            if let Err(e) = bar.suspend(|| say!("{}  (already built)", stats_line(&s, None))) {
                unwritten.get_or_insert(e);
            }
            bar.set_message(format!("{done}/{total_classes} classes"));
        }
        Progress::Solved(s) => {
            done += 1;
            bar.inc(s.entries);
            // the two classes of a pair are solved together: the rate is the pair's
            let rate = s.pair_entries as f64 / s.seconds.max(1e-9);
            if let Err(e) = bar.suspend(|| say!("{}", stats_line(&s, Some(rate)))) {
                unwritten.get_or_insert(e);
            }
            bar.set_message(format!(
                "{done}/{total_classes} classes, {:.2} M entries/s",
                rate / 1e6
            ));
        }
    };
    let tb = build::build_dir(
        dir,
        stones,
        tables.no_progress_limit,
        threads(threads_asked),
        &mut report,
    )
    .with_context(|| format!("building tables in {}", dir.display()))?;
    bar.finish_and_clear();
    if let Some(e) = unwritten {
        return Err(e.into());
    }
    let bytes = |name: fn(usize, usize) -> String| -> u64 {
        tb.classes()
            .filter_map(|(a, b)| std::fs::metadata(dir.join(name(a, b))).ok())
            .map(|m| m.len())
            .sum()
    };
    say!(
        "tables up to {stones} stones for a no-progress limit of {} in {}: results {:.1} MB (kept in memory), distances {:.1} MB (read when needed), {:.1} s",
        tb.limit(),
        dir.display(),
        bytes(fanorona_tablebase::wdl_file_name) as f64 / 1e6,
        bytes(fanorona_tablebase::file_name) as f64 / 1e6,
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}

fn run_probe(fen: &str, tables: &TableDir) -> Result<()> {
    let pos = parse_position(fen).context("--fen")?;
    let tb = tables.open()?;
    let probe = tb.probe(&pos).with_context(|| format!("probing {fen}"))?;
    match probe.wdl {
        Wdl::Draw => say!("wdl draw dtz -")?,
        w => say!("wdl {w} dtz {}", probe.dtz)?,
    }
    let ranked = tb.rank_turns(&pos)?;
    match ranked.first() {
        Some((turn, result)) => say!("best {turn} {result}")?,
        None => say!("best none (no legal turn)")?,
    }
    for (turn, result) in &ranked {
        say!("turn {turn} {result}")?;
    }
    Ok(())
}

fn run_verify(threads_asked: Option<usize>, tables: &TableDir) -> Result<()> {
    let tb = tables.open()?;
    let started = Instant::now();
    let mut unwritten = None;
    let report = build::verify(&tb, threads(threads_asked), &mut |s| {
        if let Err(e) = say!("{}  verified in {:.1} s", stats_line(s, None), s.seconds) {
            unwritten.get_or_insert(e);
        }
    })?;
    if let Some(e) = unwritten {
        return Err(e.into());
    }
    say!(
        "verified {} classes, {} positions up to symmetry, in {:.1} s: every entry follows from its successors",
        report.classes,
        report.positions,
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}
