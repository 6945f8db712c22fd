//! Results and their one-byte encoding in the tables.

use std::fmt;

/// Win, draw or loss, for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses with best play.
    Loss,
    /// Neither side can force a win within the rules.
    Draw,
    /// The side to move wins with best play.
    Win,
}

impl Wdl {
    /// The result for the other side.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }

    /// `win`, `draw` or `loss`.
    pub fn name(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }

    /// +1, 0 or -1.
    pub fn sign(self) -> i32 {
        match self {
            Wdl::Win => 1,
            Wdl::Draw => 0,
            Wdl::Loss => -1,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The exact result of a position at a given no-capture counter: win, draw or loss for the
/// side to move, and for a win or a loss the number of turns (both sides counted) until the
/// next capture or the end of the game along best play (the winner's fastest, the loser's
/// slowest). A draw has no distance (`dtz` is 0).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Probe {
    /// The result for the side to move.
    pub wdl: Wdl,
    /// Turns to the next capture or the end of the game; 0 for a draw, and for a loss with
    /// no legal move.
    pub dtz: u32,
}

impl Probe {
    /// A draw.
    pub const DRAW: Probe = Probe {
        wdl: Wdl::Draw,
        dtz: 0,
    };

    /// How good this result is for the side to move, as a number that orders results: every
    /// win is above every draw, a faster win above a slower one, a slower loss above a faster
    /// one.
    pub fn goodness(self) -> i64 {
        match self.wdl {
            Wdl::Win => 1_000_000 - self.dtz as i64,
            Wdl::Draw => 0,
            Wdl::Loss => -1_000_000 + self.dtz as i64,
        }
    }
}

impl fmt::Display for Probe {
    /// `win in 7`, `draw`, `loss in 3`: the distance counts turns to the next capture.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.wdl {
            Wdl::Draw => f.write_str("draw"),
            w => write!(f, "{w} in {}", self.dtz),
        }
    }
}

/// The largest no-progress limit a table can be built for (distances fit one byte).
pub const MAX_LIMIT: u32 = 120;

/// One table entry: the result at counter 0 (so with the whole limit ahead) and, for a win
/// or a loss, the distance. 0 = draw, `2d - 1` = win in `d` (d >= 1), `2d + 2` = loss in `d`
/// (d >= 0).
pub(crate) type Entry = u8;

pub(crate) const DRAW: Entry = 0;
/// Not decided yet (build only).
pub(crate) const UNKNOWN: Entry = 255;
/// An index no position maps to (build only; written as a draw).
pub(crate) const UNUSED: Entry = 254;

#[inline]
pub(crate) const fn win(d: u32) -> Entry {
    (2 * d - 1) as Entry
}

#[inline]
pub(crate) const fn loss(d: u32) -> Entry {
    (2 * d + 2) as Entry
}

/// The stored result with the whole limit ahead; `None` for the build markers.
#[inline]
pub(crate) fn decode(e: Entry) -> Option<Probe> {
    match e {
        DRAW => Some(Probe::DRAW),
        UNUSED | UNKNOWN => None,
        e if e % 2 == 1 => Some(Probe {
            wdl: Wdl::Win,
            dtz: (e as u32).div_ceil(2),
        }),
        e => Some(Probe {
            wdl: Wdl::Loss,
            dtz: (e as u32 - 2) / 2,
        }),
    }
}

/// The result when `remaining` turns are left before the no-progress draw: a stored win or
/// loss holds only if its distance fits.
#[inline]
pub(crate) fn at_remaining(stored: Probe, remaining: u32) -> Probe {
    if stored.wdl != Wdl::Draw && stored.dtz <= remaining {
        stored
    } else {
        Probe::DRAW
    }
}

/// Results per byte of a packed win/draw/loss table: five base-3 digits (3^5 = 243 <= 256).
pub(crate) const WDL_PER_BYTE: usize = 5;
/// The largest valid byte of a packed table.
pub(crate) const WDL_BYTE_MAX: u8 = 242;

