//! The endgame tables as players use them: perfect play at the root of a position the tables
//! cover ([`table_choice`]), and the exact result inside a search ([`exact`]).

use std::sync::Arc;
use std::time::Instant;

use fanorona_engine::{Game, Position};
use fanorona_tablebase::{Probe, Tablebase};

use crate::player::{Choice, ChoiceInfo, Score};

/// Tables shared by the players of a program, or none.
pub type Tables = Option<Arc<Tablebase>>;

/// The tables when they answer for games under `game`'s rules.
pub fn for_game<'a>(tables: &'a Tables, game: &Game) -> Option<&'a Tablebase> {
    tables.as_deref().filter(|tb| tb.fits(game.rules()))
}

/// The exact result of a turn-start position, when the tables cover it and can answer without
/// waiting for a file (a class's distances are read in the background on first need).
#[inline]
pub fn exact(tables: Option<&Tablebase>, pos: &Position) -> Option<Probe> {
    let tb = tables?;
    if !tb.covers(pos) {
        return None;
    }
    tb.probe_ready(pos).ok()
}

/// The table's turn for a covered position: it keeps the exact result, wins as fast and
/// loses as slowly as possible (distance to the next capture). `None` when the tables do not
/// cover the position (or do not fit the game's rules).
pub fn table_choice(tables: &Tables, game: &Game) -> Option<Choice> {
    let started = Instant::now();
    let tb = for_game(tables, game)?;
    let pos = game.position();
    if !tb.covers(pos) || tb.probe_ready(pos).is_err() {
        return None;
    }
    // every turn's result without waiting: until the distances are read, the search plays
    let mut ready = true;
    pos.for_each_turn(|_, child| ready &= tb.probe_ready(child).is_ok());
    if !ready {
        return None;
    }
    let ranked = tb.rank_turns(pos).ok()?;
    let (turn, result) = *ranked.first()?;
    Some(Choice {
        turn,
        info: ChoiceInfo {
            depth: None,
            score: Some(Score::Tablebase(result)),
            nodes: ranked.len() as u64,
            elapsed: started.elapsed(),
        },
    })
}
