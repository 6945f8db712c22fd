//! Fanorona solved by search: a proof-number search over whole turns with the endgame tables
//! as leaves ([`search`]), the certificates it writes ([`certificate`]) and their checker
//! ([`check`]), which replays a certificate with the engine and the tables alone.
//!
//! The value of a position is two questions to the side to move, asked at once on two
//! threads: does it win, and does it at least draw ([`solve`]). docs/solve.md has the rules the
//! proofs assume, the method and what was proven.
//!
//! ```
//! use fanorona_solve::{SolveOptions, solve, check::check};
//! use fanorona_tablebase::Wdl;
//!
//! // White's two stones against one: a win in 28 turns that the search finds without tables.
//! let pos = fanorona_engine::parse_position("9/9/3B5/9/WW7 w 0 1").unwrap();
//! let solution = solve(&pos, None, &SolveOptions::default()).unwrap();
//! assert_eq!(solution.value, Some(Wdl::Win));
//! let certificate = solution.certificate.unwrap();
//! assert_eq!(check(&certificate, None).unwrap().value, Some(Wdl::Win));
//! ```

pub mod certificate;
pub mod check;
pub mod join;
pub mod search;
pub mod state;
mod table;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use fanorona_engine::Position;
use fanorona_tablebase::{Tablebase, Wdl};

pub use certificate::{Certificate, CertificateError, Claim, NodeKey, Strategy, StrategyError};
pub use check::{CheckError, CheckReport};
pub use search::{Goal, Progress, Prover, SolveError, SolveOptions, Verdict, node_key};

/// The answers to both questions about a position, and the certificate of what was proven.
#[derive(Debug)]
pub struct Solution {
    /// Does the side to move win?
    pub win: Verdict,
    /// Does it at least draw?
    pub not_lose: Verdict,
    /// The value for the side to move, when the answers decide it.
    pub value: Option<Wdl>,
    /// Nodes expanded by both searches.
    pub nodes: u64,
    /// A turn for the side to move that keeps a proven win or draw (`None` for a loss, an
    /// unknown value, or a position the rules or tables decide).
    pub turn: Option<fanorona_engine::Turn>,
    /// The claims proven (none when neither question was answered, or when the options asked
    /// for no certificate).
    pub certificate: Option<Certificate>,
    /// Why no certificate was read although something was proven: the table too small to
    /// hold the proof's strategy ([`SolveError::TooSmall`]; the value stands).
    pub certificate_error: Option<SolveError>,
}

/// Asks both questions about `pos`, each on its own thread with half of the options' table
/// memory (or only [`SolveOptions::only`], with all of it). A decisive answer stops the other search (a proven win needs no draw proof, and a
/// disproven draw disproves the win). `resume` holds solved entries of an earlier run (by
/// goal) and `report` is called with each search's progress.
pub fn solve(
    pos: &Position,
    tables: Option<Arc<Tablebase>>,
    options: &SolveOptions,
) -> Result<Solution, SolveError> {
    solve_with(pos, tables, options, &state::Saved::default(), None).map(|(s, _)| s)
}

