//! Worker threads that share one queue of work, started so that a refused thread is never a
//! panic.
//!
//! `std::thread::scope`'s `spawn` panics when the system refuses a thread (a pids limit, no
//! memory for its stack: "failed to spawn thread"). The project's parallel loops (table
//! builds and verification, matches, self-play) are all workers that take the next piece of a
//! shared queue until it is empty, so any number of them, one included, finishes the job:
//! [`spawn_workers`] starts as many as the system gives, up to the number asked for.

use std::thread::{Builder, Scope};

/// Starts up to `threads` workers in `scope`, each the closure `make` returns for it,
/// stopping at the first thread the system refuses; returns how many started. When none could
/// be started the caller runs one worker itself (see [`run_workers`]).
pub fn spawn_workers<'scope, W>(
    scope: &'scope Scope<'scope, '_>,
    threads: usize,
    make: impl FnMut() -> W,
) -> usize
where
    W: FnOnce() + Send + 'scope,
{
    spawn_from(scope, threads, make, |i| {
        Builder::new().name(format!("worker-{i}"))
    })
}

/// [`spawn_workers`] with the threads made by `builder` (a test makes the system refuse some).
fn spawn_from<'scope, W>(
    scope: &'scope Scope<'scope, '_>,
    threads: usize,
    mut make: impl FnMut() -> W,
    builder: impl Fn(usize) -> Builder,
) -> usize
where
    W: FnOnce() + Send + 'scope,
{
    let mut started = 0;
    for i in 0..threads {
        if builder(i).spawn_scoped(scope, make()).is_err() {
            break;
        }
        started += 1;
    }
    started
}

/// Runs `work` on up to `threads` threads and waits for them all; when the system gives no
/// thread at all, runs it once on the calling thread. Returns how many threads ran it (0: the
/// caller's own). `work` must be a worker of a shared queue: each call takes pieces until
/// none is left.
pub fn run_workers<F>(threads: usize, work: F) -> usize
where
    F: Fn() + Sync,
{
    let work = &work;
    let started = std::thread::scope(|scope| spawn_workers(scope, threads, || move || work()));
    if started == 0 {
        work();
    }
    started
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_piece_is_done_once_whatever_the_number_of_threads() {
        for threads in [0, 1, 3, 16] {
            let next = AtomicUsize::new(0);
            let done: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
            let ran = run_workers(threads, || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= done.len() {
                        break;
                    }
                    done[i].fetch_add(1, Ordering::Relaxed);
                }
            });
            assert_eq!(ran, threads);
            assert!(done.iter().all(|d| d.load(Ordering::Relaxed) == 1));
        }
    }

    #[test]
    fn a_thread_the_system_refuses_leaves_the_work_to_the_others() {
        // A stack of 64 TiB cannot be mapped: the system refuses the third thread and the
        // ones after it, as a pids limit would.
        let refuse_from = |first: usize| {
            move |i: usize| Builder::new().stack_size(if i >= first { 1 << 46 } else { 1 << 16 })
        };
        for first in [0, 2] {
            let next = AtomicUsize::new(0);
            let work = || while next.fetch_add(1, Ordering::Relaxed) < 500 {};
            let work = &work;
            let started = std::thread::scope(|scope| {
                spawn_from(scope, 8, || move || work(), refuse_from(first))
            });
            assert_eq!(started, first);
            if started == 0 {
                work();
            }
            assert!(next.load(Ordering::Relaxed) > 500);
        }
    }
}
