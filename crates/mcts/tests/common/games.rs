//! Toy games with known optimal play, shared by the tests and the benchmark.

use fanorona_mcts::{GameState, Terminal};

/// Take 1 to 3 stones; whoever takes the last stone wins. The player to move wins iff the pile
/// is not a multiple of four, by leaving one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nim {
    pub stones: u8,
    pub to_move: usize,
}

impl Nim {
    pub fn new(stones: u8) -> Self {
        Nim { stones, to_move: 0 }
    }
}

impl GameState for Nim {
    type Action = u8;
    fn to_move(&self) -> usize {
        self.to_move
    }
    fn legal_actions(&self, out: &mut Vec<u8>) {
        if self.stones > 0 {
            out.extend((1..=3).filter(|&k| k <= self.stones));
        }
    }
    fn apply(&mut self, k: u8) {
        self.stones -= k;
        self.to_move = 1 - self.to_move;
    }
    fn terminal(&self) -> Option<Terminal> {
        (self.stones == 0).then_some(Terminal::Win(1 - self.to_move))
    }
}

/// An action of [`ChainNim`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Chain {
    /// Take one stone; the same player may go on.
    Take,
    /// Stop taking and pass the turn (only after at least one take this turn).
    EndTurn,
}

/// Nim played one stone at a time, like a Fanorona capture chain: a turn is 1 to 3 `Take`
/// actions by the same player, ended by `EndTurn` or automatically after the third take. Whoever
/// takes the last stone wins. Same theory as [`Nim`]: leave a multiple of four.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainNim {
    pub stones: u8,
    pub to_move: usize,
    /// Stones taken so far in this turn.
    pub taken: u8,
}

impl ChainNim {
    pub fn new(stones: u8, taken: u8) -> Self {
        ChainNim {
            stones,
            to_move: 0,
            taken,
        }
    }

    /// Whether the player to move wins with best play.
    pub fn player_to_move_wins(&self) -> bool {
        let first = if self.taken == 0 { 1 } else { 0 };
        (first..=3 - self.taken)
            .filter(|&j| j <= self.stones)
            .any(|j| (self.stones - j).is_multiple_of(4))
    }

    /// The winning actions.
    pub fn winning_actions(&self) -> Vec<Chain> {
        let mut legal = Vec::new();
        self.legal_actions(&mut legal);
        legal
            .into_iter()
            .filter(|&a| {
                let mut next = self.clone();
                next.apply(a);
                match next.terminal() {
                    Some(Terminal::Win(p)) => p == self.to_move,
                    Some(Terminal::Draw) => false,
                    None => (next.to_move == self.to_move) == next.player_to_move_wins(),
                }
            })
            .collect()
    }
}

impl GameState for ChainNim {
    type Action = Chain;
    fn to_move(&self) -> usize {
        self.to_move
    }
    fn legal_actions(&self, out: &mut Vec<Chain>) {
        if self.stones == 0 {
            return;
        }
        out.push(Chain::Take);
        if self.taken > 0 {
            out.push(Chain::EndTurn);
        }
    }
    fn apply(&mut self, action: Chain) {
        match action {
            Chain::Take => {
                self.stones -= 1;
                self.taken += 1;
                if self.stones > 0 && self.taken == 3 {
                    self.to_move = 1 - self.to_move;
                    self.taken = 0;
                }
            }
            Chain::EndTurn => {
                self.to_move = 1 - self.to_move;
                self.taken = 0;
            }
        }
    }
    fn terminal(&self) -> Option<Terminal> {
        // The last stone's taker does not pass the turn, so it is still to move.
        (self.stones == 0).then_some(Terminal::Win(self.to_move))
    }
}

/// Tic-tac-toe; actions are cells 0..9, row by row from the top left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TicTacToe {
    /// 0 empty, 1 player 0 (X), 2 player 1 (O).
    pub cells: [u8; 9],
    pub to_move: usize,
}

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

impl TicTacToe {
    /// Reads a board drawn as three rows of `X`, `O` and `.` (whitespace ignored); X is player 0
    /// and the player to move is the one with fewer stones (X on equality).
    pub fn parse(picture: &str) -> Self {
        let marks: Vec<u8> = picture
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| match c {
                '.' => 0,
                'X' => 1,
                'O' => 2,
                other => panic!("unexpected {other:?} in a tic-tac-toe picture"),
            })
            .collect();
        let cells: [u8; 9] = marks.try_into().expect("nine cells");
        let xs = cells.iter().filter(|&&c| c == 1).count();
        let os = cells.iter().filter(|&&c| c == 2).count();
        TicTacToe {
            cells,
            to_move: usize::from(xs > os),
        }
    }
}

impl GameState for TicTacToe {
    type Action = u8;
    fn to_move(&self) -> usize {
        self.to_move
    }
    fn legal_actions(&self, out: &mut Vec<u8>) {
        if self.terminal().is_none() {
            out.extend((0..9u8).filter(|&i| self.cells[i as usize] == 0));
        }
    }
    fn apply(&mut self, cell: u8) {
        self.cells[cell as usize] = self.to_move as u8 + 1;
        self.to_move = 1 - self.to_move;
    }
    fn terminal(&self) -> Option<Terminal> {
        for line in LINES {
            let c = self.cells[line[0]];
            if c != 0 && line.iter().all(|&i| self.cells[i] == c) {
                return Some(Terminal::Win(usize::from(c - 1)));
            }
        }
        self.cells.iter().all(|&c| c != 0).then_some(Terminal::Draw)
    }
}

/// A game with `branching` actions everywhere, drawn after `length` plies: a wide tree for
/// batching tests and benchmarks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wide {
    pub branching: u8,
    pub length: u32,
    pub ply: u32,
    /// Hash of the actions played, so positions differ.
    pub path: u64,
}

impl Wide {
    pub fn new(branching: u8, length: u32) -> Self {
        Wide {
            branching,
            length,
            ply: 0,
            path: 0,
        }
    }
}

impl GameState for Wide {
    type Action = u8;
    fn to_move(&self) -> usize {
        (self.ply % 2) as usize
    }
    fn legal_actions(&self, out: &mut Vec<u8>) {
        if self.ply < self.length {
            out.extend(0..self.branching);
        }
    }
    fn apply(&mut self, action: u8) {
        self.ply += 1;
        self.path = self
            .path
            .wrapping_mul(31)
            .wrapping_add(u64::from(action) + 1);
    }
    fn terminal(&self) -> Option<Terminal> {
        (self.ply >= self.length).then_some(Terminal::Draw)
    }
}
