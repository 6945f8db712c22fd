//! Positions, the chain state of a turn in progress, and applying actions.

use std::fmt;

use crate::error::{IllegalAction, SetupError};
use crate::geometry::{Bitboard, Direction, Point};
use crate::movegen::{self, ActionList};
use crate::moves::{Action, ByColor, Color, Step, StepKind};
use crate::zobrist;

/// Most stones a side may have.
pub const MAX_STONES: u32 = 22;

/// The state of a capture chain in progress: only `stone` may move, it must capture, it may
/// not move in direction `last_dir` again, and it may not land on a point in `visited`
/// (which includes the point where the turn started and the point it stands on).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Chain {
    /// Where the capturing stone stands now.
    pub stone: Point,
    /// Every point the stone has occupied this turn.
    pub visited: Bitboard,
    /// Direction of the stone's previous step.
    pub last_dir: Direction,
}

/// An unchecked description of a position at the start of a turn: public fields, no
/// guarantees. Turn it into a [`Position`] with [`Position::from_setup`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Stones of each colour.
    pub stones: ByColor<Bitboard>,
    /// Side to move.
    pub side_to_move: Color,
    /// Consecutive turns (both sides counted) without a capture.
    pub no_capture_turns: u32,
    /// Turn number, starting at 1 and increasing after Black's turn.
    pub turn_number: u32,
}

/// A legal game position: stones, side to move, counters, and the chain state while a
/// capture chain is under way. Copy-make: [`Position::apply`] returns a new position.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Position {
    stones: ByColor<Bitboard>,
    side: Color,
    chain: Option<Chain>,
    no_capture: u32,
    turn_number: u32,
    hash: u64,
}

impl Position {
    /// The start position: White on rows 1-2, Black on rows 4-5, row 3 `BWBW.BWBW`,
    /// White to move.
    pub fn start() -> Position {
        let row = |y: usize| -> Bitboard { (0..9).filter_map(|x| Point::new(x, y)).collect() };
        let mut white = row(0) | row(1);
        let mut black = row(3) | row(4);
        for (x, c) in [Color::Black, Color::White, Color::Black, Color::White]
            .iter()
            .enumerate()
        {
            let (left, right) = (Point::new(x, 2), Point::new(x + 5, 2));
            for p in [left, right].into_iter().flatten() {
                match c {
                    Color::White => white = white.with(p),
                    Color::Black => black = black.with(p),
                }
            }
        }
        let setup = Setup {
            stones: ByColor([white, black]),
            side_to_move: Color::White,
            no_capture_turns: 0,
            turn_number: 1,
        };
        match Position::from_setup(&setup) {
            Ok(p) => p,
            Err(e) => unreachable!("start position is valid: {e}"),
        }
    }

    /// Check a setup and build the position, at the start of a turn.
    ///
    /// Rejects overlapping stones, more than 22 stones a side, and turn number 0.
    pub fn from_setup(setup: &Setup) -> Result<Position, SetupError> {
        let [white, black] = setup.stones.0;
        if !(white.0 & !Bitboard::FULL.0 == 0 && black.0 & !Bitboard::FULL.0 == 0) {
            return Err(SetupError::OffBoard);
        }
        if let Some(p) = (white & black).first() {
            return Err(SetupError::Overlap(p));
        }
        for c in Color::BOTH {
            let n = setup.stones[c].count();
            if n > MAX_STONES {
                return Err(SetupError::TooManyStones { color: c, count: n });
            }
        }
        if setup.turn_number == 0 {
            return Err(SetupError::TurnNumberZero);
        }
        let mut pos = Position {
            stones: setup.stones,
            side: setup.side_to_move,
            chain: None,
            no_capture: setup.no_capture_turns,
            turn_number: setup.turn_number,
            hash: 0,
        };
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// The unchecked description of this position (the chain state is dropped).
    pub fn to_setup(&self) -> Setup {
        Setup {
            stones: self.stones,
            side_to_move: self.side,
            no_capture_turns: self.no_capture,
            turn_number: self.turn_number,
        }
    }

    /// Stones of colour `c`.
    #[inline]
    pub fn stones(&self, c: Color) -> Bitboard {
        self.stones[c]
    }

    /// All stones.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.stones[Color::White] | self.stones[Color::Black]
    }

