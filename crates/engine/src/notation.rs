//! The notation of docs/rules.md: points (`e3`), steps (`d3e3a`, `d2e3`), turns (`e2e3a,e3d4w`)
//! and positions (`BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1`).
//!
//! Formatting then parsing gives back exactly the same value, and parsing rejects malformed
//! text with an error that says what is wrong and where.

use std::fmt;
use std::str::FromStr;

use crate::error::{FenError, ParseError};
use crate::geometry::{Bitboard, Direction, HEIGHT, Point, WIDTH};
use crate::moves::{Action, ByColor, Color, MAX_TURN_STEPS, Step, StepKind, Turn};
use crate::position::{Position, Setup};

/// The start position in notation.
pub const START_FEN: &str = "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1";

impl FromStr for Point {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Point, ParseError> {
        let err = |reason| ParseError::Point {
            text: s.to_string(),
            reason,
        };
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(err(
                "a point is a column letter a-i then a row digit 1-5, like e3",
            ));
        }
        if !(b'a'..=b'i').contains(&b[0]) {
            return Err(err("the column must be a letter a-i"));
        }
        if !(b'1'..=b'5').contains(&b[1]) {
            return Err(err("the row must be a digit 1-5"));
        }
        Point::new((b[0] - b'a') as usize, (b[1] - b'1') as usize)
            .ok_or_else(|| err("off the board"))
    }
}

impl fmt::Display for StepKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StepKind::Paika => "",
            StepKind::Approach => "a",
            StepKind::Withdrawal => "w",
        })
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.from(), self.to(), self.kind())
    }
}

impl FromStr for Step {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Step, ParseError> {
        let err = |reason: String| ParseError::Step {
            text: s.to_string(),
            reason,
        };
        if !s.is_ascii() || !(4..=5).contains(&s.len()) {
            return Err(err(
                "a step is origin, destination and for a capture 'a' or 'w', like d3e3a or d2e3"
                    .into(),
            ));
        }
        let from: Point = s[0..2].parse().map_err(|e| err(format!("origin: {e}")))?;
        let to: Point = s[2..4]
            .parse()
            .map_err(|e| err(format!("destination: {e}")))?;
        let kind = match &s[4..] {
            "" => StepKind::Paika,
            "a" => StepKind::Approach,
            "w" => StepKind::Withdrawal,
            other => {
                return Err(err(format!(
                    "capture kind must be 'a' (approach) or 'w' (withdrawal), found {other:?}"
                )));
            }
        };
        let dir = Direction::between(from, to)
            .ok_or_else(|| err(format!("{from} and {to} are not adjacent along a line")))?;
        Step::new(from, dir, kind).ok_or_else(|| err("no such line".into()))
    }
}

impl fmt::Display for Action {
    /// A step in step notation; ending a chain is written `end`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Step(s) => fmt::Display::fmt(s, f),
            Action::EndTurn => f.write_str("end"),
        }
    }
}

impl FromStr for Action {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Action, ParseError> {
        if s == "end" {
            Ok(Action::EndTurn)
        } else {
            s.parse().map(Action::Step)
        }
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.steps().iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            fmt::Display::fmt(s, f)?;
        }
        Ok(())
    }
}

impl FromStr for Turn {
    type Err = ParseError;

    /// Parses the steps only; whether they form a legal turn is checked when it is played.
    fn from_str(s: &str) -> Result<Turn, ParseError> {
        let mut turn = Turn::empty();
        for (index, part) in s.split(',').enumerate() {
            if index >= MAX_TURN_STEPS {
                return Err(ParseError::TurnTooLong {
                    text: s.to_string(),
                });
            }
            let step: Step = part.parse().map_err(|e| ParseError::Turn {
                text: s.to_string(),
                index,
                source: Box::new(e),
            })?;
            turn.push(step);
        }
        Ok(turn)
    }
}

/// The position in notation. A chain in progress is not part of the notation.
pub fn format_position(pos: &Position) -> String {
    let mut out = String::with_capacity(64);
    for y in (0..HEIGHT).rev() {
        let mut run = 0;
        for x in 0..WIDTH {
            let Some(p) = Point::new(x, y) else { continue };
            match pos.color_at(p) {
                None => run += 1,
                Some(c) => {
                    if run > 0 {
                        out.push(char::from(b'0' + run));
                        run = 0;
                    }
                    out.push(if c == Color::White { 'W' } else { 'B' });
                }
            }
        }
        if run > 0 {
            out.push(char::from(b'0' + run));
        }
        if y > 0 {
            out.push('/');
        }
    }
    let side = if pos.side_to_move() == Color::White {
        'w'
    } else {
        'b'
    };
    out.push_str(&format!(
        " {side} {} {}",
        pos.no_capture_turns(),
        pos.turn_number()
    ));
    out
}

/// Parse a position string (docs/rules.md, Notation). The last two fields may be omitted.
pub fn parse_position(text: &str) -> Result<Position, ParseError> {
    parse_fen(text).map_err(|error| ParseError::Position {
        text: text.to_string(),
        error,
    })
}

