//! Self-play data: samples, shard files, and the replay window the trainer samples from.
//!
//! # Shard format
//!
//! One shard is one container file (`fanorona_data::container`: 8-byte magic `FNRNSHRD`,
//! `u32` format version, `u64` payload length, CRC-32, payload), written atomically. The
//! payload is the sample count as a little-endian `u64` followed by the bincode 2 (serde,
//! standard configuration) encoding of [`Shard`].
//!
//! A sample stores the position compactly (two bitboards, the side to move, counters, and the
//! steps already played in the current turn) rather than encoded planes: a tenth of the size,
//! and the four symmetries are applied to the position before encoding at training time.
//! Actions are stored as *absolute* policy indices (`action_index(a, White)`, i.e. without
//! turning the board for Black).
//!
//! Version 2 adds each sample's root search value ([`Sample::search_wdl`]); version 3 adds the
//! scored positions of alpha-beta self-play ([`Shard::scored`], what an evaluation run learns
//! from); version 4 adds where a scored position comes from ([`Scored::origin`]: a position
//! of the game, or a node of a search's tree with its score's bound). Versions 1 to 3 are
//! still read: no search value, no scored positions, every scored position one of the game.

use std::path::{Path, PathBuf};

use fanorona_data::container::{self, ContainerError};
use fanorona_engine::{
    Action, Bitboard, ByColor, Color, EndReason, Outcome, Position, Setup, Symmetry,
};
use fanorona_net::TrainBatch;
use fanorona_net::encoding::{self, ACTION_COUNT, Context, INPUT_LEN};
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// Magic of shard files.
pub const SHARD_MAGIC: [u8; 8] = *b"FNRNSHRD";
/// Current shard format version (4: scored positions of alpha-beta self-play, with their
/// origin).
pub const SHARD_VERSION: u32 = 4;
/// An older version still read: scored positions without their origin (all played).
pub const SHARD_VERSION_3: u32 = 3;
/// An older version still read: no scored positions.
pub const SHARD_VERSION_2: u32 = 2;
/// The oldest version still read: samples without the search value.
pub const SHARD_VERSION_1: u32 = 1;

/// Why a shard could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The container was unreadable, truncated, corrupt or of another version.
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// The payload did not decode.
    #[error("{path}: bad shard payload: {message}")]
    Payload {
        /// The shard.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A sample describes an impossible position.
    #[error("bad sample: {0}")]
    Sample(String),
    /// The object store holding the run failed (after its retries).
    #[error("{0}")]
    Store(String),
}

/// How a self-play game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameEnd {
    /// A side lost its last stone.
    AllCaptured,
    /// A side had no legal move.
    NoLegalMove,
    /// Threefold repetition.
    Repetition,
    /// The no-progress limit.
    NoProgress,
    /// A side resigned.
    Resigned,
    /// The safety cap on actions was hit (scored as a draw).
    Capped,
    /// The game reached a position the endgame tables cover and ended with their result.
    Tablebase,
}

impl GameEnd {
    /// Every way a self-play game ends.
    pub const ALL: [GameEnd; 7] = [
        GameEnd::AllCaptured,
        GameEnd::NoLegalMove,
        GameEnd::Repetition,
        GameEnd::NoProgress,
        GameEnd::Resigned,
        GameEnd::Capped,
        GameEnd::Tablebase,
    ];

    /// Short name for logs and TensorBoard tags: the engine's reason tags
    /// ([`Outcome::reason_tag`]: `all-captured`, `no-legal-move`, `repetition`, `no-progress`)
    /// and `resigned`, `capped`, `tablebase`.
    pub fn tag(self) -> &'static str {
        match self {
            GameEnd::AllCaptured => EndReason::AllCaptured.tag(),
            GameEnd::NoLegalMove => EndReason::NoLegalMove.tag(),
            GameEnd::Repetition => EndReason::Repetition.tag(),
            GameEnd::NoProgress => EndReason::NoProgress.tag(),
            GameEnd::Resigned => "resigned",
            GameEnd::Capped => "capped",
            GameEnd::Tablebase => "tablebase",
        }
    }
}

impl From<Outcome> for GameEnd {
    fn from(outcome: Outcome) -> GameEnd {
        match outcome.reason() {
            EndReason::AllCaptured => GameEnd::AllCaptured,
            EndReason::NoLegalMove => GameEnd::NoLegalMove,
            EndReason::Repetition => GameEnd::Repetition,
            EndReason::NoProgress => GameEnd::NoProgress,
        }
    }
}

/// One training example.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// White stones at the start of the current turn.
    pub white: u64,
    /// Black stones at the start of the current turn.
    pub black: u64,
    /// Side to move.
    pub black_to_move: bool,
    /// No-capture counter at the start of the current turn.
    pub no_capture: u32,
    /// Turn number.
    pub turn_number: u32,
    /// Steps of the current turn already played (absolute action indices): the position is
    /// the turn start after these steps.
    pub chain_steps: Vec<u16>,
    /// Times the turn-start placement had occurred (1 = new).
    pub repetitions: u8,
    /// The search's policy target: (absolute action index, probability), legal actions only.
    pub policy: Vec<(u16, f32)>,
    /// Final result of the game from the mover's view: 1 win, 0 draw, -1 loss.
    pub result: i8,
    /// The root search's value from the mover's view as win, draw, loss probabilities
    /// (`None` in shards of format version 1). Blended into the value target by
    /// `training.search_value_weight`.
    pub search_wdl: Option<[f32; 3]>,
}

/// A sample as format version 1 stored it.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
struct SampleV1 {
    white: u64,
    black: u64,
    black_to_move: bool,
    no_capture: u32,
    turn_number: u32,
    chain_steps: Vec<u16>,
    repetitions: u8,
    policy: Vec<(u16, f32)>,
    result: i8,
}

