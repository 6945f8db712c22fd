//! A deliberately naive Fanorona move generator written straight from docs/rules.md: a 5x9 array,
//! loops over every point and direction, vectors everywhere. It shares no code with the
//! engine (not even geometry), so the two can be compared.

#![allow(dead_code)]

/// 0 = empty, 1 = white, 2 = black.
pub type Cell = u8;
pub const EMPTY: Cell = 0;
pub const WHITE: Cell = 1;
pub const BLACK: Cell = 2;

const DIRS: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefChain {
    pub stone: (i32, i32),
    pub visited: Vec<(i32, i32)>,
    pub last: (i32, i32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefState {
    /// `cells[y][x]`, y = 0 is row 1.
    pub cells: [[Cell; 9]; 5],
    pub side: Cell,
    pub chain: Option<RefChain>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefStep {
    pub from: (i32, i32),
    pub to: (i32, i32),
    /// "" paika, "a" approach, "w" withdrawal.
    pub kind: &'static str,
    pub captured: Vec<(i32, i32)>,
}

pub fn point_name((x, y): (i32, i32)) -> String {
    format!("{}{}", (b'a' + x as u8) as char, y + 1)
}

impl RefStep {
    pub fn text(&self) -> String {
        format!(
            "{}{}{}",
            point_name(self.from),
            point_name(self.to),
            self.kind
        )
    }
}

fn on_board(x: i32, y: i32) -> bool {
    (0..9).contains(&x) && (0..5).contains(&y)
}

/// Is there a line from (x, y) in direction (dx, dy)?
fn has_line(x: i32, y: i32, dx: i32, dy: i32) -> bool {
    if !on_board(x + dx, y + dy) {
        return false;
    }
    let diagonal = dx != 0 && dy != 0;
    !diagonal || (x + y) % 2 == 0
}

impl RefState {
    /// Parse the placement and side of a position string (ignores counters).
    pub fn from_fen(fen: &str) -> RefState {
        let mut parts = fen.split_whitespace();
        let placement = parts.next().unwrap();
        let side = if parts.next().unwrap() == "w" {
            WHITE
        } else {
            BLACK
        };
        let mut cells = [[EMPTY; 9]; 5];
        for (i, row) in placement.split('/').enumerate() {
            let y = 4 - i;
            let mut x = 0;
            for ch in row.chars() {
                match ch {
                    'W' => {
                        cells[y][x] = WHITE;
                        x += 1;
                    }
                    'B' => {
                        cells[y][x] = BLACK;
                        x += 1;
                    }
                    d => x += d.to_digit(10).unwrap() as usize,
                }
            }
        }
        RefState {
            cells,
            side,
            chain: None,
        }
    }

    pub fn at(&self, x: i32, y: i32) -> Cell {
        self.cells[y as usize][x as usize]
    }

    fn enemy(&self) -> Cell {
        3 - self.side
    }

    pub fn count(&self, c: Cell) -> usize {
        self.cells.iter().flatten().filter(|&&v| v == c).count()
    }

    /// The enemy stones captured when the stone from `from` moves by (dx, dy) with `kind`.
    fn line_capture(&self, from: (i32, i32), dx: i32, dy: i32, kind: &str) -> Vec<(i32, i32)> {
        let (mut x, mut y, sx, sy) = if kind == "a" {
            (from.0 + 2 * dx, from.1 + 2 * dy, dx, dy)
        } else {
            (from.0 - dx, from.1 - dy, -dx, -dy)
        };
        // The point captured first must be joined by the same line.
        let (lx, ly) = if kind == "a" {
            (from.0 + dx, from.1 + dy)
        } else {
            from
        };
        if !has_line(lx, ly, sx, sy) {
            return Vec::new();
        }
        let mut out = Vec::new();
        while on_board(x, y) && self.at(x, y) == self.enemy() {
            out.push((x, y));
            if !has_line(x, y, sx, sy) {
                break;
            }
            x += sx;
            y += sy;
        }
        out
    }

    /// All capturing steps of the side to move, honouring the chain restrictions.
    pub fn capture_steps(&self) -> Vec<RefStep> {
        let mut out = Vec::new();
        for y in 0..5 {
            for x in 0..9 {
                if self.at(x, y) != self.side {
                    continue;
                }
                if self.chain.as_ref().is_some_and(|c| c.stone != (x, y)) {
                    continue;
                }
                for &(dx, dy) in &DIRS {
                    if !has_line(x, y, dx, dy) {
                        continue;
                    }
                    let to = (x + dx, y + dy);
                    if self.at(to.0, to.1) != EMPTY {
                        continue;
                    }
                    let chain_forbids = self
                        .chain
                        .as_ref()
                        .is_some_and(|c| c.last == (dx, dy) || c.visited.contains(&to));
                    if chain_forbids {
                        continue;
                    }
                    for kind in ["a", "w"] {
                        let captured = self.line_capture((x, y), dx, dy, kind);
                        if !captured.is_empty() {
                            out.push(RefStep {
                                from: (x, y),
                                to,
                                kind,
                                captured,
                            });
                        }
                    }
                }
            }
        }
        out
    }

    pub fn paika_steps(&self) -> Vec<RefStep> {
        let mut out = Vec::new();
        for y in 0..5 {
            for x in 0..9 {
                if self.at(x, y) != self.side {
                    continue;
                }
                for &(dx, dy) in &DIRS {
                    if has_line(x, y, dx, dy) && self.at(x + dx, y + dy) == EMPTY {
                        out.push(RefStep {
                            from: (x, y),
                            to: (x + dx, y + dy),
                            kind: "",
                            captured: Vec::new(),
                        });
                    }
                }
            }
        }
        out
    }

    /// Step-level legal actions as text ("end" while a chain is under way).
    pub fn legal_action_texts(&self) -> Vec<String> {
        let caps = self.capture_steps();
        let mut out: Vec<String> = if self.chain.is_some() {
            let mut v: Vec<String> = caps.iter().map(RefStep::text).collect();
            v.push("end".to_string());
            v
        } else if caps.is_empty() {
            self.paika_steps().iter().map(RefStep::text).collect()
        } else {
            caps.iter().map(RefStep::text).collect()
        };
        out.sort();
        out
    }

    fn end_turn(&mut self) {
        self.chain = None;
        self.side = 3 - self.side;
    }

    /// Apply a step-level action given as text; returns false if it is not legal.
    pub fn apply_text(&mut self, text: &str) -> bool {
        if text == "end" {
            if self.chain.is_none() {
                return false;
            }
            self.end_turn();
            return true;
        }
        let steps = if self.chain.is_some() {
            self.capture_steps()
        } else {
            let caps = self.capture_steps();
            if caps.is_empty() {
                self.paika_steps()
            } else {
                caps
            }
        };
        let Some(step) = steps.into_iter().find(|s| s.text() == text) else {
            return false;
        };
        self.apply_step(&step);
        true
    }

    fn apply_step(&mut self, step: &RefStep) {
        let side = self.side;
        self.cells[step.from.1 as usize][step.from.0 as usize] = EMPTY;
        self.cells[step.to.1 as usize][step.to.0 as usize] = side;
        for &(x, y) in &step.captured {
            self.cells[y as usize][x as usize] = EMPTY;
        }
        if step.kind.is_empty() {
            self.end_turn();
            return;
        }
        let mut visited = match &self.chain {
            Some(c) => c.visited.clone(),
            None => vec![step.from],
        };
        visited.push(step.to);
        let last = (step.to.0 - step.from.0, step.to.1 - step.from.1);
        self.chain = Some(RefChain {
            stone: step.to,
            visited,
            last,
        });
        if self.capture_steps().is_empty() {
            self.end_turn();
        }
    }

    /// Every complete turn from a turn start, as text, sorted.
    pub fn turn_texts(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.count(WHITE) == 0 || self.count(BLACK) == 0 {
            return out;
        }
        let caps = self.capture_steps();
        if caps.is_empty() {
            for s in self.paika_steps() {
                out.push(s.text());
            }
        } else {
            for s in caps {
                self.chain_turns(&s, String::new(), &mut out);
            }
        }
        out.sort();
        out
    }

    fn chain_turns(&self, step: &RefStep, prefix: String, out: &mut Vec<String>) {
        let text = if prefix.is_empty() {
            step.text()
        } else {
            format!("{prefix},{}", step.text())
        };
        out.push(text.clone());
        let mut next = self.clone();
        next.apply_step(step);
        if next.chain.is_some() {
            for s in next.capture_steps() {
                next.chain_turns(&s, text.clone(), out);
            }
        }
    }

    /// The state after a whole turn given as text.
    pub fn after_turn(&self, text: &str) -> RefState {
        let mut next = self.clone();
        for step in text.split(',') {
            assert!(next.apply_text(step), "reference: illegal step {step}");
        }
        if next.chain.is_some() {
            next.end_turn();
        }
        next
    }

    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let turns = self.turn_texts();
        if depth == 1 {
            return turns.len() as u64;
        }
        turns
            .iter()
            .map(|t| self.after_turn(t).perft(depth - 1))
            .sum()
    }
}