fn parse_fen(text: &str) -> Result<Position, FenError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.is_empty() {
        return Err(FenError::Empty);
    }
    if fields.len() != 2 && fields.len() != 4 {
        return Err(FenError::FieldCount {
            found: fields.len(),
        });
    }
    let placement = fields[0];
    let rows: Vec<&str> = placement.split('/').collect();
    if rows.len() != HEIGHT {
        return Err(FenError::RowCount { found: rows.len() });
    }
    // 1-based offset of the placement field within the text, for error positions.
    let base = text.len() - text.trim_start().len() + 1;
    let stones = parse_placement(&rows, base)?;
    let side = match fields[1] {
        "w" => Color::White,
        "b" => Color::Black,
        other => {
            return Err(FenError::BadSide {
                found: other.to_string(),
            });
        }
    };
    let (no_capture, turn_number) = if fields.len() == 4 {
        parse_counters(fields[2], fields[3])?
    } else {
        (0, 1)
    };
    let setup = Setup {
        stones,
        side_to_move: side,
        no_capture_turns: no_capture,
        turn_number,
    };
    Ok(Position::from_setup(&setup)?)
}

/// The stones of the placement field's rows (row 5 first); `offset` is where the field starts.
fn parse_placement(rows: &[&str], mut offset: usize) -> Result<ByColor<Bitboard>, FenError> {
    let mut stones = ByColor([Bitboard::EMPTY; 2]);
    for (i, row_text) in rows.iter().enumerate() {
        let y = HEIGHT - 1 - i;
        let row = y + 1;
        let mut x = 0usize;
        for ch in row_text.chars() {
            match ch {
                'W' | 'B' => {
                    if let Some(p) = Point::new(x, y) {
                        let c = if ch == 'W' {
                            Color::White
                        } else {
                            Color::Black
                        };
                        stones[c] = stones[c].with(p);
                    }
                    x += 1;
                }
                '1'..='9' => x += (ch as u8 - b'0') as usize,
                _ => return Err(FenError::BadChar { row, ch, offset }),
            }
            offset += ch.len_utf8();
        }
        if x != WIDTH {
            return Err(FenError::RowLength {
                row,
                text: row_text.to_string(),
                points: x,
            });
        }
        offset += 1; // the '/'
    }
    Ok(stones)
}

/// The no-capture counter and the turn number (at least 1).
fn parse_counters(no_capture: &str, turn: &str) -> Result<(u32, u32), FenError> {
    let no_capture = no_capture.parse().map_err(|_| FenError::BadNumber {
        field: "no-capture turn counter",
        found: no_capture.to_string(),
    })?;
    let turn_number = turn
        .parse()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| FenError::BadNumber {
            field: "turn number",
            found: turn.to_string(),
        })?;
    Ok((no_capture, turn_number))
}

impl FromStr for Position {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Position, ParseError> {
        parse_position(s)
    }
}

/// How [`draw_board`] draws the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BoardStyle {
    /// One character a point, files below: the form in tests, logs and `Debug`.
    Compact,
    /// The board's lines between the points (orthogonal and the diagonals of the strong
    /// points), files above and below, ranks on both sides: the terminal game's board.
    Lines,
}

/// An ASCII picture of the board, row 5 on top, with coordinates: `W`, `B`, `.` for empty.
pub fn board_picture(pos: &Position) -> String {
    draw_board(pos, BoardStyle::Compact)
}

/// An ASCII picture of the board in `style`, row 5 on top: `W`, `B`, `.` for empty.
pub fn draw_board(pos: &Position, style: BoardStyle) -> String {
    draw_board_for(pos, style, Color::White)
}

