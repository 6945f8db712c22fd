//! The certificate of a proof, in the project's container (magic `FNRNPROF`, version 2):
//! for the positions where the proving side is to move, the turn it plays. The positions where
//! the other side moves are not stored: the checker answers every one of their turns.
//!
//! Version 2 leaves out a position whose placement (stones and side to move) the strategy
//! covers at another counter (the counter's order, [`crate::check`]): the checker plays the
//! turn of the nearest covering counter there. Version 1 files name a turn at every counter
//! reached; they are read as they are (a version 1 checker refuses a version 2 file by its
//! version, rather than finding turns missing).
//!
//! Payload sections:
//! - `head`: JSON with the position proven (its text), the no-progress limit, the endgame
//!   tables the proof leans on (every position with up to `table_stones` stones; 0 for none)
//!   and the claims, each a side, what it gets at least (`win` or `draw`) and its entry count;
//! - `claim0`, `claim1`, ...: each claim's entries, one position once, in any order (written
//!   in the order of [`NodeKey::packed`]), one after the other: White's
//!   stones (`u64`), Black's (`u64`), the side to move (`u8`, 0 White, 1 Black), the no-capture
//!   counter (`u16`), the turn's length in bytes (`u8`) and the turn in notation (`d2e3a,e3d4w`).
//!
//! In memory a claim's turns are a [`Strategy`]: 16 bytes a position (its key and the turn's
//! index among the position's turns, in one sorted array), so that a strategy of tens of
//! millions of positions fits beside the search that reads it. The file keeps the turn's
//! notation: a reader needs no knowledge of the engine's order of turns to follow it, and a
//! turn the position does not have is refused when the file is read.
//!
//! This module only reads and writes the format: it knows nothing of how a proof is found, so
//! [`crate::check`] can lean on it and on the engine and tables alone.

use std::path::Path;

use fanorona_data::container::{self, ContainerError, SectionWriter, Sections};
use fanorona_engine::{Bitboard, ByColor, Color, Position, Rules, Setup, Turn};
use fanorona_tablebase::Wdl;
use serde::{Deserialize, Serialize};

/// Magic of a certificate file.
pub const CERTIFICATE_MAGIC: [u8; 8] = *b"FNRNPROF";
/// Format version of a certificate file (written; 1 is read too).
pub const CERTIFICATE_VERSION: u32 = 2;
/// Most entries one claim may hold (a bound for readers: 9.6 GB of [`Strategy`] in memory, and
/// about what [`MAX_FILE_BYTES`] holds at 25-30 bytes an entry). The strategy of the split
/// start position's part after `d3e3a` alone passed 150 million, and the start position's
/// joined claim for Black holds every part's.
pub const MAX_ENTRIES: u64 = 600_000_000;

/// Largest certificate file read: 16 GiB.
pub const MAX_FILE_BYTES: u64 = 16 << 30;

/// Where a proving side stands: its stones, the side to move and the no-capture counter (the
/// turn number plays no part in the rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeKey {
    /// White's stones.
    pub white: u64,
    /// Black's stones.
    pub black: u64,
    /// The side to move: 0 White, 1 Black.
    pub side: u8,
    /// Turns since the last capture.
    pub counter: u16,
}

impl NodeKey {
    /// The key of a turn-start position.
    pub fn of(pos: &Position) -> NodeKey {
        NodeKey {
            white: pos.stones(Color::White).0,
            black: pos.stones(Color::Black).0,
            side: u8::from(pos.side_to_move() == Color::Black),
            counter: pos.no_capture_turns().min(u32::from(u16::MAX)) as u16,
        }
    }

    /// The key in 107 bits: White's 45 points, Black's 45, the side to move, the counter.
    /// Keys of the board's positions (no stone beyond its 45 points) pack one to one.
    pub fn packed(&self) -> u128 {
        const BOARD: u64 = (1 << 45) - 1;
        u128::from(self.white & BOARD)
            | u128::from(self.black & BOARD) << 45
            | u128::from(self.side & 1) << 90
            | u128::from(self.counter) << 91
    }

