//! The certificate of a proof, in the project's container (magic `FNRNPROF`, version 1):
//! for every position where the proving side is to move, the turn it plays. The positions where
//! the other side moves are not stored: the checker answers every one of their turns.
//!
//! Payload sections:
//! - `head`: JSON with the position proven (its text), the no-progress limit, the endgame
//!   tables the proof leans on (every position with up to `table_stones` stones; 0 for none)
//!   and the claims, each a side, what it gets at least (`win` or `draw`) and its entry count;
//! - `claim0`, `claim1`, ...: each claim's entries, sorted, one after the other: White's
//!   stones (`u64`), Black's (`u64`), the side to move (`u8`, 0 White, 1 Black), the no-capture
//!   counter (`u16`), the turn's length in bytes (`u8`) and the turn in notation (`d2e3a,e3d4w`).
//!
//! This module only reads and writes the format: it knows nothing of how a proof is found, so
//! [`crate::check`] can lean on it and on the engine and tables alone.

use std::collections::HashMap;
use std::path::Path;

use fanorona_data::container::{self, ContainerError, SectionWriter, Sections};
use fanorona_engine::{Bitboard, ByColor, Color, Position, Rules, Setup, Turn};
use fanorona_tablebase::Wdl;
use serde::{Deserialize, Serialize};

/// Magic of a certificate file.
pub const CERTIFICATE_MAGIC: [u8; 8] = *b"FNRNPROF";
/// Format version of a certificate file.
pub const CERTIFICATE_VERSION: u32 = 1;
/// Most entries one claim may hold (a bound for readers: about 1.5 GB of entries).
pub const MAX_ENTRIES: u64 = 50_000_000;

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
    pub turns: HashMap<NodeKey, Turn>,
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
    pub fn encode(&self) -> Vec<u8> {
        container::encode(&CERTIFICATE_MAGIC, CERTIFICATE_VERSION, &self.payload())
    }

    /// The container's payload.
    fn payload(&self) -> Vec<u8> {
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
            let mut keys: Vec<&NodeKey> = claim.turns.keys().collect();
            keys.sort();
            let mut bytes = Vec::with_capacity(keys.len() * 32);
            for key in keys {
                let text = claim.turns[key].to_string();
                bytes.extend_from_slice(&key.white.to_le_bytes());
                bytes.extend_from_slice(&key.black.to_le_bytes());
                bytes.push(key.side);
                bytes.extend_from_slice(&key.counter.to_le_bytes());
                bytes.push(text.len() as u8);
                bytes.extend_from_slice(text.as_bytes());
            }
            sections = sections.section(&format!("claim{i}"), &bytes);
        }
        sections.finish()
    }

    /// Writes the certificate to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<(), CertificateError> {
        container::write_atomic(
            path,
            &CERTIFICATE_MAGIC,
            CERTIFICATE_VERSION,
            &self.payload(),
        )?;
        Ok(())
    }

    /// Reads and checks the format of the certificate at `path` (not the proof: that is
    /// [`crate::check::check`]).
    pub fn load(path: &Path) -> Result<Certificate, CertificateError> {
        let payload = container::read(path, &CERTIFICATE_MAGIC, CERTIFICATE_VERSION)?;
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

fn decode_entries(
    mut bytes: &[u8],
    count: u64,
    limit: u32,
) -> Result<HashMap<NodeKey, Turn>, String> {
    let mut turns = HashMap::with_capacity(count as usize);
    for n in 0..count {
        let fixed = bytes
            .split_first_chunk::<20>()
            .ok_or_else(|| format!("entry {n}: truncated"))?;
        let (head, rest) = fixed;
        let white = u64::from_le_bytes(head[0..8].try_into().expect("8 bytes"));
        let black = u64::from_le_bytes(head[8..16].try_into().expect("8 bytes"));
        let side = head[16];
        let counter = u16::from_le_bytes([head[17], head[18]]);
        let len = usize::from(head[19]);
        if rest.len() < len {
            return Err(format!("entry {n}: truncated turn"));
        }
        let (text, rest) = rest.split_at(len);
        bytes = rest;
        let setup = Setup {
            stones: ByColor([Bitboard(white), Bitboard(black)]),
            side_to_move: if side == 0 {
                Color::White
            } else if side == 1 {
                Color::Black
            } else {
                return Err(format!("entry {n}: side {side}"));
            },
            no_capture_turns: u32::from(counter),
            turn_number: 1,
        };
        Position::from_setup(&setup).map_err(|e| format!("entry {n}: {e}"))?;
        if u32::from(counter) >= limit {
            return Err(format!(
                "entry {n}: counter {counter} at or past the limit {limit}"
            ));
        }
        let text = std::str::from_utf8(text).map_err(|_| format!("entry {n}: turn not text"))?;
        let turn: Turn = text
            .parse()
            .map_err(|e| format!("entry {n}: turn {text:?}: {e}"))?;
        let key = NodeKey {
            white,
            black,
            side,
            counter,
        };
        if turns.insert(key, turn).is_some() {
            return Err(format!("entry {n}: a position listed twice"));
        }
    }
    if !bytes.is_empty() {
        return Err(format!("{} bytes after the last entry", bytes.len()));
    }
    Ok(turns)
}
