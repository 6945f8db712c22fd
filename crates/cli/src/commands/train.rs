//! `fanorona train` and `fanorona selfplay`: the self-play training pipeline.

use crate::output::say;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use clap::Args;
use fanorona_net::Backend;
use fanorona_train::{RunLocation, TrainConfig, TrainOptions, selfplay_worker, train};

/// Arguments of `fanorona train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The training config (see configs/*.toml).
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// The run directory (default: runs/<name from the config>), or an object-store URL
    /// (`s3://bucket/prefix`, `gs://...`, `az://...`, `file:///...`; credentials and endpoint
    /// from the environment, e.g. AWS_ACCESS_KEY_ID, AWS_ENDPOINT_URL). An existing run is
    /// resumed.
    #[arg(long, value_name = "DIR|URL")]
    pub run_dir: Option<String>,
    /// For a run on a store: this process's local folder for it (its log, TensorBoard files
    /// and a bounded cache; default under ~/.cache/fanorona).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Play no self-play games here: wait for `fanorona selfplay` workers' games instead
    /// (selfplay.games_per_generation of them a generation).
    #[arg(long)]
    pub no_selfplay: bool,
    /// Play and train this many more generations, then stop: a resumed run counts from where
    /// it was, so `--generations 3` run twice ends at generation 6 (default: until Ctrl-C).
    #[arg(long, value_name = "N")]
    pub generations: Option<u64>,
    /// Stop after this many minutes of this invocation, as a Ctrl-C would: the step under way
    /// finishes and is saved (default: no limit).
    #[arg(long, value_name = "M")]
    pub minutes: Option<f64>,
    /// Endgame tables directory for self-play (overrides the config's `tablebase.dir`; built
    /// there on the first run when missing).
    #[arg(long, value_name = "DIR")]
    pub tablebases: Option<PathBuf>,
}

/// Arguments of `fanorona selfplay`.
#[derive(Args, Debug)]
pub struct SelfPlayArgs {
    /// A run directory created by `fanorona train` (possibly shared with another machine), or
    /// the object-store URL of one (`s3://bucket/prefix`).
    #[arg(long, value_name = "DIR|URL")]
    pub run_dir: String,
    /// This worker's name in shard file names (default: host name and process id).
    #[arg(long)]
    pub worker: Option<String>,
    /// For a run on a store: this process's local folder for it (a bounded cache of
    /// downloaded checkpoints; default under ~/.cache/fanorona).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
}

/// A flag set by the first Ctrl-C; a second one exits at once.
fn stop_flag() -> Arc<AtomicBool> {
    super::stop_on_ctrl_c("stopping after the current step (Ctrl-C again to quit at once)...")
}

/// Longest `--minutes`: ten million (about 19 years).
const MAX_MINUTES: f64 = 1e7;

/// Longest `--worker` name: it becomes part of file names, which most file systems cut at 255
/// bytes.
const MAX_WORKER_NAME: usize = 64;

/// Sets `stop` once `minutes` have passed (from a thread that sleeps until then).
fn stop_after(stop: Arc<AtomicBool>, minutes: Option<f64>) -> Result<Arc<AtomicBool>> {
    let Some(minutes) = minutes else {
        return Ok(stop);
    };
    anyhow::ensure!(
        minutes.is_finite() && minutes > 0.0 && minutes <= MAX_MINUTES,
        "--minutes {minutes}: give a number of minutes above 0 and at most {MAX_MINUTES} \
         (about 19 years)"
    );
    let flag = Arc::clone(&stop);
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs_f64(minutes * 60.0));
        if !flag.swap(true, Ordering::SeqCst) {
            eprintln!("\n{minutes} minutes passed: stopping after the current step...");
        }
    });
    Ok(stop)
}

/// Run `fanorona train`.
pub fn run_train(args: &TrainArgs, backend: Option<Backend>) -> Result<()> {
    let config = TrainConfig::load(&args.config)?;
    let run_dir = match &args.run_dir {
        Some(text) => RunLocation::parse(text),
        None => RunLocation::Local(Path::new("runs").join(&config.name)),
    };
    let options = TrainOptions {
        run_dir: run_dir.clone(),
        work_dir: args.work_dir.clone(),
        selfplay: !args.no_selfplay,
        generations: args.generations,
        interactive: std::io::stderr().is_terminal(),
        stop: stop_after(stop_flag(), args.minutes)?,
        tablebases: args.tablebases.clone(),
        backend,
    };
    let summary = train(&config, &options).with_context(|| format!("training in {run_dir}"))?;
    say!(
        "run {}: generation {}, {} optimiser steps{}",
        run_dir,
        summary.generation,
        summary.steps,
        summary
            .checkpoint
            .map(|c| format!(", last checkpoint {}", c.display()))
            .unwrap_or_default()
    )?;
    Ok(())
}

/// Run `fanorona selfplay`.
pub fn run_selfplay(args: &SelfPlayArgs, backend: Option<Backend>) -> Result<()> {
    let worker = args.worker.clone().unwrap_or_else(default_worker_name);
    anyhow::ensure!(
        !worker.is_empty()
            && worker.len() <= MAX_WORKER_NAME
            && worker
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_'),
        "--worker must be 1 to {MAX_WORKER_NAME} letters, digits or '_' (it becomes part of \
         file names), got {worker:?}"
    );
    let games = selfplay_worker(
        &RunLocation::parse(&args.run_dir),
        &worker,
        args.work_dir.clone(),
        stop_flag(),
        std::io::stderr().is_terminal(),
        backend,
    )
    .with_context(|| format!("self-play for {}", args.run_dir))?;
    say!("worker {worker}: {games} games")?;
    Ok(())
}

fn default_worker_name() -> String {
    // The tail of the host name: a Kubernetes pod's name ends in its unique part.
    let host: Vec<char> = fanorona_train::store::host_name()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let host: String = host[host.len().saturating_sub(16)..].iter().collect();
    format!(
        "{}{}",
        if host.is_empty() {
            "w".to_string()
        } else {
            host
        },
        std::process::id()
    )
}
