//! Players from spec text and endgame-table probes for Python.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use fanorona_encoding as encoding;
use fanorona_engine::{Position, Rules};
use fanorona_players::Player;
use fanorona_specs::Registry;
use fanorona_tablebase::{Tablebase, Wdl};
use pyo3::prelude::*;

use crate::game::{PyGame, fail, rules, turn_actions};

/// Opens the endgame tables in `dir` built for `rules`; a directory that does not exist is an
/// error here (the library would give an empty set).
fn open_tables(dir: &str, rules: Rules) -> PyResult<Arc<Tablebase>> {
    let path = PathBuf::from(dir);
    if !path.is_dir() {
        return Err(fail(format!(
            "{dir}: no such directory of endgame tables (build them with `fanorona tablebase build`)"
        )));
    }
    Tablebase::open(&path, rules).map(Arc::new).map_err(fail)
}

/// A player built from a spec, as in `fanorona pit` and the engine protocol: `"random"`,
/// `"greedy"`, `"alphabeta:ms=200,eval=learned"`, `"mcts:sims=400"` (`fanorona players`
/// lists every kind and key). `tablebases` names a directory of endgame tables the player
/// may use. `seed` picks its random stream (players with a seed key of their own use it).
///
/// Network players (`net:`) need the network crate, which this package leaves out to build
/// in minutes: asking for one raises `FanoronaError`.
#[pyclass(module = "fanorona._fanorona", name = "Player")]
pub struct PyPlayer {
    name: String,
    player: Mutex<Box<dyn Player>>,
}

/// What a player chose: the turn, and what its search found.
#[pyclass(module = "fanorona._fanorona", name = "Choice", frozen, get_all)]
pub struct PyChoice {
    /// The whole turn in notation (steps joined by commas).
    turn: String,
    /// The turn as step-level policy indices, `END_TURN_INDEX` last where the chain could
    /// go on: what to play in a step-level environment.
    actions: Vec<usize>,
    /// The score of the turn for the mover, where the player gives one, as the engine
    /// protocol writes it: `"cs 120"` (centi-stones), `"win 3"`, `"loss 2"` (turns),
    /// `"value 0.250"` (MCTS), `"tb win 7"` (the endgame tables).
    score: Option<String>,
    /// Deepest completed search iteration (alpha-beta), if any.
    depth: Option<u32>,
    /// Positions searched.
    nodes: u64,
    /// Seconds spent.
    seconds: f64,
}

#[pymethods]
impl PyChoice {
    fn __repr__(&self) -> String {
        format!("Choice(turn={:?}, score={:?})", self.turn, self.score)
    }
}

#[pymethods]
impl PyPlayer {
    #[new]
    #[pyo3(signature = (spec, *, tablebases = None, seed = 0, no_progress_limit = 50))]
    fn new(
        spec: &str,
        tablebases: Option<&str>,
        seed: u64,
        no_progress_limit: u32,
    ) -> PyResult<Self> {
        let mut registry = Registry::classical();
        if let Some(dir) = tablebases {
            registry = registry.with_tables(Some(open_tables(dir, rules(no_progress_limit)?)?));
        }
        if spec.trim().split(':').next() == Some("net") {
            return Err(fail(format!(
                "player `{spec}`: network players need the network crate, which the Python \
                 package does not build; play them with the `fanorona` program"
            )));
        }
        let settings = registry.parse(spec).map_err(fail)?;
        let player = registry.build(&settings, seed).map_err(fail)?;
        Ok(PyPlayer {
            name: settings.to_string(),
            player: Mutex::new(player),
        })
    }

    /// The spec the player was built from.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The turn this player plays in `game` (at a turn start, not over). The interpreter is
    /// free while it thinks.
    fn choose(&self, py: Python<'_>, game: &PyGame) -> PyResult<PyChoice> {
        let game = game.game.clone();
        let choice = py.detach(|| {
            let mut player = self.player.lock().unwrap_or_else(|p| p.into_inner());
            player.choose(&game, None)
        });
        let choice = choice.map_err(fail)?;
        let pos = game.position();
        let side = pos.side_to_move();
        Ok(PyChoice {
            turn: choice.turn.to_string(),
            actions: turn_actions(pos, &choice.turn)
                .into_iter()
                .map(|a| encoding::action_index(a, side))
                .collect(),
            score: choice.info.score.map(|s| s.to_string()),
            depth: choice.info.depth,
            nodes: choice.info.nodes,
            seconds: choice.info.elapsed.as_secs_f64(),
        })
    }

    /// Forgets the previous game (search trees, tables of positions).
    fn new_game(&self) {
        self.player
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .new_game();
    }

    fn __repr__(&self) -> String {
        format!("Player({:?})", self.name)
    }
}

/// Endgame tables on disk (`fanorona tablebase build` writes them): the exact result of
/// every position with few enough stones, for the rules they were built for.
#[pyclass(module = "fanorona._fanorona", name = "Tablebase", frozen)]
pub struct PyTablebase {
    tables: Arc<Tablebase>,
}

#[pymethods]
impl PyTablebase {
    #[new]
    #[pyo3(signature = (dir, *, no_progress_limit = 50))]
    fn new(dir: &str, no_progress_limit: u32) -> PyResult<Self> {
        Ok(PyTablebase {
            tables: open_tables(dir, rules(no_progress_limit)?)?,
        })
    }

    /// The most stones of a position the tables cover (0 when the directory has none).
    #[getter]
    fn max_stones(&self) -> usize {
        self.tables.max_stones()
    }

    /// The exact result for the side to move, `(wdl, turns)`: `wdl` is `"win"`, `"draw"` or
    /// `"loss"`, `turns` the turns to the next capture or the end with best play (0 for a
    /// draw). `None` when the tables do not cover the position. `position` is a `Game` or a
    /// position in notation.
    fn probe(
        &self,
        py: Python<'_>,
        position: PositionArg<'_>,
    ) -> PyResult<Option<(&'static str, u32)>> {
        let pos = match position {
            PositionArg::Game(game) => *game.game.position(),
            PositionArg::Text(text) => text.parse::<Position>().map_err(fail)?,
        };
        if !pos.is_turn_start() {
            return Err(fail(
                "the tables answer for positions at the start of a turn, not during a capture chain",
            ));
        }
        if !self.tables.covers(&pos) {
            return Ok(None);
        }
        let probe = py.detach(|| self.tables.probe(&pos)).map_err(fail)?;
        let wdl = match probe.wdl {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        };
        Ok(Some((wdl, probe.dtz)))
    }
}

/// A position given as a game or as text.
#[derive(FromPyObject)]
pub(crate) enum PositionArg<'py> {
    Game(PyRef<'py, PyGame>),
    Text(String),
}