    /// Empty points.
    #[inline]
    pub fn empty(&self) -> Bitboard {
        !self.occupied()
    }

    /// The colour of the stone on `p`, if any.
    pub fn color_at(&self, p: Point) -> Option<Color> {
        Color::BOTH
            .into_iter()
            .find(|&c| self.stones[c].contains(p))
    }

    /// Side to move (during a chain, the side making the chain).
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The chain in progress, if the side to move is in the middle of a capture chain.
    #[inline]
    pub fn chain(&self) -> Option<&Chain> {
        self.chain.as_ref()
    }

    /// True at the start of a turn (no chain in progress).
    #[inline]
    pub fn is_turn_start(&self) -> bool {
        self.chain.is_none()
    }

    /// Consecutive complete turns without a capture (0 during a chain).
    #[inline]
    pub fn no_capture_turns(&self) -> u32 {
        self.no_capture
    }

    /// Turn number: 1 at the start, increasing after each Black turn.
    #[inline]
    pub fn turn_number(&self) -> u32 {
        self.turn_number
    }

    /// Zobrist hash, kept up to date by [`Position::apply`]. At a turn start it depends only
    /// on the placement of stones and the side to move.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash computed from scratch (equal to [`Position::hash`]; used by tests).
    pub fn compute_hash(&self) -> u64 {
        let mut h = zobrist::stones(Color::White, self.stones[Color::White])
            ^ zobrist::stones(Color::Black, self.stones[Color::Black]);
        if self.side == Color::Black {
            h ^= zobrist::black_to_move();
        }
        if let Some(c) = &self.chain {
            h ^= chain_hash(c);
        }
        h
    }

    /// Whether the side to move has a capturing step (from the chain stone during a chain).
    pub fn has_capture(&self) -> bool {
        let us = self.side;
        let (own, enemy, empty) = (self.stones[us], self.stones[!us], self.empty());
        match &self.chain {
            None => movegen::any_capture(own, enemy, empty, None),
            Some(c) => movegen::chain_can_continue(c.stone, enemy, empty, c.visited, c.last_dir),
        }
    }

    /// Whether the side to move has any legal action.
    pub fn has_legal_action(&self) -> bool {
        if self.chain.is_some() {
            return true;
        }
        let own = self.stones[self.side];
        if own.is_empty() {
            return false;
        }
        let empty = self.empty();
        Direction::ALL
            .iter()
            .any(|&d| !(own & empty.shift(d.opposite())).is_empty())
    }

    /// Every legal action: capturing steps if any exist, otherwise paika steps. During a
    /// chain: the chain stone's capturing steps plus [`Action::EndTurn`].
    ///
    /// At a turn start where a side has no stones left the game is over; the list then
    /// holds the paika steps of the side to move, if any (use [`crate::Game`] for outcomes).
    pub fn legal_actions(&self) -> ActionList {
        let mut out = ActionList::new();
        let us = self.side;
        let (own, enemy, empty) = (self.stones[us], self.stones[!us], self.empty());
        match &self.chain {
            None => {
                if !movegen::push_captures(own, enemy, empty, None, &mut out) {
                    movegen::push_paika(own, empty, &mut out);
                }
            }
            Some(c) => {
                let dest = empty & !c.visited;
                movegen::push_captures(c.stone.bit(), enemy, dest, Some(c.last_dir), &mut out);
                out.push(Action::EndTurn);
            }
        }
        out
    }

    /// The enemy stones `step` would capture here (empty for a paika step). Meaningful for a
    /// legal step; for others it reports what the capture line would hold.
    pub fn captured_by(&self, step: Step) -> Bitboard {
        movegen::captured_by(step, self.stones[!self.side])
    }

    /// Whether `action` is legal here.
    pub fn is_legal(&self, action: Action) -> bool {
        match action {
            Action::EndTurn => self.chain.is_some(),
            Action::Step(step) => self.step_is_legal(step),
        }
    }

    fn step_is_legal(&self, step: Step) -> bool {
        let us = self.side;
        let (own, enemy, empty) = (self.stones[us], self.stones[!us], self.empty());
        let (movers, dest) = match &self.chain {
            None => (own, empty),
            Some(c) => {
                if step.dir() == c.last_dir || !step.is_capture() {
                    return false;
                }
                (c.stone.bit(), empty & !c.visited)
            }
        };
        if !movers.contains(step.from()) || !dest.contains(step.to()) {
            return false;
        }
        match step.kind() {
            StepKind::Paika => !movegen::any_capture(own, enemy, empty, None),
            _ => !movegen::captured_by(step, enemy).is_empty(),
        }
    }

