//! Player specifications: the text form of a player (`alphabeta:depth=4`,
//! `net:path=model.fnm,sims=200`), every kind's keys declared once, and the registry that
//! checks specs into typed settings and builds players from them.
//!
//! - [`PlayerSpec`]: the text, parsed for its syntax only.
//! - [`kinds`]: every kind and every key, declared once ([`Key`]: name, values, default,
//!   help); checking, error messages, `fanorona players` and the docs' key table come from
//!   there.
//! - [`Registry`]: spec text → [`Settings`] (checked, typed, no I/O) → a
//!   [`Player`](fanorona_players::Player). The network crate registers what builds `net`
//!   players ([`Networks`]).
//!
//! ```
//! use fanorona_specs::{PlayerSettings, Registry};
//!
//! let settings = Registry::classical().parse("alphabeta:ms=200,tb=off").unwrap();
//! let PlayerSettings::AlphaBeta(ab) = settings.player() else { unreachable!() };
//! assert_eq!((ab.search.depth, ab.search.millis, ab.tables), (None, Some(200), false));
//! let error = Registry::classical().parse("alphabeta:depth=99").unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "bad value `99` for `depth` in player `alphabeta`: expected a whole number from 1 to 64"
//! );
//! ```

mod key;
pub mod kinds;
mod load;
mod registry;
mod spec;

pub use key::{Key, Takes};
pub use kinds::{
    AlphaBetaSettings, EvalSource, Kind, MctsSettings, NetSettings, PlayerSettings, SHIPPED_EVAL,
};
pub use load::{load_evaluation, shipped_evaluation};
pub use registry::{BuildError, Networks, Registry, ResourceError, Settings};
pub use spec::{PlayerSpec, SpecError};
