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

/// The exact result of a turn-start position, when the tables cover it.
///
/// A search on a clock (`wait` false) never waits for a file: a class's distances are read in
/// the background on first need and the search goes on without them meanwhile (its result
/// already depends on timing). A search without a clock (a depth, a number of playouts) waits
/// for them, so that what it sees, and so every game it plays, depends on its inputs alone
/// and replays exactly.
#[inline]
pub fn exact(tables: Option<&Tablebase>, pos: &Position, wait: bool) -> Option<Probe> {
    let tb = tables?;
    if !tb.covers(pos) {
        return None;
    }
    if wait {
        tb.probe(pos).ok()
    } else {
        tb.probe_ready(pos).ok()
    }
}

/// The table's turn for a covered position: it keeps the exact result, wins as fast and
/// loses as slowly as possible (distance to the next capture). `None` when the tables do not
/// cover the position (or do not fit the game's rules). With `wait` false (a turn on a clock)
/// it never waits for a file: until the distances are read, the search plays (see [`exact`]).
pub fn table_choice(tables: &Tables, game: &Game, wait: bool) -> Option<Choice> {
    let started = Instant::now();
    let tb = for_game(tables, game)?;
    let pos = game.position();
    if !tb.covers(pos) || exact(Some(tb), pos, wait).is_none() {
        return None;
    }
    let mut ready = true;
    pos.for_each_turn(|_, child| ready &= exact(Some(tb), child, wait).is_some());
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
