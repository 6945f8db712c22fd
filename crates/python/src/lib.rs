//! Fanorona for Python (the `fanorona` package, built with maturin): the engine's games and
//! notation, the network's input planes and action indices as numpy arrays, a batched
//! environment stepped in Rust, players from spec text and endgame-table probes. The
//! PettingZoo and Gymnasium environments are Python (`python/fanorona/envs.py`) over these.
//! docs/python.md is the guide.

// PyO3's macros expand to `unsafe` blocks of their own; this crate writes none.
#![allow(unsafe_code)]

mod game;
mod players;
mod vector;

use pyo3::prelude::*;

pyo3::create_exception!(
    _fanorona,
    FanoronaError,
    pyo3::exceptions::PyValueError,
    "Bad input to the engine (notation, an illegal move, a setting out of range, a table \
     file): the message says what and where."
);

/// The native part of the `fanorona` package.
#[pymodule]
fn _fanorona(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("FanoronaError", py.get_type::<FanoronaError>())?;
    m.add_class::<game::PyGame>()?;
    m.add_class::<game::PyOutcome>()?;
    m.add_class::<vector::PyVectorEnv>()?;
    m.add_class::<players::PyPlayer>()?;
    m.add_class::<players::PyChoice>()?;
    m.add_class::<players::PyTablebase>()?;
    m.add_function(wrap_pyfunction!(game::perft, m)?)?;
    m.add_function(wrap_pyfunction!(game::action_index, m)?)?;
    m.add_function(wrap_pyfunction!(game::index_action, m)?)?;
    m.add("START_FEN", fanorona_engine::START_FEN)?;
    m.add("ACTION_COUNT", fanorona_encoding::ACTION_COUNT)?;
    m.add("END_TURN_INDEX", fanorona_encoding::END_TURN_INDEX)?;
    m.add("INPUT_PLANES", fanorona_encoding::INPUT_PLANES)?;
    m.add(
        "BOARD_SHAPE",
        (fanorona_engine::HEIGHT, fanorona_engine::WIDTH),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
