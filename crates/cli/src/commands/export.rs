//! `fanorona export`: a training checkpoint becomes one self-describing file for play: a model
//! file (`*.fnm`) from a network run, an evaluation file (`*.fne`, for `alphabeta:eval=`) from
//! an evaluation run.

use crate::output::say;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use fanorona_net::{Backend, ExportMeta, export, load_exported};

/// Arguments of `fanorona export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A checkpoint written by `fanorona train` (`runs/<name>/checkpoints/ckpt-*.ckpt`).
    #[arg(required_unless_present = "run_dir", conflicts_with = "run_dir")]
    pub checkpoint: Option<PathBuf>,
    /// Instead of a checkpoint file: the newest checkpoint of this run (a folder, or the URL
    /// of a run on an object store such as `s3://bucket/prefix`).
    #[arg(long, value_name = "DIR|URL")]
    pub run_dir: Option<String>,
    /// With --run-dir: the checkpoint after this many optimiser steps instead of the newest.
    #[arg(long, value_name = "N", requires = "run_dir")]
    pub steps: Option<u64>,
    /// Where to write the file (by convention `*.fnm` for a network, `*.fne` for an
    /// evaluation). A training checkpoint is never overwritten.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// A label stored in the file (shown when it is loaded).
    #[arg(long, default_value = "")]
    pub label: String,
    /// Self-play games behind this network, stored as metadata.
    #[arg(long, default_value_t = 0)]
    pub games: u64,
}

/// Run `fanorona export`.
pub fn run(args: &ExportArgs) -> Result<()> {
    let meta = ExportMeta {
        games: args.games,
        label: args.label.clone(),
        ..ExportMeta::default()
    };
    // What --out may replace is decided before any work: never a checkpoint (the one
    // exported included), a run's config or log, only an earlier export.
    crate::output::check_output_file("--out", &args.out, crate::output::FileKind::Model)?;
    let checkpoint = match (&args.checkpoint, &args.run_dir) {
        (Some(path), _) => path.clone(),
        (None, Some(run)) => run_checkpoint(run, args.steps)?,
        (None, None) => anyhow::bail!("give a checkpoint file or --run-dir"),
    };
    if let Ok((weights, saved)) = fanorona_eval::EvalWeights::load_any(&checkpoint) {
        let meta = fanorona_eval::EvalMeta {
            training_steps: saved.training_steps,
            games: if args.games > 0 {
                args.games
            } else {
                saved.games
            },
            label: if args.label.is_empty() {
                saved.label
            } else {
                args.label.clone()
            },
        };
        weights
            .save(&args.out, &meta)
            .with_context(|| format!("writing {}", args.out.display()))?;
        let (back, _) = fanorona_eval::EvalWeights::load(&args.out)
            .context("reading the exported evaluation back")?;
        say!(
            "wrote {} (the evaluation {}, {} training steps; play it with alphabeta:eval={})",
            args.out.display(),
            back.shape,
            meta.training_steps,
            args.out.display()
        )?;
        return Ok(());
    }
    let written = export(&checkpoint, &args.out, &meta)
        .with_context(|| format!("exporting {}", checkpoint.display()))?;
    // Read it back: what was written must load, or the export failed.
    let (model, _) =
        load_exported(&args.out, Backend::Burn).context("reading the exported model back")?;
    let cfg = model.config();
    say!(
        "wrote {} ({}, {} training steps)",
        args.out.display(),
        cfg.tower(),
        written.training_steps
    )?;
    Ok(())
}

/// The checkpoint of run `run` (folder or store URL) after `steps` steps, or its newest.
fn run_checkpoint(run: &str, steps: Option<u64>) -> Result<PathBuf> {
    let location = fanorona_train::RunLocation::parse(run);
    let (_, path) = fanorona_train::rundir::checkpoint_of(&location, None, steps)
        .with_context(|| format!("--run-dir {run}"))?;
    Ok(path)
}