    /// The key [`NodeKey::packed`] packed.
    pub fn unpacked(bits: u128) -> NodeKey {
        const BOARD: u128 = (1 << 45) - 1;
        NodeKey {
            white: (bits & BOARD) as u64,
            black: (bits >> 45 & BOARD) as u64,
            side: (bits >> 90 & 1) as u8,
            counter: (bits >> 91) as u16,
        }
    }

    /// The position this key stands for (turn number 1: it plays no part in the rules).
    pub fn position(&self) -> Result<Position, String> {
        let side_to_move = match self.side {
            0 => Color::White,
            1 => Color::Black,
            other => return Err(format!("side {other}")),
        };
        let setup = Setup {
            stones: ByColor([Bitboard(self.white), Bitboard(self.black)]),
            side_to_move,
            no_capture_turns: u32::from(self.counter),
            turn_number: 1,
        };
        Position::from_setup(&setup).map_err(|e| e.to_string())
    }
}

/// Bits of a strategy's entry that hold the turn's index among its position's turns.
const INDEX_BITS: u32 = 21;

/// Most turns a position may have for a [`Strategy`] to name one of them (2^21; the most seen
/// in play is in the hundreds).
pub const MAX_TURNS: usize = 1 << INDEX_BITS;

/// Why a turn could not be put in a [`Strategy`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrategyError {
    /// The turn is not one of the position's.
    #[error("{turn} is not a turn of {position}")]
    NotATurn {
        /// The turn, in notation.
        turn: String,
        /// The position, as text.
        position: String,
    },
    /// The position has more turns than a strategy can index.
    #[error("turn {index} of {position}: a strategy names at most {MAX_TURNS} turns of a position")]
    TooManyTurns {
        /// The turn's index.
        index: usize,
        /// The position, as text.
        position: String,
    },
}

/// The `index`-th of `pos`'s turns (in the engine's order) and the position after it.
pub fn nth_turn(pos: &Position, index: usize) -> Option<(Turn, Position)> {
    let mut n = 0;
    let mut found = None;
    pos.for_each_turn(|t, after| {
        if n == index {
            found = Some((*t, *after));
        }
        n += 1;
    });
    found
}

/// One side's strategy: the turn it plays at each position it meets. Each position is one
/// `u128`, its [`NodeKey::packed`] key above the turn's index among its turns (in the engine's
/// order), and the entries are kept sorted by key, one per position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Strategy {
    entries: Vec<u128>,
}

impl Strategy {
    /// An empty strategy.
    pub fn new() -> Strategy {
        Strategy::default()
    }

    /// Positions with a turn.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no position has a turn.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry of `key` playing its `index`-th turn (`index` below [`MAX_TURNS`]: callers
    /// check it, an index past it would spill into the key).
    pub fn entry(key: &NodeKey, index: usize) -> u128 {
        debug_assert!(index < MAX_TURNS);
        key.packed() << INDEX_BITS | index as u128
    }

    /// The index of `turn` among `pos`'s turns.
    pub fn index_of(pos: &Position, turn: &Turn) -> Result<usize, StrategyError> {
        let mut n = 0;
        let mut found = None;
        pos.for_each_turn(|t, _| {
            if found.is_none() && t == turn {
                found = Some(n);
            }
            n += 1;
        });
        let index = found.ok_or_else(|| StrategyError::NotATurn {
            turn: turn.to_string(),
            position: fanorona_engine::format_position(pos),
        })?;
        if index >= MAX_TURNS {
            return Err(StrategyError::TooManyTurns {
                index,
                position: fanorona_engine::format_position(pos),
            });
        }
        Ok(index)
    }