/// One question's search on this thread with `1 / share` of the table memory, its stop flag
/// raised by the user's stop or by `done` (the other search's decisive answer), which it raises
/// itself when its own answer decides.
#[allow(clippy::too_many_arguments)]
fn ask(
    goal: Goal,
    share: usize,
    pos: &Position,
    tables: &Option<Arc<Tablebase>>,
    options: &SolveOptions,
    saved: &state::Saved,
    report: &Option<(Duration, Report)>,
    done: &Arc<AtomicBool>,
) -> (Result<Verdict, SolveError>, Prover) {
    let mut opts = options.clone();
    opts.table_bytes = options.table_bytes / share;
    let local = Arc::new(AtomicBool::new(false));
    opts.stop = Some(Arc::clone(&local));
    let mut prover = Prover::new(tables.clone(), goal, opts);
    prover.load_solved(saved.entries(goal));
    if let Some((every, report)) = report {
        let report = Arc::clone(report);
        prover.on_progress(*every, move |p| report(goal, p));
    }
    let watch = {
        let (done, outer, local) = (Arc::clone(done), options.stop.clone(), Arc::clone(&local));
        move || {
            while !local.load(Ordering::Relaxed) {
                if done.load(Ordering::Relaxed)
                    || outer.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
                {
                    local.store(true, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    };
    std::thread::scope(|s| {
        s.spawn(watch);
        let verdict = prover.prove(pos);
        let decisive = matches!(
            (goal, &verdict),
            (Goal::Win, Ok(Verdict::Proven)) | (Goal::NotLose, Ok(Verdict::Disproven))
        );
        if decisive {
            done.store(true, Ordering::Relaxed);
        }
        local.store(true, Ordering::Relaxed);
        (verdict, prover)
    })
}

/// The claims the two answers establish: the winner's strategy, or both sides' draws (or the
/// one draw proven so far). A question not asked has no prover and its verdict is unknown.
fn claims(
    pos: &Position,
    (win, win_prover): (Verdict, Option<&mut Prover>),
    (not_lose, draw_prover): (Verdict, Option<&mut Prover>),
) -> Result<Vec<Claim>, SolveError> {
    let mut claims = Vec::new();
    let lost = || SolveError::Lost("a question that was not asked".into());
    if win == Verdict::Proven {
        claims.push(win_prover.ok_or_else(lost)?.claim(pos, Verdict::Proven)?);
    } else if not_lose == Verdict::Disproven {
        claims.push(
            draw_prover
                .ok_or_else(lost)?
                .claim(pos, Verdict::Disproven)?,
        );
    } else {
        if not_lose == Verdict::Proven {
            claims.push(draw_prover.ok_or_else(lost)?.claim(pos, Verdict::Proven)?);
        }
        if win == Verdict::Disproven {
            claims.push(
                win_prover
                    .ok_or_else(lost)?
                    .claim(pos, Verdict::Disproven)?,
            );
        }
    }
    Ok(claims)
}

/// A progress callback: which question, and where its search stands.
pub type Report = Arc<dyn Fn(Goal, &Progress) + Send + Sync>;

/// [`solve`] resuming from `saved`, reporting with `report`; also returns what each search has
/// solved, to save.
pub fn solve_with(
    pos: &Position,
    tables: Option<Arc<Tablebase>>,
    options: &SolveOptions,
    saved: &state::Saved,
    report: Option<(Duration, Report)>,
) -> Result<(Solution, state::Saved), SolveError> {
    solve_saving(pos, tables, options, saved, report, &|_| {})
}

/// [`solve_with`], calling `searched` with what the searches solved as soon as they stop,
/// before the certificate is read from them (which can search again for a while): a caller
/// that saves it there loses nothing if it is stopped during the certificate.
pub fn solve_saving(
    pos: &Position,
    tables: Option<Arc<Tablebase>>,
    options: &SolveOptions,
    saved: &state::Saved,
    report: Option<(Duration, Report)>,
    searched: &dyn Fn(&state::Saved),
) -> Result<(Solution, state::Saved), SolveError> {
    let done = Arc::new(AtomicBool::new(false));
    let run =
        |goal: Goal, share: usize| ask(goal, share, pos, &tables, options, saved, &report, &done);
    let (win_run, draw_run) = match options.only {
        None => std::thread::scope(|s| {
            let w = s.spawn(|| run(Goal::Win, 2));
            let d = run(Goal::NotLose, 2);
            (
                Some(w.join().expect("the win search does not panic")),
                Some(d),
            )
        }),
        Some(Goal::Win) => (Some(run(Goal::Win, 1)), None),
        Some(Goal::NotLose) => (None, Some(run(Goal::NotLose, 1))),
    };
    let (mut win, mut win_prover) = match win_run {
        Some((verdict, prover)) => (verdict?, Some(prover)),
        None => (Verdict::Unknown, None),
    };
    let (mut not_lose, mut draw_prover) = match draw_run {
        Some((verdict, prover)) => (verdict?, Some(prover)),
        None => (Verdict::Unknown, None),
    };
    // What one answer implies about the other.
    if win == Verdict::Proven {
        not_lose = Verdict::Proven;
    }
    if not_lose == Verdict::Disproven {
        win = Verdict::Disproven;
    }
    let value = match (win, not_lose) {
        (Verdict::Proven, _) => Some(Wdl::Win),
        (_, Verdict::Disproven) => Some(Wdl::Loss),
        (Verdict::Disproven, Verdict::Proven) => Some(Wdl::Draw),
        _ => None,
    };
    let solved = |w: &Option<Prover>, d: &Option<Prover>| {
        state::Saved::from_provers(w.as_ref(), d.as_ref(), saved)
    };
    searched(&solved(&win_prover, &draw_prover));
    let turn = match (value, &mut win_prover, &mut draw_prover) {
        (Some(Wdl::Win), Some(p), _) | (Some(Wdl::Draw), _, Some(p)) => p.proving_turn(pos),
        _ => None,
    };
    let (claims, certificate_error) = if options.certificate {
        match claims(
            pos,
            (win, win_prover.as_mut()),
            (not_lose, draw_prover.as_mut()),
        ) {
            Ok(claims) => (claims, None),
            Err(e @ SolveError::TooSmall(_)) => (Vec::new(), Some(e)),
            Err(e) => return Err(e),
        }
    } else {
        (Vec::new(), None)
    };
    let certificate = (!claims.is_empty()).then(|| Certificate {
        position: *pos,
        rules: options.rules,
        table_stones: tables.as_ref().map_or(0, |t| t.max_stones()),
        claims,
    });
    let saved = solved(&win_prover, &draw_prover);
    Ok((
        Solution {
            win,
            not_lose,
            value,
            nodes: [&win_prover, &draw_prover]
                .iter()
                .filter_map(|p| p.as_ref())
                .map(|p| p.nodes())
                .sum(),
            turn,
            certificate,
            certificate_error,
        },
        saved,
    ))
}
