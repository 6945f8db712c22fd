//! TensorBoard scalars (through tensorboard-rs) and the human-readable progress line.

use std::path::Path;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tensorboard_rs::summary_writer::SummaryWriter;

/// Writes scalars to the run's `tensorboard/` folder.
pub struct Metrics {
    writer: SummaryWriter,
}

impl Metrics {
    /// Open (or continue) the event log in `dir`.
    pub fn open(dir: &Path) -> Metrics {
        Metrics {
            writer: SummaryWriter::new(dir),
        }
    }

    /// Record `value` under `tag` at `step`.
    pub fn scalar(&mut self, tag: &str, value: f64, step: u64) {
        if value.is_finite() {
            self.writer.add_scalar(tag, value as f32, step as usize);
        }
    }

    /// Push buffered events to disk.
    pub fn flush(&mut self) {
        self.writer.flush();
    }
}

/// What the user sees while training: a progress bar with the phase and rates on a terminal,
/// plain log lines (at most one every few seconds per phase) otherwise.
pub struct Progress {
    bar: Option<ProgressBar>,
    last_line: Instant,
    every: Duration,
}

impl Progress {
    /// A reporter; `interactive` draws a bar (use it when stderr is a terminal).
    pub fn new(interactive: bool) -> Progress {
        let bar = interactive.then(|| {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template("{prefix:.bold} [{bar:30}] {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
            bar.set_style(style);
            bar
        });
        Progress {
            bar,
            last_line: Instant::now() - Duration::from_secs(60),
            every: Duration::from_secs(10),
        }
    }

    /// Start a phase of `total` units.
    pub fn phase(&mut self, name: &str, total: u64) {
        if let Some(bar) = &self.bar {
            bar.set_prefix(name.to_string());
            bar.set_length(total);
            bar.set_position(0);
            bar.set_message("");
        }
        self.last_line = Instant::now() - self.every;
    }

    /// Report `done` units and a message with rates.
    pub fn update(&mut self, phase: &str, done: u64, total: u64, message: &str) {
        match &self.bar {
            Some(bar) => {
                bar.set_position(done);
                bar.set_message(message.to_string());
            }
            None => {
                if self.last_line.elapsed() >= self.every || done >= total {
                    eprintln!("{phase}: {done}/{total} {message}");
                    self.last_line = Instant::now();
                }
            }
        }
    }

    /// Print a line above the bar (or plainly).
    pub fn line(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }

    /// Remove the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