    /// A strategy of `entries` (from [`Strategy::entry`], in any order); where a position has
    /// more than one, the first in `entries` is kept.
    pub fn from_entries(mut entries: Vec<u128>) -> Strategy {
        // Stable: equal keys keep their order, so the first is the one kept.
        entries.sort_by_key(|e| e >> INDEX_BITS);
        entries.dedup_by_key(|e| *e >> INDEX_BITS);
        entries.shrink_to_fit();
        Strategy { entries }
    }

    /// This strategy with `other`'s positions added where this one has none.
    pub fn merge(&mut self, other: &Strategy) {
        let mut entries = std::mem::take(&mut self.entries);
        entries.extend_from_slice(&other.entries);
        *self = Strategy::from_entries(entries);
    }

    /// Plays `turn` at `pos` from now on (in place of any turn it had).
    pub fn insert(&mut self, pos: &Position, turn: &Turn) -> Result<(), StrategyError> {
        let index = Strategy::index_of(pos, turn)?;
        let entry = Strategy::entry(&NodeKey::of(pos), index);
        match self.find(&NodeKey::of(pos)) {
            Ok(at) => self.entries[at] = entry,
            Err(at) => self.entries.insert(at, entry),
        }
        Ok(())
    }

    /// Drops `pos`'s turn; whether it had one.
    pub fn remove(&mut self, pos: &Position) -> bool {
        match self.find(&NodeKey::of(pos)) {
            Ok(at) => {
                self.entries.remove(at);
                true
            }
            Err(_) => false,
        }
    }

    /// Where `key`'s entry is, or would go.
    fn find(&self, key: &NodeKey) -> Result<usize, usize> {
        let packed = key.packed();
        self.entries
            .binary_search_by(|e| (e >> INDEX_BITS).cmp(&packed))
    }

    /// The index, among its turns, of the turn played at `key`.
    pub fn index(&self, key: &NodeKey) -> Option<usize> {
        self.slot(key).map(|at| self.index_at(at))
    }

    /// Where `key`'s entry stands among the strategy's `len()` entries (a place that stays
    /// while the strategy is not changed: a checker marks the positions it has been through by
    /// it, one bit each).
    pub fn slot(&self, key: &NodeKey) -> Option<usize> {
        self.find(key).ok()
    }

    /// The turn's index of the entry at `slot` (from [`Strategy::slot`]).
    pub fn index_at(&self, slot: usize) -> usize {
        (self.entries[slot] & (MAX_TURNS as u128 - 1)) as usize
    }

    /// The turn played at `pos`, if the strategy has one and it is one of `pos`'s turns.
    pub fn turn(&self, pos: &Position) -> Option<Turn> {
        nth_turn(pos, self.index(&NodeKey::of(pos))?).map(|(t, _)| t)
    }

    /// Each position's key and its turn's index, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (NodeKey, usize)> + '_ {
        self.entries.iter().map(|e| {
            (
                NodeKey::unpacked(e >> INDEX_BITS),
                (e & (MAX_TURNS as u128 - 1)) as usize,
            )
        })
    }
}

/// One claim: `side` gets at least `at_least` (a win, or a draw) from the position, playing
/// the stored turn wherever it is to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim {
    /// The side whose strategy this is.
    pub side: Color,
    /// What it gets at least: [`Wdl::Win`] or [`Wdl::Draw`].
    pub at_least: Wdl,
    /// The turn it plays at each position it meets.
    pub turns: Strategy,
}

/// A certificate: a position, the rules and tables the proof assumes, and its claims.
#[derive(Clone, Debug, PartialEq)]
pub struct Certificate {
    /// The position proven (a turn start).
    pub position: Position,
    /// The rules (the no-progress limit; repetition plays no part, docs/solve.md says why).
    pub rules: Rules,
    /// The proof leans on the endgame tables up to this many stones (0: none).
    pub table_stones: usize,
    /// What is proven.
    pub claims: Vec<Claim>,
}