    /// The position after `action`, or an error if it is not legal here.
    pub fn try_apply(&self, action: Action) -> Result<Position, IllegalAction> {
        if self.is_legal(action) {
            Ok(self.apply(action))
        } else {
            Err(IllegalAction {
                action,
                position: crate::notation::format_position(self),
            })
        }
    }

    /// The position after a legal `action`.
    ///
    /// After a capture the same side keeps the move while the chain stone can capture again
    /// (a chain position); otherwise the turn passes. A paika step or [`Action::EndTurn`]
    /// always passes the turn.
    ///
    /// # Panics
    /// Does not check legality (use [`Position::try_apply`] for untrusted actions). An
    /// illegal action gives a well-formed but meaningless position; debug builds panic.
    pub fn apply(&self, action: Action) -> Position {
        debug_assert!(self.is_legal(action), "illegal action {action} in {self}");
        let mut next = *self;
        match action {
            Action::EndTurn => next.finish_turn(),
            Action::Step(step) => {
                let us = self.side;
                let (from, to) = (step.from(), step.to());
                next.stones[us] = next.stones[us].without(from).with(to);
                next.hash ^= zobrist::stone(us, from) ^ zobrist::stone(us, to);
                if step.kind() == StepKind::Paika {
                    next.no_capture = next.no_capture.saturating_add(1);
                    next.finish_turn();
                    return next;
                }
                let captured = movegen::captured_by(step, self.stones[!us]);
                next.stones[!us] ^= captured;
                next.hash ^= zobrist::stones(!us, captured);
                next.no_capture = 0;
                let visited = match &self.chain {
                    Some(c) => {
                        next.hash ^= chain_hash(c);
                        c.visited.with(to)
                    }
                    None => from.bit().with(to),
                };
                let enemy = next.stones[!us];
                let empty = next.empty();
                if movegen::chain_can_continue(to, enemy, empty, visited, step.dir()) {
                    let chain = Chain {
                        stone: to,
                        visited,
                        last_dir: step.dir(),
                    };
                    next.hash ^= chain_hash(&chain);
                    next.chain = Some(chain);
                } else {
                    next.chain = None;
                    next.finish_turn();
                }
            }
        }
        next
    }

    /// Pass the turn: drop the chain, switch sides, count turn numbers.
    fn finish_turn(&mut self) {
        if let Some(c) = self.chain.take() {
            self.hash ^= chain_hash(&c);
        }
        if self.side == Color::Black {
            self.turn_number = self.turn_number.saturating_add(1);
        }
        self.side = !self.side;
        self.hash ^= zobrist::black_to_move();
    }

    /// Build a position from its parts (used by symmetries); the hash is recomputed.
    pub(crate) fn from_parts(
        stones: ByColor<Bitboard>,
        side: Color,
        chain: Option<Chain>,
        no_capture: u32,
        turn_number: u32,
    ) -> Position {
        let mut pos = Position {
            stones,
            side,
            chain,
            no_capture,
            turn_number,
            hash: 0,
        };
        pos.hash = pos.compute_hash();
        pos
    }
}

fn chain_hash(c: &Chain) -> u64 {
    zobrist::chain_stone(c.stone) ^ zobrist::visited(c.visited) ^ zobrist::last_dir(c.last_dir)
}

impl Default for Position {
    fn default() -> Position {
        Position::start()
    }
}

impl fmt::Display for Position {
    /// The position in the notation of docs/rules.md (a chain in progress is not shown).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::notation::format_position(self))
    }
}

impl fmt::Debug for Position {
    /// A board picture, row 5 on top, with the position text and chain state.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Position({self}")?;
        f.write_str(&crate::notation::board_picture(self))?;
        if let Some(c) = &self.chain {
            writeln!(
                f,
                "  chain: stone {} last {:?} visited {:?}",
                c.stone,
                c.last_dir,
                c.visited.iter().collect::<Vec<_>>()
            )?;
        }
        write!(f, ")")
    }
}
