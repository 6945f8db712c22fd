//! Helpers shared by the engine's integration tests: the plain reference implementation, and
//! the project's shared test helpers.

#![allow(dead_code, unused_imports)]

pub mod reference;

pub use fanorona_testkit::{Rng, board, random_position, random_walk};
