//! Fanorona as a [`GameState`]: the search's view of a [`fanorona_engine::Game`].
//!
//! The search works at the **step level**: an action is one [`Action`] (a step of a stone, or
//! [`Action::EndTurn`] to stop a capture chain that could go on). After a capture the same player
//! keeps the move while the chain can continue, so [`GameState::to_move`] may return the same
//! player several times in a row; "end turn" is an ordinary action. Player `i` is the colour with
//! [`Color::index`] `i` (White 0, Black 1).
//!
//! Every end-of-game rule (no stones, no legal move, threefold repetition, no progress) comes
//! from [`Game::outcome`], so the search and the rest of the project agree on them. With
//! endgame tables ([`FanoronaState::with_tables`]) a turn-start position they cover is terminal
//! too, with its exact result: the search spends no evaluation below it.
//!
//! ```
//! use fanorona_engine::{Game, Rules};
//! use fanorona_players::FanoronaState;
//! use fanorona_mcts::GameState;
//!
//! let state = FanoronaState::new(Game::new(Rules::default()));
//! let mut actions = Vec::new();
//! state.legal_actions(&mut actions);
//! assert_eq!(actions.len(), 5); // White's five opening captures
//! assert_eq!(state.to_move(), 0); // White
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use fanorona_engine::{Action, Color, Game, Position, Rules};
use fanorona_mcts::{GameState, Terminal};
use fanorona_tablebase::{Tablebase, Wdl};

/// A Fanorona game as the search sees it: a [`Game`] (position, rules and the turn-start history
/// the repetition rule needs).
///
/// Cloning copies the position and the history since the last capture (a few dozen hashes at
/// most under the default no-progress limit). Two states are equal when their games are.
#[derive(Clone, Debug)]
pub struct FanoronaState {
    game: Game,
    /// Endgame tables for the game's rules, if any.
    tables: Option<Arc<SearchTables>>,
}

/// Endgame tables as a search uses them, with a count of the positions they decided (each
/// one a leaf the evaluator did not have to look at). Shared by every state of a search, or
/// of many searches.
#[derive(Debug)]
pub struct SearchTables {
    tables: Arc<Tablebase>,
    hits: AtomicU64,
    /// Wait for a class's distances on first need (a search without a clock: see
    /// [`crate::tables::exact`]).
    wait: bool,
}

impl SearchTables {
    /// Count the uses of `tables`, for a search without a clock: a class's distances are
    /// waited for when first needed, so the search replays exactly.
    pub fn new(tables: Arc<Tablebase>) -> Self {
        SearchTables {
            tables,
            hits: AtomicU64::new(0),
            wait: true,
        }
    }

    /// Count the uses of `tables`, for a search on a clock: it never waits for a file (a
    /// class's distances are read in the background meanwhile).
    pub fn on_clock(tables: Arc<Tablebase>) -> Self {
        SearchTables {
            wait: false,
            ..SearchTables::new(tables)
        }
    }

    /// Positions the tables decided so far.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// The tables.
    pub fn tables(&self) -> &Arc<Tablebase> {
        &self.tables
    }
}

impl PartialEq for FanoronaState {
    fn eq(&self, other: &Self) -> bool {
        self.game == other.game
    }
}

impl Eq for FanoronaState {}

impl FanoronaState {
    /// Wraps a game.
    pub fn new(game: Game) -> Self {
        FanoronaState { game, tables: None }
    }

    /// Uses `tables` to end the search at the positions they cover (tables built for other
    /// rules than the game's are ignored).
    pub fn with_tables(self, tables: Option<Arc<Tablebase>>) -> Self {
        self.with_search_tables(tables.map(|tb| Arc::new(SearchTables::new(tb))))
    }

    /// Like [`FanoronaState::with_tables`], counting the positions decided in `tables`.
    pub fn with_search_tables(mut self, tables: Option<Arc<SearchTables>>) -> Self {
        self.tables = tables.filter(|t| t.tables.fits(self.game.rules()));
        self
    }

    /// The exact result of the current position from the tables, as a terminal result.
    fn table_result(&self) -> Option<Terminal> {
        let pos = self.game.position();
        let tables = self.tables.as_deref()?;
        let probe = crate::tables::exact(Some(&tables.tables), pos, tables.wait)?;
        tables.hits.fetch_add(1, Ordering::Relaxed);
        let us = player_of(pos.side_to_move());
        Some(match probe.wdl {
            Wdl::Win => Terminal::Win(us),
            Wdl::Loss => Terminal::Win(1 - us),
            Wdl::Draw => Terminal::Draw,
        })
    }

    /// A game from `position` under `rules` (its history starts there).
    pub fn from_position(position: Position, rules: Rules) -> Self {
        FanoronaState::new(Game::from_position(position, rules))
    }

    /// The wrapped game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// Unwraps the game.
    pub fn into_game(self) -> Game {
        self.game
    }

    /// The engine's outcome, with its reason (the search only needs [`GameState::terminal`]).
    pub fn engine_outcome(&self) -> Option<fanorona_engine::Outcome> {
        self.game.outcome()
    }
}

impl From<Game> for FanoronaState {
    fn from(game: Game) -> Self {
        FanoronaState::new(game)
    }
}

/// The search's player number of a colour.
pub fn player_of(color: Color) -> usize {
    color.index()
}

/// The search's terminal result for an engine outcome.
pub fn terminal_of(outcome: fanorona_engine::Outcome) -> Terminal {
    match outcome.winner() {
        Some(winner) => Terminal::Win(player_of(winner)),
        None => Terminal::Draw,
    }
}

impl GameState for FanoronaState {
    type Action = Action;

    #[inline]
    fn to_move(&self) -> usize {
        player_of(self.game.position().side_to_move())
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.extend_from_slice(&self.game.position().legal_actions());
    }

    /// Plays a legal action; see [`Position::apply`] for illegal ones.
    #[inline]
    fn apply(&mut self, action: Action) {
        self.game.apply(action);
    }

    fn terminal(&self) -> Option<Terminal> {
        match self.game.outcome() {
            Some(outcome) => Some(terminal_of(outcome)),
            None => self.table_result(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_keeps_the_same_player_and_end_turn_passes() {
        // White d3 captures e3 by approach... set up a chain: c3d3a takes e3, then d3d4a takes d5.
        let pos: Position = "3B5/9/2W1B4/1B7/8W w".parse().unwrap();
        let mut state = FanoronaState::from_position(pos, Rules::default());
        assert_eq!(state.to_move(), 0);
        state.apply("c3d3a".parse().unwrap());
        assert!(state.position().chain().is_some());
        assert_eq!(state.to_move(), 0, "White keeps the move mid-chain");
        assert_eq!(state.terminal(), None);
        let mut actions = Vec::new();
        state.legal_actions(&mut actions);
        assert!(actions.contains(&Action::EndTurn));
        state.apply(Action::EndTurn);
        assert_eq!(state.to_move(), 1);
    }

    #[test]
    fn outcomes_map_winner_to_player_index() {
        let pos: Position = "9/9/9/9/W1B6 w".parse().unwrap();
        let mut state = FanoronaState::from_position(pos, Rules::default());
        state.apply("a1b1a".parse().unwrap());
        assert_eq!(state.terminal(), Some(Terminal::Win(0)));
    }
}