/// A shard as format version 1 stored it.
#[derive(Deserialize)]
struct ShardV1 {
    samples: Vec<SampleV1>,
    games: Vec<GameSummary>,
    network_steps: u64,
}

impl From<ShardV1> for Shard {
    fn from(old: ShardV1) -> Shard {
        Shard {
            samples: old
                .samples
                .into_iter()
                .map(|s| Sample {
                    white: s.white,
                    black: s.black,
                    black_to_move: s.black_to_move,
                    no_capture: s.no_capture,
                    turn_number: s.turn_number,
                    chain_steps: s.chain_steps,
                    repetitions: s.repetitions,
                    policy: s.policy,
                    result: s.result,
                    search_wdl: None,
                })
                .collect(),
            games: old.games,
            network_steps: old.network_steps,
            scored: Vec::new(),
        }
    }
}

/// A shard as format version 2 stored it.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
struct ShardV2 {
    samples: Vec<Sample>,
    games: Vec<GameSummary>,
    network_steps: u64,
}

impl From<ShardV2> for Shard {
    fn from(old: ShardV2) -> Shard {
        Shard {
            samples: old.samples,
            games: old.games,
            network_steps: old.network_steps,
            scored: Vec::new(),
        }
    }
}

/// What the search said of a scored position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SearchScore {
    /// An evaluation in centi-stones, for the side to move.
    Centistones(i32),
    /// A forced win for the side to move.
    Win,
    /// A forced loss for the side to move.
    Loss,
}

/// Where a scored position comes from, and so what its score says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Origin {
    /// A position of the game, scored by the search that chose its turn (the root): the
    /// target blends the score with the game's result.
    Played,
    /// A node of a search's tree whose score is its value at the searched depth.
    NodeExact,
    /// A node whose score is a lower bound (the search failed high there).
    NodeAtLeast,
    /// A node whose score is an upper bound (the search failed low there).
    NodeAtMost,
}

/// A turn-start position of alpha-beta self-play with what the search said of it and how the
/// game ended: a training example of the learned evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scored {
    /// White stones.
    pub white: u64,
    /// Black stones.
    pub black: u64,
    /// Side to move.
    pub black_to_move: bool,
    /// The root search's score.
    pub score: SearchScore,
    /// The game's result for the side to move: 1 win, 0 draw, -1 loss.
    pub result: i8,
    /// The endgame tables' exact result for the side to move where they cover the position.
    pub exact: Option<i8>,
    /// A position of the game, or a node of a search's tree (and what its score bounds).
    pub origin: Origin,
}

impl Scored {
    /// What is wrong with the example, if anything.
    pub fn problem(&self) -> Option<String> {
        let board = Bitboard::FULL.0;
        if self.white & !board != 0 || self.black & !board != 0 || self.white & self.black != 0 {
            return Some("stones off the board or on one point twice".into());
        }
        if self.white.count_ones() > 22 || self.black.count_ones() > 22 {
            return Some("more than 22 stones of a colour".into());
        }
        if !(-1..=1).contains(&self.result) || self.exact.is_some_and(|e| !(-1..=1).contains(&e)) {
            return Some(format!(
                "result {} / exact {:?} out of range",
                self.result, self.exact
            ));
        }
        if let SearchScore::Centistones(cs) = self.score
            && cs.abs() > 100_000
        {
            return Some(format!("score {cs} out of range"));
        }
        None
    }

    /// The position (a turn start, counters 0).
    pub fn position(&self) -> Result<Position, ReplayError> {
        let side = if self.black_to_move {
            Color::Black
        } else {
            Color::White
        };
        Position::from_setup(&Setup {
            stones: ByColor([Bitboard(self.white), Bitboard(self.black)]),
            side_to_move: side,
            no_capture_turns: 0,
            turn_number: 1,
        })
        .map_err(|e| ReplayError::Sample(e.to_string()))
    }

    /// The target winning chance: the exact result where known, else `lambda` of the search
    /// score read through `sigmoid(cs / scale)` (1 or 0 for a forced result) and the rest the
    /// game's result. For a node of a search's tree (no result of its own) the search score
    /// alone; [`Scored::target_range`] says what a bound allows.
    pub fn target(&self, lambda: f32, scale: f32) -> f32 {
        let chance = |r: i8| (f32::from(r) + 1.0) / 2.0;
        if let Some(e) = self.exact {
            return chance(e);
        }
        let searched = match self.score {
            SearchScore::Win => 1.0,
            SearchScore::Loss => 0.0,
            SearchScore::Centistones(cs) => 1.0 / (1.0 + (-(cs as f32) / scale).exp()),
        };
        match self.origin {
            Origin::Played => lambda * searched + (1.0 - lambda) * chance(self.result),
            _ => searched,
        }
    }

    /// The winning chances the evaluation may give without loss, `(low, high)`: the target
    /// itself for an exact score, from the bound up for a lower bound, up to it for an upper
    /// one (TreeStrap's loss for the nodes alpha-beta only bounds).
    pub fn target_range(&self, lambda: f32, scale: f32) -> (f32, f32) {
        let t = self.target(lambda, scale);
        match (self.exact, self.origin) {
            (None, Origin::NodeAtLeast) => (t, 1.0),
            (None, Origin::NodeAtMost) => (0.0, t),
            _ => (t, t),
        }
    }
}

/// Summary of one finished self-play game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameSummary {
    /// Complete turns played.
    pub turns: u32,
    /// Step-level actions played.
    pub actions: u32,
    /// How it ended.
    pub end: GameEnd,
    /// Winner: 0 White, 1 Black, `None` for a draw.
    pub winner: Option<u8>,
    /// In a game that was not allowed to resign: would a resignation have lost a game the
    /// side did not lose? `None` when no resignation would have happened.
    pub false_resignation: Option<bool>,
}

