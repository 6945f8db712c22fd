//! TensorBoard scalars (through tensorboard-rs) and the human-readable progress line.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tensorboard_rs::summary_writer::SummaryWriter;

/// Writes scalars to the run's `tensorboard/` folder.
///
/// TensorBoard is an aid, never a reason to stop training: when the folder cannot be written
/// (read-only, or a file in its place) the writer is off and [`Metrics::take_warning`] says
/// why. tensorboard-rs panics on a write error (it unwraps inside its writer thread, and then
/// on the next send); every call into it is guarded, its panics are kept off the terminal, and
/// the first one turns the writer off with a warning.
pub struct Metrics {
    writer: Option<SummaryWriter>,
    warning: Option<String>,
}

impl Metrics {
    /// Open (or continue) the event log in `dir`.
    pub fn open(dir: &Path) -> Metrics {
        quiet_tensorboard_panics();
        let checked = std::fs::create_dir_all(dir).and_then(|()| {
            let probe = dir.join(format!(".probe.{}.tmp", std::process::id()));
            std::fs::write(&probe, b"").and_then(|()| std::fs::remove_file(&probe))
        });
        if let Err(e) = checked {
            return Metrics {
                writer: None,
                warning: Some(format!(
                    "TensorBoard is off for this session: cannot write to {}: {e}",
                    dir.display()
                )),
            };
        }
        match catch_unwind(AssertUnwindSafe(|| SummaryWriter::new(dir))) {
            Ok(writer) => Metrics {
                writer: Some(writer),
                warning: None,
            },
            Err(_) => Metrics {
                writer: None,
                warning: Some(format!(
                    "TensorBoard is off for this session: cannot open an event file in {}",
                    dir.display()
                )),
            },
        }
    }

    /// Why TensorBoard is off, once (to be printed and logged by the caller).
    pub fn take_warning(&mut self) -> Option<String> {
        self.warning.take()
    }

    /// Whether events are being written.
    pub fn is_on(&self) -> bool {
        self.writer.is_some()
    }

    /// Record `value` under `tag` at `step`.
    pub fn scalar(&mut self, tag: &str, value: f64, step: u64) {
        if value.is_finite() {
            self.guarded(|w| w.add_scalar(tag, value as f32, step as usize));
        }
    }

    /// Push buffered events to disk.
    pub fn flush(&mut self) {
        self.guarded(SummaryWriter::flush);
    }

    /// Runs `f` on the writer; a panic inside turns the writer off with a warning.
    fn guarded(&mut self, f: impl FnOnce(&mut SummaryWriter)) {
        let Some(writer) = self.writer.as_mut() else {
            return;
        };
        if catch_unwind(AssertUnwindSafe(|| f(writer))).is_err() {
            self.turn_off();
            self.warning = Some(
                "TensorBoard is off for the rest of this session: its event file could not be written"
                    .into(),
            );
        }
    }

    fn turn_off(&mut self) {
        if let Some(writer) = self.writer.take() {
            // Dropping it stops its thread, which panics again if that thread is gone.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(writer)));
        }
    }
}

impl Drop for Metrics {
    fn drop(&mut self) {
        self.turn_off();
    }
}

/// Keeps panics raised inside tensorboard-rs off standard error (the [`Metrics`] guard turns
/// them into one warning); every other panic is reported as before.
fn quiet_tensorboard_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let inside = info
                .location()
                .is_some_and(|l| l.file().contains("tensorboard-rs"));
            if !inside {
                previous(info);
            }
        }));
    });
}

/// What the user sees while training: a progress bar with the phase and rates on a terminal,
/// plain log lines (at most one every few seconds per phase) otherwise.
///
/// On a terminal, each phase's last figures (its losses, its rates) stay on the screen as a
/// line above the bar when the next phase starts, and an update for a phase other than the
/// current one (a self-play thread finishing after training started) is not drawn.
pub struct Progress {
    bar: Option<ProgressBar>,
    last_line: Instant,
    every: Duration,
    /// The phase the bar shows, and its last report (done, total, message).
    current: String,
    last: Option<(u64, u64, String)>,
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
            current: String::new(),
            last: None,
        }
    }

    /// The line that keeps the current phase's last report once the bar moves on.
    fn summary(&self) -> Option<String> {
        let (done, total, message) = self.last.as_ref()?;
        Some(
            format!("{}: {done}/{total} {message}", self.current)
                .trim_end()
                .to_string(),
        )
    }

    /// Start a phase of `total` units.
    pub fn phase(&mut self, name: &str, total: u64) {
        if let (Some(bar), Some(summary)) = (&self.bar, self.summary()) {
            bar.println(summary);
        }
        self.current = name.to_string();
        self.last = None;
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
            // A report of a phase that has ended is not drawn under the next one's label.
            Some(_) if phase != self.current => {}
            Some(bar) => {
                bar.set_position(done);
                bar.set_message(message.to_string());
                self.last = Some((done, total, message.to_string()));
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

    /// Remove the bar, keeping the last phase's report as a line.
    pub fn finish(&mut self) {
        if let (Some(bar), Some(summary)) = (&self.bar, self.summary()) {
            bar.println(summary);
        }
        self.last = None;
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_keeps_its_last_report_and_ignores_reports_of_others() {
        let mut progress = Progress::new(true);
        if let Some(bar) = &progress.bar {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        progress.phase("gen 0 self-play", 8);
        progress.update("gen 0 self-play", 8, 8, "3.0 games/s");
        progress.phase("gen 0 training", 100);
        // A late self-play report: not drawn under the training label.
        progress.update("gen 0 self-play", 8, 8, "2.9 games/s");
        let bar = progress.bar.clone().unwrap();
        assert_eq!(bar.prefix(), "gen 0 training");
        assert_eq!(bar.message(), "");
        progress.update("gen 0 training", 10, 100, "loss 1.234");
        assert_eq!(bar.message(), "loss 1.234");
        // What stays on the screen when the next phase starts.
        assert_eq!(
            progress.summary().as_deref(),
            Some("gen 0 training: 10/100 loss 1.234")
        );
        progress.phase("gen 1 self-play", 8);
        assert_eq!(progress.summary(), None);
    }

    #[test]
    fn an_unwritable_tensorboard_folder_turns_tensorboard_off_with_a_warning() {
        // Issue 16: `tensorboard/` replaced by a file made tensorboard-rs panic.
        let dir = fanorona_testkit::TempDir::new("metrics-file");
        let blocked = dir.join("tensorboard");
        std::fs::write(&blocked, b"not a folder").unwrap();
        let mut metrics = Metrics::open(&blocked);
        assert!(!metrics.is_on());
        let warning = metrics.take_warning().expect("a warning");
        assert!(warning.contains("tensorboard"), "{warning}");
        assert!(metrics.take_warning().is_none(), "said once");
        metrics.scalar("x", 1.0, 1);
        metrics.flush();
        assert_eq!(std::fs::read(&blocked).unwrap(), b"not a folder");
    }

    #[test]
    fn a_writable_folder_gets_an_event_file() {
        let dir = fanorona_testkit::TempDir::new("metrics-ok");
        let mut metrics = Metrics::open(&dir.join("tb"));
        assert!(metrics.is_on() && metrics.take_warning().is_none());
        metrics.scalar("loss", 0.5, 1);
        metrics.flush();
        drop(metrics);
        let files: Vec<_> = std::fs::read_dir(dir.join("tb")).unwrap().collect();
        assert_eq!(files.len(), 1, "one event file, no probe left");
    }
}
