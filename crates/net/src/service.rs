//! An inference service: one thread owns the network and evaluates, in one forward pass, the
//! requests of many search threads that arrive together.
//!
//! Each search thread already sends whole batches (all pending leaves of its games); the
//! service merges the batches that arrive within `max_wait`, up to `max_batch` positions, so
//! the network sees large batches even when every thread's share is small.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use fanorona_mcts::{EvalError, EvalRequest, Evaluation, Evaluator};
use fanorona_players::FanoronaState;

use crate::encoding::{ACTION_COUNT, INPUT_LEN};
use crate::evaluator::{decode_batch, encode_batch};
use crate::inference::InferenceModel;

/// Policy logits and WDL of one job's positions, or why the network failed.
type Reply = Result<(Vec<f32>, Vec<f32>), String>;

struct Job {
    planes: Vec<f32>,
    count: usize,
    reply: mpsc::Sender<Reply>,
}

/// Counters of a running service.
#[derive(Debug, Default)]
pub struct ServiceStats {
    /// Positions evaluated.
    pub evaluations: AtomicU64,
    /// Network calls (forward passes).
    pub network_calls: AtomicU64,
}

/// The service thread and the way to reach it. Dropping it stops the thread once every
/// [`ServiceEvaluator`] handle is gone.
pub struct InferenceService {
    sender: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
    stats: Arc<ServiceStats>,
}

impl InferenceService {
    /// Start a service thread evaluating with `model`, merging requests up to `max_batch`
    /// positions or for at most `max_wait` after the first one.
    pub fn start(model: InferenceModel, max_batch: usize, max_wait: Duration) -> InferenceService {
        let (sender, receiver) = mpsc::channel::<Job>();
        let stats = Arc::new(ServiceStats::default());
        let thread_stats = Arc::clone(&stats);
        let thread = std::thread::Builder::new()
            .name("inference".into())
            .spawn(move || serve(&model, &receiver, max_batch.max(1), max_wait, &thread_stats))
            .ok();
        InferenceService {
            sender: Some(sender),
            thread,
            stats,
        }
    }

    /// A handle for one search thread.
    pub fn evaluator(&self) -> ServiceEvaluator {
        ServiceEvaluator {
            sender: self.sender.clone(),
        }
    }

    /// Counters.
    pub fn stats(&self) -> &ServiceStats {
        &self.stats
    }
}

impl Drop for InferenceService {
    fn drop(&mut self) {
        self.sender.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(
    model: &InferenceModel,
    receiver: &mpsc::Receiver<Job>,
    max_batch: usize,
    max_wait: Duration,
    stats: &ServiceStats,
) {
    while let Ok(first) = receiver.recv() {
        let deadline = Instant::now() + max_wait;
        let mut count = first.count;
        let mut jobs = vec![first];
        while count < max_batch {
            let left = deadline.saturating_duration_since(Instant::now());
            match receiver.recv_timeout(left) {
                Ok(job) => {
                    count += job.count;
                    jobs.push(job);
                }
                Err(_) => break,
            }
        }
        let mut planes = Vec::with_capacity(count * INPUT_LEN);
        for job in &mut jobs {
            planes.append(&mut job.planes);
        }
        let (logits, wdl) = match model.try_forward_owned(planes, count) {
            Ok(out) => (out.policy_logits, out.wdl),
            Err(e) => {
                // Every waiting thread hears of the failure; the service goes on serving.
                let message = e.to_string();
                for job in jobs {
                    let _ = job.reply.send(Err(message.clone()));
                }
                continue;
            }
        };
        stats.evaluations.fetch_add(count as u64, Ordering::Relaxed);
        stats.network_calls.fetch_add(1, Ordering::Relaxed);
        let mut at = 0;
        for job in jobs {
            let n = job.count;
            let part = Ok((
                logits[at * ACTION_COUNT..(at + n) * ACTION_COUNT].to_vec(),
                wdl[at * 3..(at + n) * 3].to_vec(),
            ));
            at += n;
            // A thread that gave up waiting is not an error for the others.
            let _ = job.reply.send(part);
        }
    }
}

/// A search thread's handle on an [`InferenceService`]; implements the search's evaluator.
#[derive(Clone)]
pub struct ServiceEvaluator {
    sender: Option<mpsc::Sender<Job>>,
}

impl Evaluator<FanoronaState> for ServiceEvaluator {
    /// Fails when the network fails, or when the service has stopped (it only stops when the
    /// service is dropped).
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, FanoronaState>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        out.clear();
        if batch.is_empty() {
            return Ok(());
        }
        let (reply, answer) = mpsc::channel();
        let job = Job {
            planes: encode_batch(batch),
            count: batch.len(),
            reply,
        };
        let sent = self.sender.as_ref().is_some_and(|s| s.send(job).is_ok());
        let result = if sent { answer.recv().ok() } else { None };
        let Some(reply) = result else {
            return Err(EvalError::new("the inference service has stopped"));
        };
        let (logits, wdl) = reply.map_err(EvalError::new)?;
        decode_batch(batch, &logits, &wdl, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::NetEvaluator;
    use crate::model::NetConfig;
    use burn::tensor::Device;
    use fanorona_engine::{Game, Rules};
    use fanorona_mcts::GameState;

    #[test]
    fn service_answers_like_a_direct_evaluator_and_merges_concurrent_requests() {
        let cfg = NetConfig::new().with_blocks(1).with_channels(8);
        let model = InferenceModel::random(&cfg, &Device::flex());
        let direct = NetEvaluator::new(model.clone());
        // A long wait: requests that arrive together are merged into one network call.
        let service = InferenceService::start(model, 64, Duration::from_millis(300));
        let state = FanoronaState::new(Game::new(Rules::default()));
        let mut legal = Vec::new();
        state.legal_actions(&mut legal);
        let request = [EvalRequest {
            state: &state,
            legal: &legal,
        }];
        let mut want = Vec::new();
        direct.evaluate(&request, &mut want).unwrap();
        let (threads, rounds) = (4, 5);
        let barrier = std::sync::Barrier::new(threads);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                let evaluator = service.evaluator();
                let (state, legal, want, barrier) = (&state, &legal, &want, &barrier);
                scope.spawn(move || {
                    let request = [EvalRequest { state, legal }];
                    let mut got = Vec::new();
                    for _ in 0..rounds {
                        barrier.wait();
                        evaluator.evaluate(&request, &mut got).unwrap();
                        assert_eq!(got.len(), 1);
                        for (a, b) in got[0].priors.iter().zip(&want[0].priors) {
                            assert!((a - b).abs() < 1e-5);
                        }
                        assert!((got[0].value() - want[0].value()).abs() < 1e-5);
                    }
                });
            }
        });
        let evaluations = service.stats().evaluations.load(Ordering::Relaxed);
        let calls = service.stats().network_calls.load(Ordering::Relaxed);
        assert_eq!(evaluations, (threads * rounds) as u64);
        // Each round's four requests arrive within microseconds of each other: about one call
        // per round. One call per request (no merging) would be 20.
        assert!(
            calls <= 2 * rounds as u64,
            "{calls} network calls for {evaluations} requests"
        );
    }
}