/// A scored position as format version 3 stored it (always a position of the game).
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
struct ScoredV3 {
    white: u64,
    black: u64,
    black_to_move: bool,
    score: SearchScore,
    result: i8,
    exact: Option<i8>,
}

/// A shard as format version 3 stored it.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
struct ShardV3 {
    samples: Vec<Sample>,
    games: Vec<GameSummary>,
    network_steps: u64,
    scored: Vec<ScoredV3>,
}

impl From<ShardV3> for Shard {
    fn from(old: ShardV3) -> Shard {
        Shard {
            samples: old.samples,
            games: old.games,
            network_steps: old.network_steps,
            scored: old
                .scored
                .into_iter()
                .map(|s| Scored {
                    white: s.white,
                    black: s.black,
                    black_to_move: s.black_to_move,
                    score: s.score,
                    result: s.result,
                    exact: s.exact,
                    origin: Origin::Played,
                })
                .collect(),
        }
    }
}

/// The content of one shard file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Shard {
    /// Training examples.
    pub samples: Vec<Sample>,
    /// The games they came from.
    pub games: Vec<GameSummary>,
    /// Optimiser steps of the network that played these games.
    pub network_steps: u64,
    /// Scored positions of alpha-beta self-play (an evaluation run's examples).
    pub scored: Vec<Scored>,
}

fn bincode_config() -> bincode::config::Configuration {
    bincode::config::standard()
}

fn shard_payload(shard: &Shard) -> Result<Vec<u8>, String> {
    let count = shard.samples.len() + shard.scored.len();
    let mut payload = (count as u64).to_le_bytes().to_vec();
    let body = bincode::serde::encode_to_vec(shard, bincode_config()).map_err(|e| e.to_string())?;
    payload.extend_from_slice(&body);
    Ok(payload)
}

/// Write a shard atomically.
pub fn write_shard(path: &Path, shard: &Shard) -> Result<(), ReplayError> {
    let payload = shard_payload(shard).map_err(|message| ReplayError::Payload {
        path: path.to_path_buf(),
        message,
    })?;
    container::write_atomic(path, &SHARD_MAGIC, SHARD_VERSION, &payload)?;
    Ok(())
}

/// A shard file's bytes, as [`write_shard`] writes them (for an object store).
pub fn encode_shard(shard: &Shard) -> Result<Vec<u8>, ReplayError> {
    let payload = shard_payload(shard).map_err(|message| ReplayError::Payload {
        path: PathBuf::from("(shard in memory)"),
        message,
    })?;
    Ok(container::encode(&SHARD_MAGIC, SHARD_VERSION, &payload))
}

/// Read and check a shard (format version 4, or an older one: see the module's docs).
pub fn read_shard(path: &Path) -> Result<Shard, ReplayError> {
    let (payload, version) = match container::read(path, &SHARD_MAGIC, SHARD_VERSION) {
        Ok(payload) => (payload, SHARD_VERSION),
        Err(ContainerError::WrongVersion {
            found: old @ (SHARD_VERSION_1 | SHARD_VERSION_2 | SHARD_VERSION_3),
            ..
        }) => (container::read(path, &SHARD_MAGIC, old)?, old),
        Err(e) => return Err(e.into()),
    };
    let bad = |message: String| ReplayError::Payload {
        path: path.to_path_buf(),
        message,
    };
    if payload.len() < 8 {
        return Err(bad("shorter than its sample count".into()));
    }
    let mut count = [0u8; 8];
    count.copy_from_slice(&payload[..8]);
    let count = u64::from_le_bytes(count);
    let (shard, used): (Shard, usize) = if version == SHARD_VERSION_1 {
        let (old, used): (ShardV1, usize) =
            bincode::serde::decode_from_slice(&payload[8..], bincode_config())
                .map_err(|e| bad(e.to_string()))?;
        (old.into(), used)
    } else if version == SHARD_VERSION_2 {
        let (old, used): (ShardV2, usize) =
            bincode::serde::decode_from_slice(&payload[8..], bincode_config())
                .map_err(|e| bad(e.to_string()))?;
        (old.into(), used)
    } else if version == SHARD_VERSION_3 {
        let (old, used): (ShardV3, usize) =
            bincode::serde::decode_from_slice(&payload[8..], bincode_config())
                .map_err(|e| bad(e.to_string()))?;
        (old.into(), used)
    } else {
        bincode::serde::decode_from_slice(&payload[8..], bincode_config())
            .map_err(|e| bad(e.to_string()))?
    };
    if used != payload.len() - 8 {
        return Err(bad(format!("{} trailing bytes", payload.len() - 8 - used)));
    }
    let held = shard.samples.len() + shard.scored.len();
    if held as u64 != count {
        return Err(bad(format!(
            "header says {count} samples, payload has {held}"
        )));
    }
    for (i, s) in shard.samples.iter().enumerate() {
        if let Some(problem) = s.target_problem() {
            return Err(bad(format!("sample {i}: {problem}")));
        }
    }
    for (i, s) in shard.scored.iter().enumerate() {
        if let Some(problem) = s.problem() {
            return Err(bad(format!("scored position {i}: {problem}")));
        }
    }
    Ok(shard)
}

/// The absolute index of an action (board not turned for Black).
pub fn absolute_index(action: Action) -> u16 {
    encoding::action_index(action, Color::White) as u16
}