/// Why a certificate could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CertificateError {
    /// The container itself (missing, truncated, corrupt, another kind of file).
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// The container is whole but its contents are not a certificate's.
    #[error("{path}: not a valid certificate: {detail}")]
    Malformed {
        /// The file.
        path: String,
        /// What is wrong, and where.
        detail: String,
    },
}

#[derive(Serialize, Deserialize)]
struct Head {
    position: String,
    no_progress_limit: u32,
    table_stones: usize,
    claims: Vec<ClaimHead>,
}

#[derive(Serialize, Deserialize)]
struct ClaimHead {
    side: String,
    at_least: String,
    entries: u64,
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl Certificate {
    /// The file's bytes (header and payload).
    pub fn encode(&self) -> Result<Vec<u8>, CertificateError> {
        Ok(container::encode(
            &CERTIFICATE_MAGIC,
            CERTIFICATE_VERSION,
            &self.payload()?,
        ))
    }

    /// The container's payload.
    fn payload(&self) -> Result<Vec<u8>, CertificateError> {
        let head = Head {
            position: fanorona_engine::format_position(&self.position),
            no_progress_limit: self.rules.no_progress_limit,
            table_stones: self.table_stones,
            claims: self
                .claims
                .iter()
                .map(|c| ClaimHead {
                    side: side_name(c.side).to_string(),
                    at_least: c.at_least.name().to_string(),
                    entries: c.turns.len() as u64,
                })
                .collect(),
        };
        let head = serde_json::to_vec(&head).expect("a head serialises");
        let mut sections = SectionWriter::new().section("head", &head);
        for (i, claim) in self.claims.iter().enumerate() {
            let bad = |detail: String| CertificateError::Malformed {
                path: "(a certificate being written)".into(),
                detail: format!("claim {i}: {detail}"),
            };
            let mut bytes = Vec::with_capacity(claim.turns.len() * 28);
            for (key, index) in claim.turns.iter() {
                let pos = key.position().map_err(&bad)?;
                let (turn, _) = nth_turn(&pos, index).ok_or_else(|| {
                    bad(format!(
                        "{} has no turn {index}",
                        fanorona_engine::format_position(&pos)
                    ))
                })?;
                let text = turn.to_string();
                bytes.extend_from_slice(&key.white.to_le_bytes());
                bytes.extend_from_slice(&key.black.to_le_bytes());
                bytes.push(key.side);
                bytes.extend_from_slice(&key.counter.to_le_bytes());
                bytes.push(text.len() as u8);
                bytes.extend_from_slice(text.as_bytes());
            }
            sections = sections.section(&format!("claim{i}"), &bytes);
        }
        Ok(sections.finish())
    }

    /// Writes the certificate to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<(), CertificateError> {
        container::write_atomic(
            path,
            &CERTIFICATE_MAGIC,
            CERTIFICATE_VERSION,
            &self.payload()?,
        )?;
        Ok(())
    }

    /// Reads and checks the format of the certificate at `path` (not the proof: that is
    /// [`crate::check::check`]).
    pub fn load(path: &Path) -> Result<Certificate, CertificateError> {
        let read =
            |version| container::read_up_to(path, &CERTIFICATE_MAGIC, version, MAX_FILE_BYTES);
        let payload = match read(CERTIFICATE_VERSION) {
            // Version 1 is version 2 with a turn at every counter: the same payload.
            Err(ContainerError::WrongVersion { found: 1, .. }) => read(1)?,
            other => other?,
        };
        Certificate::decode(path, &payload)
    }