/// The base-3 digit of a result in a packed table: 0 draw (so unused indices read as draws),
/// 1 win, 2 loss.
#[inline]
const fn wdl_digit(e: Entry) -> u8 {
    match e {
        DRAW | UNUSED | UNKNOWN => 0,
        e if e % 2 == 1 => 1,
        _ => 2,
    }
}

/// The win/draw/loss of every entry (counter 0), five to a byte.
pub(crate) fn pack_wdl(entries: &[Entry]) -> Vec<u8> {
    entries
        .chunks(WDL_PER_BYTE)
        .map(|five| {
            five.iter()
                .rev()
                .fold(0u8, |byte, &e| byte * 3 + wdl_digit(e))
        })
        .collect()
}

/// Bytes a packed table of `entries` entries takes.
pub(crate) fn packed_len(entries: u64) -> u64 {
    entries.div_ceil(WDL_PER_BYTE as u64)
}

/// `DIGITS[byte][k]`: the k-th result packed in `byte`.
static DIGITS: [[Wdl; WDL_PER_BYTE]; 256] = {
    let mut t = [[Wdl::Draw; WDL_PER_BYTE]; 256];
    let mut b = 0;
    while b < 256 {
        let mut v = b;
        let mut k = 0;
        while k < WDL_PER_BYTE {
            t[b][k] = match v % 3 {
                0 => Wdl::Draw,
                1 => Wdl::Win,
                _ => Wdl::Loss,
            };
            v /= 3;
            k += 1;
        }
        b += 1;
    }
    t
};

/// The result (counter 0) of entry `i` of a packed table.
#[inline]
pub(crate) fn wdl_at(packed: &[u8], i: u64) -> Wdl {
    let byte = packed[(i / WDL_PER_BYTE as u64) as usize];
    DIGITS[byte as usize][(i % WDL_PER_BYTE as u64) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        assert_eq!(decode(DRAW), Some(Probe::DRAW));
        for d in 1..=MAX_LIMIT {
            assert_eq!(
                decode(win(d)),
                Some(Probe {
                    wdl: Wdl::Win,
                    dtz: d
                })
            );
        }
        for d in 0..=MAX_LIMIT {
            assert_eq!(
                decode(loss(d)),
                Some(Probe {
                    wdl: Wdl::Loss,
                    dtz: d
                })
            );
        }
        assert_eq!(decode(UNKNOWN), None);
        assert_eq!(decode(UNUSED), None);
        assert!(loss(MAX_LIMIT) < UNUSED);
    }

    #[test]
    fn packed_results_read_back_as_the_entries_say() {
        let mut entries = vec![
            DRAW,
            UNUSED,
            win(1),
            loss(0),
            win(MAX_LIMIT),
            loss(MAX_LIMIT),
        ];
        for d in 1..=40 {
            entries.push(if d % 3 == 0 { win(d) } else { loss(d) });
            entries.push(DRAW);
        }
        let packed = pack_wdl(&entries);
        assert_eq!(packed.len() as u64, packed_len(entries.len() as u64));
        assert!(packed.iter().all(|&b| b <= WDL_BYTE_MAX));
        for (i, &e) in entries.iter().enumerate() {
            let want = decode(e).map_or(Wdl::Draw, |p| p.wdl);
            assert_eq!(wdl_at(&packed, i as u64), want, "entry {i}");
        }
    }

    #[test]
    fn a_win_too_slow_for_the_counter_is_a_draw() {
        let w = Probe {
            wdl: Wdl::Win,
            dtz: 5,
        };
        assert_eq!(at_remaining(w, 5), w);
        assert_eq!(at_remaining(w, 4), Probe::DRAW);
        let blocked = Probe {
            wdl: Wdl::Loss,
            dtz: 0,
        };
        assert_eq!(at_remaining(blocked, 0), blocked);
    }
}