impl Sample {
    /// What is wrong with the training targets, if anything: a policy probability that is not
    /// a finite number in [0, 1], targets that do not sum to about 1, an action index out of
    /// range, or a result other than -1, 0, 1. (A checksum cannot catch these: the writer may
    /// have been wrong.)
    pub fn target_problem(&self) -> Option<String> {
        if !(-1..=1).contains(&self.result) {
            return Some(format!("result {} is not -1, 0 or 1", self.result));
        }
        let mut total = 0.0f64;
        for &(action, p) in &self.policy {
            if usize::from(action) >= encoding::ACTION_COUNT {
                return Some(format!("policy action index {action} out of range"));
            }
            if !p.is_finite() || !(0.0..=1.0).contains(&p) {
                return Some(format!("policy probability {p} for action {action}"));
            }
            total += f64::from(p);
        }
        if !self.policy.is_empty() && (total - 1.0).abs() > 1e-3 {
            return Some(format!("policy probabilities sum to {total}"));
        }
        if let Some(wdl) = self.search_wdl {
            if wdl
                .iter()
                .any(|p| !p.is_finite() || !(0.0..=1.0).contains(p))
            {
                return Some(format!("search value {wdl:?} is not three probabilities"));
            }
            let sum: f32 = wdl.iter().sum();
            if (sum - 1.0).abs() > 1e-3 {
                return Some(format!("search value {wdl:?} sums to {sum}"));
            }
        }
        None
    }

    /// Build a sample from the position at the start of the turn, the steps played since, and
    /// the rest of the training data.
    pub fn new(
        turn_start: &Position,
        chain_steps: &[Action],
        repetitions: u32,
        policy: Vec<(u16, f32)>,
        result: i8,
    ) -> Sample {
        Sample {
            white: turn_start.stones(Color::White).0,
            black: turn_start.stones(Color::Black).0,
            black_to_move: turn_start.side_to_move() == Color::Black,
            no_capture: turn_start.no_capture_turns(),
            turn_number: turn_start.turn_number(),
            chain_steps: chain_steps.iter().map(|&a| absolute_index(a)).collect(),
            repetitions: repetitions.min(255) as u8,
            policy,
            result,
            search_wdl: None,
        }
    }

    /// The same sample with the root search's value (mover's view, win/draw/loss).
    pub fn with_search_wdl(self, wdl: [f32; 3]) -> Sample {
        Sample {
            search_wdl: Some(wdl),
            ..self
        }
    }

    /// The position the sample was taken in.
    pub fn position(&self) -> Result<Position, ReplayError> {
        let setup = Setup {
            stones: ByColor([Bitboard(self.white), Bitboard(self.black)]),
            side_to_move: if self.black_to_move {
                Color::Black
            } else {
                Color::White
            },
            no_capture_turns: self.no_capture,
            turn_number: self.turn_number.max(1),
        };
        let mut pos =
            Position::from_setup(&setup).map_err(|e| ReplayError::Sample(e.to_string()))?;
        for &index in &self.chain_steps {
            let action = encoding::index_action(index as usize, Color::White)
                .ok_or_else(|| ReplayError::Sample(format!("action index {index} out of range")))?;
            pos = pos
                .try_apply(action)
                .map_err(|e| ReplayError::Sample(e.to_string()))?;
        }
        Ok(pos)
    }

    /// Append this sample, seen through `sym`, to a training batch being built: planes,
    /// legal mask, policy target and WDL target. `no_progress_limit` is the rules' limit;
    /// the WDL target is `(1 - w)` times the game's result plus `w` times the root search's
    /// value, `w` = `search_value_weight` (the result alone for a sample without one).
    pub fn encode_into(
        &self,
        sym: Symmetry,
        no_progress_limit: u32,
        search_value_weight: f32,
        batch: &mut TrainBatch,
    ) -> Result<(), ReplayError> {
        let pos = sym.position(&self.position()?);
        let side = pos.side_to_move();
        let start = batch.planes.len();
        batch.planes.resize(start + INPUT_LEN, 0.0);
        let ctx = Context {
            repetitions: self.repetitions.into(),
            no_progress_limit,
        };
        encoding::encode(&pos, ctx, &mut batch.planes[start..]);
        let mask_start = batch.legal.len();
        batch.legal.resize(mask_start + ACTION_COUNT, false);
        batch.policy.resize(mask_start + ACTION_COUNT, 0.0);
        for &a in pos.legal_actions().iter() {
            batch.legal[mask_start + encoding::action_index(a, side)] = true;
        }
        let mut total = 0.0;
        for &(index, p) in &self.policy {
            let action = encoding::index_action(index as usize, Color::White)
                .ok_or_else(|| ReplayError::Sample(format!("policy index {index} out of range")))?;
            let i = encoding::action_index(sym.action(action), side);
            if !batch.legal[mask_start + i] {
                return Err(ReplayError::Sample(format!(
                    "policy target on illegal action {action}"
                )));
            }
            batch.policy[mask_start + i] += p.max(0.0);
            total += p.max(0.0);
        }
        if total <= 0.0 {
            return Err(ReplayError::Sample("empty policy target".into()));
        }
        for v in &mut batch.policy[mask_start..] {
            *v /= total;
        }
        let mut wdl = match self.result {
            1 => [1.0, 0.0, 0.0],
            -1 => [0.0, 0.0, 1.0],
            _ => [0.0, 1.0, 0.0],
        };
        if let Some(search) = self.search_wdl {
            let w = search_value_weight.clamp(0.0, 1.0);
            if w > 0.0 {
                for (target, s) in wdl.iter_mut().zip(search) {
                    *target = (1.0 - w) * *target + w * s;
                }
            }
        }
        batch.wdl.extend_from_slice(&wdl);
        batch.batch_size += 1;
        Ok(())
    }
}

/// Window size for `total` samples seen (see `ReplaySection`).
pub fn window_size(total: usize, min: usize, max: usize, exponent: f64) -> usize {
    if total <= min {
        return min;
    }
    let grown = min as f64 * (total as f64 / min as f64).powf(exponent);
    (grown as usize).clamp(min, max)
}