    /// Decodes a certificate's payload read from `path`.
    pub fn decode(path: &Path, payload: &[u8]) -> Result<Certificate, CertificateError> {
        let shown = path.display().to_string();
        let bad = |detail: String| CertificateError::Malformed {
            path: shown.clone(),
            detail,
        };
        let sections = Sections::parse(path, payload)?;
        let head: Head = serde_json::from_slice(sections.require("head")?)
            .map_err(|e| bad(format!("bad head section: {e}")))?;
        let position = fanorona_engine::parse_position(&head.position)
            .map_err(|e| bad(format!("head: {e}")))?;
        if !position.is_turn_start() {
            return Err(bad("head: the position is not a turn start".into()));
        }
        if head.no_progress_limit == 0 {
            return Err(bad(
                "head: no-progress limit 0 (a proof needs the no-progress rule)".into(),
            ));
        }
        if head.table_stones > 45 {
            return Err(bad(format!("head: table stones {}", head.table_stones)));
        }
        let mut claims = Vec::with_capacity(head.claims.len().min(4));
        if head.claims.is_empty() || head.claims.len() > 4 {
            return Err(bad(format!("head: {} claims (1 to 4)", head.claims.len())));
        }
        for (i, c) in head.claims.iter().enumerate() {
            let side = match c.side.as_str() {
                "white" => Color::White,
                "black" => Color::Black,
                other => return Err(bad(format!("claim {i}: side {other:?}"))),
            };
            let at_least = match c.at_least.as_str() {
                "win" => Wdl::Win,
                "draw" => Wdl::Draw,
                other => return Err(bad(format!("claim {i}: at least {other:?}"))),
            };
            if c.entries > MAX_ENTRIES {
                return Err(bad(format!("claim {i}: {} entries", c.entries)));
            }
            let bytes = sections.require(&format!("claim{i}"))?;
            let turns = decode_entries(bytes, c.entries, head.no_progress_limit)
                .map_err(|detail| bad(format!("claim {i}: {detail}")))?;
            claims.push(Claim {
                side,
                at_least,
                turns,
            });
        }
        Ok(Certificate {
            position,
            rules: Rules {
                no_progress_limit: head.no_progress_limit,
            },
            table_stones: head.table_stones,
            claims,
        })
    }
}

