//! [`PyVectorEnv`]: many games stepped in Rust per call, on every core, arrays out.

use fanorona_encoding::{self as encoding, ACTION_COUNT, Context, INPUT_LEN, INPUT_PLANES};
use fanorona_engine::{Action, Game, HEIGHT, Rules, WIDTH};
use numpy::ndarray::Array;
use numpy::{AllowTypeChange, IntoPyArray, PyArrayLike1};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

use crate::game::{PyGame, fail, rules};

/// Games a worker takes at once: small enough to share 1,024 games between cores, large
/// enough that scheduling costs nothing.
const CHUNK: usize = 32;

/// One game of the batch, its random stream (for `sample_actions`) and its legal actions
/// as policy indices (kept from the last observation: sampling and checking actions need
/// no move generation).
struct Slot {
    game: Game,
    rng: SmallRng,
    legal: Vec<u16>,
}

/// What one step of the batch returns, one entry per game.
struct Outputs {
    planes: Vec<f32>,
    mask: Vec<bool>,
    reward: Vec<f32>,
    terminated: Vec<bool>,
    to_move: Vec<i8>,
    winner: Vec<i8>,
}

impl Outputs {
    fn new(n: usize) -> Outputs {
        Outputs {
            planes: vec![0.0; n * INPUT_LEN],
            mask: vec![false; n * ACTION_COUNT],
            reward: vec![0.0; n],
            terminated: vec![false; n],
            to_move: vec![0; n],
            winner: vec![-1; n],
        }
    }

    /// `(obs, info)` as numpy arrays and a dict (what `reset` returns).
    fn observation<'py>(
        planes: Vec<f32>,
        mask: Vec<bool>,
        to_move: Vec<i8>,
        winner: Vec<i8>,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        let n = to_move.len();
        let obs = Array::from_shape_vec((n, INPUT_PLANES, HEIGHT, WIDTH), planes)
            .expect("planes of n games")
            .into_pyarray(py)
            .into_any();
        let mask = Array::from_shape_vec((n, ACTION_COUNT), mask)
            .expect("masks of n games")
            .into_pyarray(py);
        let info = PyDict::new(py);
        info.set_item("action_mask", mask)?;
        info.set_item("to_move", to_move.into_pyarray(py))?;
        info.set_item("winner", winner.into_pyarray(py))?;
        Ok((obs, info))
    }

    /// `(obs, rewards, terminated, truncated, info)` as numpy arrays.
    fn into_python(self, py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyTuple>> {
        let n = self.reward.len();
        let (obs, info) = Self::observation(self.planes, self.mask, self.to_move, self.winner, py)?;
        (
            obs,
            self.reward.into_pyarray(py),
            self.terminated.into_pyarray(py),
            vec![false; n].into_pyarray(py),
            info,
        )
            .into_pyobject(py)
    }
}

/// Writes the slot's observation, mask and side to move into its outputs, and keeps its legal
/// actions.
fn observe(slot: &mut Slot, planes: &mut [f32], mask: &mut [bool], to_move: &mut i8) {
    let game = &slot.game;
    let pos = game.position();
    let side = pos.side_to_move();
    encoding::encode(pos, Context::of(game), planes);
    mask.fill(false);
    slot.legal.clear();
    for &action in pos.legal_actions().iter() {
        let index = encoding::action_index(action, side);
        mask[index] = true;
        slot.legal.push(index as u16);
    }
    *to_move = side.index() as i8;
}

/// Many games of Fanorona stepped together in Rust (every core, the interpreter released),
/// with numpy arrays in and out, for reinforcement learning.
///
/// `VectorEnv(num_envs, seed=0, no_progress_limit=50, threads=None)`. Actions are policy
/// indices (the network's encoding, one step each; `END_TURN_INDEX` stops a chain).
/// `step(actions)` returns `(obs, rewards, terminated, truncated, info)`: `obs` is
/// `float32[n, 16, 5, 9]` from the mover's side, `rewards[i]` is +1 when game `i`'s action won
/// it for the side that played it (0 otherwise: draws, and every move before the end), and
/// a finished game starts again at once (`obs` is then the new game's start; `info["winner"]`
/// says who won the finished one: 0 White, 1 Black, -1 a draw). `info["action_mask"]` is
/// `bool[n, 1081]`, `info["to_move"]` the side to move next (0 White, 1 Black). `truncated`
/// is always false: the rules end every game (no-progress and repetition draws).
#[pyclass(module = "fanorona._fanorona", name = "VectorEnv")]
pub struct PyVectorEnv {
    slots: Vec<Slot>,
    rules: Rules,
    pool: rayon::ThreadPool,
}

fn slots(n: usize, seed: u64, rules: Rules) -> Vec<Slot> {
    (0..n)
        .map(|i| {
            let game = Game::new(rules);
            let side = game.position().side_to_move();
            let legal = game
                .position()
                .legal_actions()
                .iter()
                .map(|&a| encoding::action_index(a, side) as u16)
                .collect();
            Slot {
                game,
                rng: SmallRng::seed_from_u64(fanorona_mcts::derive_seed(seed, i as u64)),
                legal,
            }
        })
        .collect()
}