/// The samples of a run, in the order their shards were written, with the newest `window`
/// available for sampling.
#[derive(Default)]
pub struct ReplayBuffer {
    samples: Vec<Sample>,
    /// Scored positions (an evaluation run's examples), windowed like the samples.
    scored: Vec<Scored>,
    loaded: std::collections::BTreeSet<String>,
    /// Samples dropped from memory because they fell out of every possible window.
    dropped: usize,
    /// Games read from shards.
    pub games: u64,
}

/// What one scan of the shard folder found.
#[derive(Debug, Default)]
pub struct ScanReport {
    /// New shards loaded.
    pub shards: usize,
    /// New samples.
    pub samples: usize,
    /// New games.
    pub games: Vec<GameSummary>,
    /// Shards skipped as unreadable, with the reason (each named once).
    pub skipped: Vec<String>,
    /// The shards loaded, by name, with their game counts.
    pub names: Vec<(String, u64)>,
}

impl ReplayBuffer {
    /// An empty buffer.
    pub fn new() -> ReplayBuffer {
        ReplayBuffer::default()
    }

    /// Total samples (and scored positions) ever loaded.
    pub fn total(&self) -> usize {
        self.samples.len() + self.scored.len() + self.dropped
    }

    /// Samples (and scored positions) held in memory.
    pub fn held(&self) -> usize {
        self.samples.len() + self.scored.len()
    }