fn decode_entries(mut bytes: &[u8], count: u64, limit: u32) -> Result<Strategy, String> {
    // An entry takes at least 20 bytes of the file: a count the bytes cannot hold reserves
    // nothing it would not use.
    let mut entries = Vec::with_capacity(count.min(bytes.len() as u64 / 20) as usize);
    for n in 0..count {
        let fixed = bytes
            .split_first_chunk::<20>()
            .ok_or_else(|| format!("entry {n}: truncated"))?;
        let (head, rest) = fixed;
        let key = NodeKey {
            white: u64::from_le_bytes(head[0..8].try_into().expect("8 bytes")),
            black: u64::from_le_bytes(head[8..16].try_into().expect("8 bytes")),
            side: head[16],
            counter: u16::from_le_bytes([head[17], head[18]]),
        };
        let len = usize::from(head[19]);
        if rest.len() < len {
            return Err(format!("entry {n}: truncated turn"));
        }
        let (text, rest) = rest.split_at(len);
        bytes = rest;
        let pos = key.position().map_err(|e| format!("entry {n}: {e}"))?;
        if u32::from(key.counter) >= limit {
            return Err(format!(
                "entry {n}: counter {} at or past the limit {limit}",
                key.counter
            ));
        }
        let text = std::str::from_utf8(text).map_err(|_| format!("entry {n}: turn not text"))?;
        let turn: Turn = text
            .parse()
            .map_err(|e| format!("entry {n}: turn {text:?}: {e}"))?;
        let index = Strategy::index_of(&pos, &turn).map_err(|e| format!("entry {n}: {e}"))?;
        entries.push(Strategy::entry(&key, index));
    }
    if !bytes.is_empty() {
        return Err(format!("{} bytes after the last entry", bytes.len()));
    }
    let strategy = Strategy::from_entries(entries);
    if strategy.len() as u64 != count {
        return Err("a position listed twice".into());
    }
    Ok(strategy)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use fanorona_testkit::{Rng, random_position};

    use super::*;

    /// Random turn starts of 2 to 22 stones a side with their counters, and their turns.
    fn positions(seed: u64, n: usize) -> Vec<(Position, Vec<Turn>)> {
        let mut rng = Rng::new(seed);
        let mut out = Vec::new();
        while out.len() < n {
            let side = if rng.below(2) == 0 {
                Color::White
            } else {
                Color::Black
            };
            let (white, black) = (1 + rng.below(22), 1 + rng.below(22));
            let pos = random_position(&mut rng, white, black, side);
            let setup = Setup {
                stones: ByColor([pos.stones(Color::White), pos.stones(Color::Black)]),
                side_to_move: side,
                no_capture_turns: rng.below(46) as u32,
                turn_number: 1,
            };
            let pos = Position::from_setup(&setup).unwrap();
            let mut turns = Vec::new();
            pos.for_each_turn(|t, _| turns.push(*t));
            if !turns.is_empty() {
                out.push((pos, turns));
            }
        }
        out
    }

    #[test]
    fn keys_pack_one_to_one() {
        for (pos, _) in positions(1, 2_000) {
            let key = NodeKey::of(&pos);
            assert_eq!(NodeKey::unpacked(key.packed()), key);
            assert_eq!(NodeKey::of(&key.position().unwrap()), key);
        }
        let corner = NodeKey {
            white: 1 << 44,
            black: 1,
            side: 1,
            counter: u16::MAX,
        };
        assert_eq!(NodeKey::unpacked(corner.packed()), corner);
    }

    /// A strategy against a plain map of keys to turns: the same turns after inserts,
    /// overwrites, removals and merges (the first strategy's turn kept).
    #[test]
    fn a_strategy_holds_what_a_map_holds() {
        let all = positions(2, 600);
        let mut rng = Rng::new(3);
        let mut map: HashMap<NodeKey, Turn> = HashMap::new();
        let mut strategy = Strategy::new();
        for _ in 0..3_000 {
            let (pos, turns) = &all[rng.below(all.len())];
            let turn = turns[rng.below(turns.len())];
            if rng.below(10) == 0 {
                assert_eq!(
                    strategy.remove(pos),
                    map.remove(&NodeKey::of(pos)).is_some()
                );
            } else {
                strategy.insert(pos, &turn).unwrap();
                map.insert(NodeKey::of(pos), turn);
            }
        }
        let mut other_map: HashMap<NodeKey, Turn> = HashMap::new();
        let mut entries = Vec::new();
        for (pos, turns) in &all {
            let index = rng.below(turns.len());
            entries.push(Strategy::entry(&NodeKey::of(pos), index));
            other_map.entry(NodeKey::of(pos)).or_insert(turns[index]);
        }
        let other = Strategy::from_entries(entries);
        strategy.merge(&other);
        for (key, turn) in other_map {
            map.entry(key).or_insert(turn);
        }
        assert_eq!(strategy.len(), map.len());
        for (pos, _) in &all {
            assert_eq!(strategy.turn(pos), map.get(&NodeKey::of(pos)).copied());
        }
        let keys: Vec<NodeKey> = strategy.iter().map(|(k, _)| k).collect();
        assert!(keys.windows(2).all(|w| w[0].packed() < w[1].packed()));
    }

    #[test]
    fn a_turn_the_position_lacks_is_refused() {
        let (pos, _) = &positions(4, 1)[0];
        let mut elsewhere = None;
        for (other, turns) in positions(5, 50) {
            let mut mine = Vec::new();
            pos.for_each_turn(|t, _| mine.push(*t));
            if let Some(t) = turns.iter().find(|t| !mine.contains(t)) {
                elsewhere = Some((other, *t));
                break;
            }
        }
        let (_, turn) = elsewhere.unwrap();
        let err = Strategy::new().insert(pos, &turn).unwrap_err();
        assert!(matches!(err, StrategyError::NotATurn { .. }), "{err}");
    }
}
