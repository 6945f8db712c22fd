//! `fanorona export`: a training checkpoint becomes one self-describing model file.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use fanorona_net::{ExportMeta, export, load_exported};

/// Arguments of `fanorona export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A checkpoint written by `fanorona train` (`runs/<name>/checkpoints/ckpt-*.ckpt`).
    pub checkpoint: PathBuf,
    /// Where to write the model file (by convention `*.fnm`).
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
    let written = export(&args.checkpoint, &args.out, &meta)
        .with_context(|| format!("exporting {}", args.checkpoint.display()))?;
    // Read it back: what was written must load, or the export failed.
    let (model, _) = load_exported(&args.out).context("reading the exported model back")?;
    let cfg = model.config();
    println!(
        "wrote {} ({} blocks x {} channels, {} training steps)",
        args.out.display(),
        cfg.blocks,
        cfg.channels,
        written.training_steps
    );
    Ok(())
}