    /// Load every shard in `dir` not loaded before, in file-name order. Unreadable shards
    /// are skipped and reported, never fatal; they are not retried.
    pub fn scan(&mut self, dir: &Path, keep_at_most: usize) -> ScanReport {
        let names: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".shard") && !n.starts_with('.'))
            .collect();
        self.load(names, |name| read_shard(&dir.join(name)), keep_at_most)
    }

    /// Load the shards `names` not loaded before, in name order, reading each with `read`.
    /// Unreadable shards are skipped and reported, never fatal; they are not retried. The
    /// report's `names` lists the shards loaded.
    pub fn load(
        &mut self,
        mut names: Vec<String>,
        mut read: impl FnMut(&str) -> Result<Shard, ReplayError>,
        keep_at_most: usize,
    ) -> ScanReport {
        let mut report = ScanReport::default();
        names.retain(|n| !self.loaded.contains(n));
        names.sort();
        names.dedup();
        for name in names {
            match read(&name) {
                Ok(shard) => {
                    report.shards += 1;
                    report.samples += shard.samples.len() + shard.scored.len();
                    self.games += shard.games.len() as u64;
                    report.names.push((name.clone(), shard.games.len() as u64));
                    report.games.extend(shard.games);
                    self.samples.extend(shard.samples);
                    self.scored.extend(shard.scored);
                }
                // The store did not answer: not the shard's fault, so it is tried again at the
                // next scan.
                Err(ReplayError::Store(e)) => {
                    report
                        .skipped
                        .push(format!("{name}: {e} (tried again later)"));
                    continue;
                }
                Err(e) => report.skipped.push(e.to_string()),
            }
            self.loaded.insert(name);
        }
        for held in [self.samples.len(), self.scored.len()] {
            if held > keep_at_most {
                self.dropped += held - keep_at_most;
            }
        }
        if self.samples.len() > keep_at_most {
            self.samples.drain(..self.samples.len() - keep_at_most);
        }
        if self.scored.len() > keep_at_most {
            self.scored.drain(..self.scored.len() - keep_at_most);
        }
        report
    }

    /// Gives the newest `count` samples the value `judge` finds for them (in `[-1, 1]`, for
    /// the mover) as their search value, as win/draw/loss: what a value teacher does at
    /// ingest (`training.value_teacher`). Samples it cannot judge keep theirs.
    pub fn judge_newest(&mut self, count: usize, mut judge: impl FnMut(&Position) -> Option<f32>) {
        let n = self.samples.len();
        for sample in &mut self.samples[n.saturating_sub(count)..] {
            let Ok(pos) = sample.position() else {
                continue;
            };
            if let Some(v) = judge(&pos) {
                let v = v.clamp(-1.0, 1.0);
                sample.search_wdl = Some([(1.0 + v) / 2.0, 0.0, (1.0 - v) / 2.0]);
            }
        }
    }

    /// A training batch of the learned evaluation, read with `inputs`: `size` scored positions drawn uniformly
    /// from the newest `window`, each through a random symmetry of the board when `augment`,
    /// with their target chances ([`Scored::target`]).
    #[allow(clippy::too_many_arguments)]
    pub fn sample_eval_batch<R: RngExt>(
        &self,
        inputs: fanorona_eval::Inputs,
        rng: &mut R,
        window: usize,
        size: usize,
        augment: bool,
        lambda: f32,
        scale: f32,
    ) -> fanorona_net::EvalBatch {
        let mut batch = fanorona_net::EvalBatch::new(inputs);
        let n = self.scored.len();
        let window = window.min(n);
        if window == 0 {
            return batch;
        }
        batch.active.reserve(size * inputs.max_active());
        let mut tries = 0;
        while batch.targets.len() < size && tries < size * 4 {
            tries += 1;
            let s = &self.scored[n - 1 - rng.random_range(0..window)];
            let Ok(pos) = s.position() else {
                continue;
            };
            let sym = if augment {
                Symmetry::ALL[rng.random_range(0..4)]
            } else {
                Symmetry::Identity
            };
            let (low, high) = s.target_range(lambda, scale);
            batch.push(&sym.position(&pos), low, Some(high));
        }
        batch
    }

    /// A training batch of `size` samples drawn uniformly from the newest `window`, each
    /// through a random symmetry when `augment`, value targets blended with
    /// `search_value_weight` (see [`Sample::encode_into`]). Samples that fail to decode are
    /// replaced by others (and counted in the second return value).
    pub fn sample_batch<R: RngExt>(
        &self,
        rng: &mut R,
        window: usize,
        size: usize,
        augment: bool,
        no_progress_limit: u32,
        search_value_weight: f32,
    ) -> (TrainBatch, usize) {
        let mut batch = TrainBatch {
            batch_size: 0,
            planes: Vec::with_capacity(size * INPUT_LEN),
            legal: Vec::with_capacity(size * ACTION_COUNT),
            policy: Vec::with_capacity(size * ACTION_COUNT),
            wdl: Vec::with_capacity(size * 3),
        };
        let n = self.samples.len();
        let window = window.min(n);
        let mut bad = 0;
        if window == 0 {
            return (batch, bad);
        }
        while batch.batch_size < size && bad < size * 4 {
            let sample = &self.samples[n - 1 - rng.random_range(0..window)];
            let sym = if augment {
                Symmetry::ALL[rng.random_range(0..4)]
            } else {
                Symmetry::Identity
            };
            let before = (batch.planes.len(), batch.legal.len(), batch.wdl.len());
            if sample
                .encode_into(sym, no_progress_limit, search_value_weight, &mut batch)
                .is_err()
            {
                batch.planes.truncate(before.0);
                batch.legal.truncate(before.1);
                batch.policy.truncate(before.1);
                batch.wdl.truncate(before.2);
                bad += 1;
            }
        }
        (batch, bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_net::encoding::{transform_index, transform_planes};

    fn empty_batch() -> TrainBatch {
        TrainBatch {
            batch_size: 0,
            planes: Vec::new(),
            legal: Vec::new(),
            policy: Vec::new(),
            wdl: Vec::new(),
        }
    }

    /// A mid-chain sample: White's d3d2w takes d4 and the chain may go on.
    fn chain_sample() -> Sample {
        let start: Position = "9/3B5/3W2B2/2B2B1W1/1BBW5 w".parse().unwrap();
        let step: Action = "d3d2w".parse().unwrap();
        let mid = start.apply(step);
        let legal = mid.legal_actions();
        let p = 1.0 / legal.len() as f32;
        let policy = legal.iter().map(|&a| (absolute_index(a), p)).collect();
        Sample::new(&start, &[step], 0, policy, 1)
    }

    #[test]
    fn samples_rebuild_their_position() {
        let s = chain_sample();
        let pos = s.position().unwrap();
        assert_eq!(
            pos.chain().map(|c| c.stone.to_string()),
            Some("d2".to_string())
        );
        let mut bad = s.clone();
        bad.chain_steps = vec![absolute_index("a1a2".parse().unwrap())];
        assert!(bad.position().is_err());
        bad.chain_steps = vec![60_000];
        assert!(bad.position().is_err());
    }

    #[test]
    fn encoding_a_sample_fills_planes_mask_and_targets() {
        let s = chain_sample();
        let mut batch = empty_batch();
        s.encode_into(Symmetry::Identity, 50, 0.0, &mut batch)
            .unwrap();
        assert_eq!(batch.batch_size, 1);
        assert_eq!(batch.planes.len(), INPUT_LEN);
        assert_eq!(batch.wdl, vec![1.0, 0.0, 0.0]);
        let total: f32 = batch.policy.iter().sum();
        assert!((total - 1.0).abs() < 1e-5);
        for (p, &legal) in batch.policy.iter().zip(&batch.legal) {
            assert!(*p == 0.0 || legal, "target only on legal actions");
        }
        assert_eq!(batch.legal.iter().filter(|&&l| l).count(), s.policy.len());
    }

    #[test]
    fn the_value_target_blends_the_result_with_the_search_value() {
        let s = chain_sample().with_search_wdl([0.2, 0.5, 0.3]);
        let target = |sample: &Sample, w: f32| {
            let mut batch = empty_batch();
            sample
                .encode_into(Symmetry::Identity, 50, w, &mut batch)
                .unwrap();
            batch.wdl
        };
        assert_eq!(target(&s, 0.0), vec![1.0, 0.0, 0.0]);
        let half = target(&s, 0.5);
        for (got, want) in half.iter().zip([0.6, 0.25, 0.15]) {
            assert!((got - want).abs() < 1e-6, "{half:?}");
        }
        assert_eq!(target(&s, 1.0), vec![0.2, 0.5, 0.3]);
        // a sample without a search value (format version 1) keeps the result alone
        assert_eq!(target(&chain_sample(), 0.5), vec![1.0, 0.0, 0.0]);
    }

    #[test]
    fn shards_of_format_version_1_are_still_read() {
        let dir = fanorona_testkit::TempDir::new("shard-v1");
        let path = dir.join("old.shard");
        let s = chain_sample();
        let old = SampleV1 {
            white: s.white,
            black: s.black,
            black_to_move: s.black_to_move,
            no_capture: s.no_capture,
            turn_number: s.turn_number,
            chain_steps: s.chain_steps.clone(),
            repetitions: s.repetitions,
            policy: s.policy.clone(),
            result: s.result,
        };
        let games = small_shard().games;
        let body =
            bincode::serde::encode_to_vec((vec![old], &games, 7u64), bincode_config()).unwrap();
        let mut payload = 1u64.to_le_bytes().to_vec();
        payload.extend_from_slice(&body);
        container::write_atomic(&path, &SHARD_MAGIC, SHARD_VERSION_1, &payload).unwrap();
        let read = read_shard(&path).unwrap();
        assert_eq!(read.samples, vec![s.clone()]);
        assert_eq!(read.samples[0].search_wdl, None);
        assert_eq!((read.games, read.network_steps), (games, 7));
        // the current version carries the search value through a write and a read
        let new = Shard {
            samples: vec![s.with_search_wdl([0.25, 0.5, 0.25])],
            games: Vec::new(),
            network_steps: 1,
            scored: Vec::new(),
        };
        write_shard(&path, &new).unwrap();
        assert_eq!(read_shard(&path).unwrap(), new);
        // an unknown version is refused by name
        container::write_atomic(&path, &SHARD_MAGIC, 5, &payload).unwrap();
        let err = read_shard(&path).unwrap_err().to_string();
        assert!(err.contains("version"), "{err}");
    }

    #[test]
    fn shards_of_format_version_2_are_still_read_and_scored_positions_round_trip() {
        let dir = fanorona_testkit::TempDir::new("shard-v2");
        let path = dir.join("v2.shard");
        let old = ShardV2 {
            samples: vec![chain_sample()],
            games: small_shard().games,
            network_steps: 3,
        };
        let body = bincode::serde::encode_to_vec(&old, bincode_config()).unwrap();
        let mut payload = 1u64.to_le_bytes().to_vec();
        payload.extend_from_slice(&body);
        container::write_atomic(&path, &SHARD_MAGIC, SHARD_VERSION_2, &payload).unwrap();
        let read = read_shard(&path).unwrap();
        assert_eq!(read.samples, old.samples);
        assert!(read.scored.is_empty());
        let start = Position::start();
        let scored = Scored {
            white: start.stones(Color::White).0,
            black: start.stones(Color::Black).0,
            black_to_move: false,
            score: SearchScore::Centistones(-40),
            result: 1,
            exact: None,
            origin: Origin::Played,
        };
        let shard = Shard {
            scored: vec![
                scored,
                Scored {
                    score: SearchScore::Win,
                    exact: Some(0),
                    ..scored
                },
            ],
            ..Shard::default()
        };
        write_shard(&path, &shard).unwrap();
        assert_eq!(read_shard(&path).unwrap(), shard);
        // Targets: the exact result wins; else lambda of the search and the rest the result.
        assert_eq!(shard.scored[1].target(0.5, 200.0), 0.5);
        let t = scored.target(0.5, 200.0);
        let searched = 1.0 / (1.0 + (40.0f32 / 200.0).exp());
        assert!((t - (0.5 * searched + 0.5)).abs() < 1e-6, "{t}");
        assert_eq!(scored.target(0.0, 200.0), 1.0);
        // A scored position with both colours on one point is refused.
        let bad = Shard {
            scored: vec![Scored {
                black: scored.white,
                ..scored
            }],
            ..Shard::default()
        };
        write_shard(&path, &bad).unwrap();
        let err = read_shard(&path).unwrap_err().to_string();
        assert!(err.contains("scored position 0"), "{err}");
    }

    #[test]
    fn shards_of_format_version_3_read_as_played_positions() {
        let dir = fanorona_testkit::TempDir::new("shard-v3");
        let path = dir.join("v3.shard");
        let start = Position::start();
        let old = ShardV3 {
            samples: Vec::new(),
            games: small_shard().games,
            network_steps: 5,
            scored: vec![ScoredV3 {
                white: start.stones(Color::White).0,
                black: start.stones(Color::Black).0,
                black_to_move: true,
                score: SearchScore::Centistones(120),
                result: -1,
                exact: None,
            }],
        };
        let body = bincode::serde::encode_to_vec(&old, bincode_config()).unwrap();
        let mut payload = 1u64.to_le_bytes().to_vec();
        payload.extend_from_slice(&body);
        container::write_atomic(&path, &SHARD_MAGIC, SHARD_VERSION_3, &payload).unwrap();
        let read = read_shard(&path).unwrap();
        assert_eq!(read.network_steps, 5);
        let s = read.scored[0];
        assert_eq!(s.origin, Origin::Played);
        assert!(s.black_to_move);
        assert_eq!((s.score, s.result), (SearchScore::Centistones(120), -1));
    }

    #[test]
    fn a_node_of_the_tree_is_labelled_by_its_score_alone_and_a_bound_gives_a_range() {
        let start = Position::start();
        let played = Scored {
            white: start.stones(Color::White).0,
            black: start.stones(Color::Black).0,
            black_to_move: false,
            score: SearchScore::Centistones(0),
            result: 1,
            exact: None,
            origin: Origin::Played,
        };
        // played: blended with the result
        assert_eq!(played.target_range(0.5, 200.0), (0.75, 0.75));
        // a node: the score alone (its game's result is not its own)
        let node = Scored {
            origin: Origin::NodeExact,
            ..played
        };
        assert_eq!(node.target_range(0.5, 200.0), (0.5, 0.5));
        let at_least = Scored {
            origin: Origin::NodeAtLeast,
            score: SearchScore::Centistones(200),
            ..played
        };
        let (low, high) = at_least.target_range(0.5, 200.0);
        assert!((low - 1.0 / (1.0 + (-1.0f32).exp())).abs() < 1e-6 && high == 1.0);
        let at_most = Scored {
            origin: Origin::NodeAtMost,
            score: SearchScore::Loss,
            ..played
        };
        assert_eq!(at_most.target_range(0.5, 200.0), (0.0, 0.0));
        // the tables' result overrides any bound
        let known = Scored {
            exact: Some(1),
            ..at_most
        };
        assert_eq!(known.target_range(0.5, 200.0), (1.0, 1.0));
        // a batch carries both ends
        let mut buffer = ReplayBuffer::new();
        buffer.scored.extend([played, at_least]);
        let batch = buffer.sample_eval_batch(
            fanorona_eval::Inputs::Stones,
            &mut rand::rng(),
            2,
            64,
            true,
            0.5,
            200.0,
        );
        assert_eq!(batch.upper.len(), batch.targets.len());
        assert!(batch.upper.iter().zip(&batch.targets).all(|(h, l)| h >= l));
        assert!(batch.upper.contains(&1.0) && batch.upper.contains(&0.75));
    }

    #[test]
    fn augmentation_transforms_planes_and_targets_together() {
        let s = chain_sample();
        let mut plain = empty_batch();
        s.encode_into(Symmetry::Identity, 50, 0.0, &mut plain)
            .unwrap();
        for sym in Symmetry::ALL {
            let mut seen = empty_batch();
            s.encode_into(sym, 50, 0.0, &mut seen).unwrap();
            let mut planes = vec![0.0; INPUT_LEN];
            transform_planes(sym, &plain.planes, &mut planes);
            assert_eq!(planes, seen.planes, "{sym:?}");
            for i in 0..ACTION_COUNT {
                let j = transform_index(sym, i);
                assert_eq!(plain.policy[i], seen.policy[j], "{sym:?} action {i}");
                assert_eq!(plain.legal[i], seen.legal[j], "{sym:?} action {i}");
            }
        }
    }

    #[test]
    fn a_target_on_an_illegal_action_is_rejected() {
        let mut s = chain_sample();
        s.policy = vec![(absolute_index("a1a2".parse().unwrap()), 1.0)];
        let mut batch = empty_batch();
        assert!(
            s.encode_into(Symmetry::Identity, 50, 0.0, &mut batch)
                .is_err()
        );
    }

    /// Two samples and one game.
    fn small_shard() -> Shard {
        Shard {
            samples: vec![chain_sample(), chain_sample()],
            games: vec![GameSummary {
                turns: 3,
                actions: 4,
                end: GameEnd::Resigned,
                winner: Some(0),
                false_resignation: None,
            }],
            network_steps: 12,
            scored: Vec::new(),
        }
    }

    #[test]
    fn shards_round_trip_and_checks_hold() {
        let dir = fanorona_testkit::TempDir::new("shard");
        let path = dir.join("a.shard");
        let shard = small_shard();
        write_shard(&path, &shard).unwrap();
        assert_eq!(read_shard(&path).unwrap(), shard);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
        assert!(
            read_shard(&path)
                .unwrap_err()
                .to_string()
                .contains("truncated")
        );
        std::fs::write(&path, b"").unwrap();
        assert!(read_shard(&path).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_shard_with_a_valid_checksum_over_bad_targets_is_rejected() {
        // Issue 16: an infinite policy probability made every later training step NaN.
        let dir = fanorona_testkit::TempDir::new("shard-bad-targets");
        let path = dir.join("bad.shard");
        type Spoil = fn(&mut Sample);
        let cases: [(Spoil, &str); 6] = [
            (|s| s.policy[0].1 = f32::INFINITY, "policy probability inf"),
            (|s| s.policy[0].1 = f32::NAN, "policy probability NaN"),
            (|s| s.policy.push((9, 0.5)), "sum to"),
            (|s| s.result = 7, "result 7"),
            (
                |s| s.search_wdl = Some([f32::NAN, 0.5, 0.5]),
                "not three probabilities",
            ),
            (|s| s.search_wdl = Some([0.5, 0.5, 0.5]), "sums to 1.5"),
        ];
        for (spoil, expected) in cases {
            let mut sample = chain_sample();
            spoil(&mut sample);
            let shard = Shard {
                samples: vec![chain_sample(), sample],
                games: Vec::new(),
                network_steps: 0,
                scored: Vec::new(),
            };
            write_shard(&path, &shard).unwrap();
            let err = read_shard(&path).unwrap_err().to_string();
            assert!(err.contains("sample 1") && err.contains(expected), "{err}");
            assert!(err.contains("bad.shard"), "{err}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_named_like_a_shard_is_skipped_not_waited_on() {
        // Issue 16: opening a FIFO blocked the trainer forever.
        let dir = fanorona_testkit::TempDir::new("shard-fifo");
        let shard = Shard {
            samples: vec![chain_sample()],
            games: Vec::new(),
            network_steps: 0,
            scored: Vec::new(),
        };
        write_shard(&dir.join("a.shard"), &shard).unwrap();
        fanorona_testkit::make_fifo(&dir.join("b.shard"));
        let mut replay = ReplayBuffer::new();
        let report = replay.scan(&dir, 1000);
        assert_eq!(report.shards, 1);
        assert_eq!(report.skipped.len(), 1, "{:?}", report.skipped);
        assert!(report.skipped[0].contains("fifo"), "{:?}", report.skipped);
    }

    /// Fuzz target: a shard whose payload is mutated under a valid checksum (the checksum
    /// only proves the bytes are the ones written) is refused or read, never a panic, and
    /// whatever is read passes the sample checks.
    #[test]
    fn fuzz_mutated_shard_payloads_with_valid_checksums_never_panic() {
        let dir = fanorona_testkit::TempDir::new("shard-fuzz");
        let path = dir.join("seed.shard");
        let shard = small_shard();
        write_shard(&path, &shard).unwrap();
        let payload = container::read(&path, &SHARD_MAGIC, SHARD_VERSION).unwrap();
        let case = dir.join("case.shard");
        fanorona_testkit::fuzz::run(
            "shard",
            &[payload],
            &[&[0xff; 8], &[0; 8], &[0x7f, 0x80, 0x80, 0x80]],
            500,
            |bytes| {
                container::write_atomic(&case, &SHARD_MAGIC, SHARD_VERSION, bytes).unwrap();
                if let Ok(read) = read_shard(&case) {
                    let mut batch = empty_batch();
                    for sample in &read.samples {
                        let _ = sample.encode_into(Symmetry::Identity, 50, 0.0, &mut batch);
                    }
                }
            },
        );
    }

    #[test]
    fn the_window_grows_with_the_data() {
        assert_eq!(window_size(10, 100, 1000, 0.75), 100);
        assert_eq!(window_size(100, 100, 1000, 0.75), 100);
        let w = window_size(1000, 100, 100_000, 0.75);
        assert!(w > 100 && w < 1000, "{w}");
        assert_eq!(window_size(10_000_000, 100, 1000, 0.75), 1000);
        assert_eq!(window_size(5000, 100, 100_000, 1.0), 5000);
    }
}