/// An ASCII picture of the board in `style` as `viewer` sees it from their side: White has
/// row 1 at the bottom and file a on the left ([`draw_board`]), Black the board turned half
/// round (row 5 at the bottom, file i on the left).
pub fn draw_board_for(pos: &Position, style: BoardStyle, viewer: Color) -> String {
    let lines = style == BoardStyle::Lines;
    let turned = viewer == Color::Black;
    let xs: Vec<usize> = if turned {
        (0..WIDTH).rev().collect()
    } else {
        (0..WIDTH).collect()
    };
    let ys: Vec<usize> = if turned {
        (0..HEIGHT).collect()
    } else {
        (0..HEIGHT).rev().collect()
    };
    let letter = |x: usize| char::from(b'a' + x as u8);
    let files = if lines {
        let letters: Vec<String> = xs.iter().map(|&x| letter(x).to_string()).collect();
        format!("    {}\n", letters.join("   "))
    } else {
        let letters: String = xs.iter().map(|&x| format!(" {}", letter(x))).collect();
        format!("    {letters}\n")
    };
    let mut out = String::new();
    if lines {
        out.push_str(&files);
    }
    for (row, &y) in ys.iter().enumerate() {
        out.push_str(&if lines {
            format!(" {}  ", y + 1)
        } else {
            format!("  {} ", y + 1)
        });
        for (column, &x) in xs.iter().enumerate() {
            out.push_str(match (lines, column) {
                (false, _) => " ",
                (true, 0) => "",
                (true, _) => " - ",
            });
            out.push(match Point::new(x, y).and_then(|p| pos.color_at(p)) {
                Some(Color::White) => 'W',
                Some(Color::Black) => 'B',
                None => '.',
            });
        }
        if lines {
            out.push_str(&format!("  {}", y + 1));
        }
        out.push('\n');
        if lines && row + 1 < ys.len() {
            out.push_str("    ");
            for (column, &x) in xs.iter().enumerate() {
                out.push('|');
                if column + 1 < xs.len() {
                    // A square's diagonal leaves its strong corner (x + y even): the upper
                    // left one as drawn, or else the upper right one.
                    out.push_str(if (x + y) % 2 == 0 { " \\ " } else { " / " });
                }
            }
            out.push('\n');
        }
    }
    out.push_str(&files);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_turned_for_black_is_the_same_picture_upside_down() {
        // A position without symmetry: a turned picture must show every point where the
        // half-turn puts it, and the lines between them.
        let pos = parse_position("B8/9/2W1B4/1B7/8W w").unwrap();
        let plain = draw_board(&pos, BoardStyle::Lines);
        let turned = draw_board_for(&pos, BoardStyle::Lines, Color::Black);
        // Turning the plain picture by hand: lines and characters in reverse order. The
        // coordinates come out reversed too ("5" stays "5", "a" is still one letter), so
        // compare the drawn board without its margins.
        let board = |text: &str| -> Vec<String> {
            text.lines()
                .filter(|l| !l.trim_start().starts_with('a') && !l.trim_start().starts_with('i'))
                .map(|l| l.get(4..l.len().min(37)).unwrap_or("").to_string())
                .collect()
        };
        let by_hand: Vec<String> = board(&plain)
            .iter()
            .rev()
            .map(|l| l.chars().rev().collect())
            .collect();
        assert_eq!(board(&turned), by_hand, "\n{plain}\n{turned}");
        let lines: Vec<&str> = turned.lines().collect();
        assert_eq!(lines[0], "    i   h   g   f   e   d   c   b   a");
        assert_eq!(lines[1], " 1  W - . - . - . - . - . - . - . - .  1");
        assert_eq!(lines[9], " 5  . - . - . - . - . - . - . - . - B  5");
        // White's view is unchanged.
        assert_eq!(draw_board_for(&pos, BoardStyle::Lines, Color::White), plain);
        let compact = draw_board_for(&pos, BoardStyle::Compact, Color::Black);
        assert!(compact.starts_with("  1  W . . ."), "{compact}");
        assert!(compact.ends_with("     i h g f e d c b a\n"), "{compact}");
    }

    #[test]
    fn start_position_round_trips() {
        let pos = Position::start();
        assert_eq!(format_position(&pos), START_FEN);
        assert_eq!(parse_position(START_FEN).unwrap(), pos);
    }

    #[test]
    fn short_form_reads_default_counters() {
        let pos = parse_position("BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w").unwrap();
        assert_eq!(pos, Position::start());
    }

    #[test]
    fn bad_positions_say_what_and_where() {
        let cases = [
            ("", "empty"),
            ("9/9/9/9 w", "expected 5 rows"),
            ("9/9/9/9/8 w", "row 1"),
            ("9/9/9/9/91 w", "describes 10 points"),
            ("9/9/4X4/9/9 w", "'X' at character 6"),
            ("9/9/9/9/9 x", "'w' or 'b'"),
            ("9/9/9/9/9 w 0", "expected 2 fields"),
            ("9/9/9/9/9 w -1 1", "no-capture turn counter"),
            ("9/9/9/9/9 w 0 0", "turn number"),
            ("BBBBBBBBB/BBBBBBBBB/BBBBB4/9/9 w", "black has 23 stones"),
        ];
        for (text, needle) in cases {
            let e = parse_position(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn steps_and_turns() {
        let s: Step = "d3e3a".parse().unwrap();
        assert_eq!(
            (s.from().to_string(), s.to().to_string()),
            ("d3".into(), "e3".into())
        );
        assert_eq!(s.kind(), StepKind::Approach);
        assert_eq!("d2e3".parse::<Step>().unwrap().kind(), StepKind::Paika);
        let t: Turn = "e2e3a,e3d4w".parse().unwrap();
        assert_eq!(t.to_string(), "e2e3a,e3d4w");
        // d3 is a weak point: no diagonal line leaves it.
        let e = "d3e4".parse::<Step>().unwrap_err().to_string();
        assert!(e.contains("not adjacent along a line"), "{e}");
        for bad in ["", "e3", "e3e4x", "j1a1", "a0a1", "a1a3", "e3e3"] {
            assert!(bad.parse::<Step>().is_err(), "{bad}");
        }
        let e = "e2e3a,e3z4w".parse::<Turn>().unwrap_err().to_string();
        assert!(e.contains("step 2"), "{e}");
    }
}