#[pymethods]
impl PyVectorEnv {
    #[new]
    #[pyo3(signature = (num_envs, *, seed = 0, no_progress_limit = 50, threads = None))]
    fn new(
        num_envs: usize,
        seed: u64,
        no_progress_limit: u32,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        // 65,536 games' planes and masks are 260 MB a step.
        if !(1..=1 << 16).contains(&num_envs) {
            return Err(fail(format!(
                "num_envs {num_envs} is out of range: expected 1 to 65536"
            )));
        }
        let threads = threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
        });
        if !(1..=256).contains(&threads) {
            return Err(fail(format!(
                "threads {threads} is out of range: expected 1 to 256"
            )));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(fail)?;
        let rules = rules(no_progress_limit)?;
        Ok(PyVectorEnv {
            slots: slots(num_envs, seed, rules),
            rules,
            pool,
        })
    }

    /// The number of games.
    #[getter]
    fn num_envs(&self) -> usize {
        self.slots.len()
    }

    fn __len__(&self) -> usize {
        self.slots.len()
    }

    /// Starts every game again (with fresh random streams when `seed` is given); returns
    /// `(obs, info)`.
    #[pyo3(signature = (*, seed = None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<u64>) -> PyResult<Bound<'py, PyAny>> {
        match seed {
            Some(seed) => self.slots = slots(self.slots.len(), seed, self.rules),
            None => {
                for slot in &mut self.slots {
                    slot.game = Game::new(self.rules);
                }
            }
        }
        let out = self.run(py, None);
        Outputs::observation(out.planes, out.mask, out.to_move, out.winner, py)?
            .into_bound_py_any(py)
    }

    /// Plays `actions[i]` in game `i` (policy indices: an integer array or a list, `n` long)
    /// and returns `(obs, rewards, terminated, truncated, info)`. An illegal action raises
    /// `FanoronaError` naming the game, and no game moves.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyArrayLike1<'py, i64, AllowTypeChange>,
    ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let actions: Vec<i64> = actions.as_array().iter().copied().collect();
        if actions.len() != self.slots.len() {
            return Err(fail(format!(
                "step got {} actions for {} games",
                actions.len(),
                self.slots.len()
            )));
        }
        let decoded = self.decode(&actions)?;
        self.run(py, Some(&decoded)).into_python(py)
    }

    /// A uniformly random legal action of every game, `int64[n]` (each game's own stream).
    fn sample_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<i64>> {
        let slots = &mut self.slots;
        let picked: Vec<i64> = py.detach(|| {
            self.pool.install(|| {
                slots
                    .par_iter_mut()
                    .with_min_len(CHUNK)
                    .map(|slot| i64::from(slot.legal[slot.rng.random_range(0..slot.legal.len())]))
                    .collect()
            })
        });
        picked.into_pyarray(py)
    }

    /// A copy of game `index` as it stands.
    fn game(&self, index: usize) -> PyResult<PyGame> {
        let slot = self.slots.get(index).ok_or_else(|| {
            fail(format!(
                "game {index} does not exist: there are {}",
                self.slots.len()
            ))
        })?;
        Ok(PyGame {
            game: slot.game.clone(),
        })
    }
}

impl PyVectorEnv {
    /// Every action as a legal action of its game, or the error that names the first bad one.
    fn decode(&self, actions: &[i64]) -> PyResult<Vec<Action>> {
        let decoded: Vec<Result<Action, String>> = self.pool.install(|| {
            self.slots
                .par_iter()
                .zip(actions.par_iter())
                .with_min_len(CHUNK)
                .enumerate()
                .map(|(i, (slot, &index))| {
                    let side = slot.game.position().side_to_move();
                    u16::try_from(index)
                        .ok()
                        .filter(|x| slot.legal.contains(x))
                        .and_then(|x| encoding::index_action(usize::from(x), side))
                        .ok_or_else(|| {
                            format!(
                                "game {i}: action {index} is not legal in {}",
                                slot.game.position()
                            )
                        })
                })
                .collect()
        });
        decoded.into_iter().collect::<Result<_, _>>().map_err(fail)
    }

    /// Plays `actions` (when given), starts finished games again and fills the outputs.
    fn run(&mut self, py: Python<'_>, actions: Option<&[Action]>) -> Outputs {
        let n = self.slots.len();
        let mut out = Outputs::new(n);
        let rules = self.rules;
        let slots = &mut self.slots;
        let pool = &self.pool;
        py.detach(|| {
            pool.install(|| {
                slots
                    .par_iter_mut()
                    .zip(out.planes.par_chunks_mut(INPUT_LEN))
                    .zip(out.mask.par_chunks_mut(ACTION_COUNT))
                    .zip(out.reward.par_iter_mut())
                    .zip(out.terminated.par_iter_mut())
                    .zip(out.to_move.par_iter_mut())
                    .zip(out.winner.par_iter_mut())
                    .with_min_len(CHUNK)
                    .enumerate()
                    .for_each(
                        |(i, ((((((slot, planes), mask), reward), done), to_move), winner))| {
                            if let Some(actions) = actions {
                                let mover = slot.game.position().side_to_move();
                                slot.game.apply(actions[i]);
                                if let Some(outcome) = slot.game.outcome() {
                                    *done = true;
                                    *winner = outcome.winner().map_or(-1, |w| w.index() as i8);
                                    *reward = match outcome.winner() {
                                        Some(w) if w == mover => 1.0,
                                        Some(_) => -1.0,
                                        None => 0.0,
                                    };
                                    slot.game = Game::new(rules);
                                }
                            }
                            observe(slot, planes, mask, to_move);
                        },
                    );
            });
        });
        out
    }
}
