//! The rating store: a folder of games files, one per pairing, reused by later runs.
//!
//! A pairing is known by its *key*: both players' identities (their specs, with a model
//! file's path replaced by the fingerprint of its weights, so a moved or re-saved model is the
//! same player and a retrained one is not), the seed, the opening length and the rules. Its
//! games live in `<slug>-<hash>.games` (the pit games format), where the hash is of the key.
//! Since game `i` of a match depends only on the seed and `i`, a stored pairing with fewer
//! games than asked is extended by playing only the missing ones.
//!
//! **Several processes on one store.** Every load and save holds an OS lock on the store's
//! `store.lock` file; a save reads what is stored and keeps the longer record, so a process
//! that stored more games of the pairing meanwhile is never overwritten by a shorter list.
//!
//! **Damage.** A file that cannot be read, is damaged or describes another match is moved
//! aside as `<name>.damaged` (`<name>.damaged.2`, ... when that exists: none is ever replaced
//! or deleted), and the pairing starts again.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::arena::{MatchConfig, MatchGame};
use crate::games_file::{GamesHeader, games_text, parse_games};

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file or folder the operating system refused.
    #[error("{what} {}: {source}", path.display())]
    Io {
        /// What was being done (`writing`, `reading`, ...).
        what: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Saving a pairing.
    #[error(transparent)]
    Write(#[from] fanorona_data::AtomicWriteError),
}

fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> StoreError + 'a {
    move |source| StoreError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// A folder of stored pairings.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
}

/// One pairing's place in the store.
#[derive(Debug)]
pub struct Slot {
    /// The file.
    pub path: PathBuf,
    /// What its header must say.
    pub header: GamesHeader,
}

impl Store {
    /// The store in `dir` (created when missing).
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(dir).map_err(io("creating the rating store", dir))?;
        // What a process killed mid-save left behind.
        fanorona_data::remove_stale_temporaries(dir);
        Ok(Store {
            dir: dir.to_path_buf(),
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the pairing of `a_key` against `b_key` (with `header` describing its match)
    /// is kept.
    pub fn slot(&self, a_key: &str, b_key: &str, header: GamesHeader) -> Slot {
        let key = format!(
            "{a_key} vs {b_key} seed={} opening-plies={} no-progress-limit={}",
            header.seed, header.opening_plies, header.rules.no_progress_limit
        );
        let name = format!(
            "{}-vs-{}-{:016x}.games",
            slug(&header.a),
            slug(&header.b),
            fnv1a(key.as_bytes())
        );
        Slot {
            path: self.dir.join(name),
            header,
        }
    }
}

impl Slot {
    /// The stored games (none when there is no file). A damaged file is set aside (see the
    /// module's docs), `warn` is told, and the pairing starts again.
    pub fn load(
        &self,
        config: &MatchConfig,
        warn: &mut dyn FnMut(String),
    ) -> Result<Vec<MatchGame>, StoreError> {
        let _lock = self.lock()?;
        self.read_or_set_aside(config, warn)
    }

    /// Stores `games` (numbered 0.. in order) atomically, unless the store meanwhile holds
    /// more of this pairing's games (another process): then `games` becomes that longer
    /// record.
    pub fn save(
        &self,
        games: &mut Vec<MatchGame>,
        config: &MatchConfig,
        warn: &mut dyn FnMut(String),
    ) -> Result<(), StoreError> {
        let _lock = self.lock()?;
        let stored = self.read_or_set_aside(config, warn)?;
        if stored.len() > games.len() {
            *games = stored;
            return Ok(());
        }
        Ok(fanorona_data::write_atomic(
            &self.path,
            games_text(&self.header, games).as_bytes(),
        )?)
    }

    /// The lock every reader and writer of the store holds (released when dropped).
    fn lock(&self) -> Result<File, StoreError> {
        let path = self.path.with_file_name(LOCK_FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io("opening", &path))?;
        match file.lock() {
            Ok(()) => Ok(file),
            // A file system without locks: go on unlocked, as before locks were taken.
            Err(e) if e.kind() == std::io::ErrorKind::Unsupported => Ok(file),
            Err(e) => Err(io("locking", &path)(e)),
        }
    }

    fn read_or_set_aside(
        &self,
        config: &MatchConfig,
        warn: &mut dyn FnMut(String),
    ) -> Result<Vec<MatchGame>, StoreError> {
        let bytes = match read_bounded(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io("reading", &self.path)(e)),
        };
        let parsed = std::str::from_utf8(&bytes)
            .map_err(|e| format!("not UTF-8 text ({e})"))
            .and_then(|t| parse_games(t, config.max_turns).map_err(|e| e.to_string()))
            .and_then(|file| {
                if file.header == self.header {
                    Ok(file.games)
                } else {
                    Err(format!(
                        "it holds another match ({} vs {}, seed {})",
                        file.header.a, file.header.b, file.header.seed
                    ))
                }
            });
        match parsed {
            Ok(games) => Ok(games),
            Err(problem) => {
                let aside = free_name(&self.path.with_extension("games.damaged"));
                warn(format!(
                    "{}: {problem}; moved to {} and playing the pairing again",
                    self.path.display(),
                    aside.display()
                ));
                std::fs::rename(&self.path, &aside).map_err(io("moving aside", &self.path))?;
                Ok(Vec::new())
            }
        }
    }
}

/// The store's lock file.
pub const LOCK_FILE: &str = "store.lock";

/// Largest stored pairing read: 100,000 games of a few kilobytes each.
const MAX_FILE_BYTES: u64 = 1 << 30;

fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    fanorona_data::read_bounded(path, MAX_FILE_BYTES)
}

/// `path`, or `path.2`, `path.3`, ... : the first that does not exist.
fn free_name(path: &Path) -> PathBuf {
    let mut candidate = path.to_path_buf();
    let mut n = 2;
    while candidate.exists() {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{n}"));
        candidate = PathBuf::from(name);
        n += 1;
    }
    candidate
}

/// A file-name-safe short form of a spec: `alphabeta-depth=3`, at most 40 characters.
fn slug(spec: &str) -> String {
    let name = spec.rsplit(['/', '\\']).next().unwrap_or(spec);
    let kind = spec.split(':').next().unwrap_or("");
    let text = if name.len() < spec.len() {
        format!("{kind}-{name}")
    } else {
        spec.to_string()
    };
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "=.-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect()
}

/// 64-bit FNV-1a: a stable hash for file names (not for security).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::{FactoryError, play_match};
    use fanorona_engine::Rules;
    use fanorona_players::{GreedyPlayer, Player, RandomPlayer};

    fn games(n: u32) -> (MatchConfig, Vec<MatchGame>) {
        let config = MatchConfig {
            games: n,
            threads: 1,
            seed: 5,
            opening_plies: 2,
            ..MatchConfig::default()
        };
        let a = |s: u64| -> Result<Box<dyn Player>, FactoryError> {
            Ok(Box::new(GreedyPlayer::new(s)))
        };
        let b = |s: u64| -> Result<Box<dyn Player>, FactoryError> {
            Ok(Box::new(RandomPlayer::new(s)))
        };
        let games = play_match(&config, &a, &b, |_, _| {}).unwrap().games;
        (config, games)
    }

    fn slot(dir: &Path) -> Slot {
        let header = GamesHeader {
            a: "greedy".into(),
            b: "random".into(),
            seed: 5,
            opening_plies: 2,
            rules: Rules::default(),
        };
        Store::open(dir).unwrap().slot("greedy", "random", header)
    }

    #[test]
    fn a_save_never_replaces_a_longer_record_of_another_process() {
        let dir = fanorona_testkit::TempDir::new("store-two");
        let (config, all) = games(6);
        let slot = slot(dir.path());
        let mut warn = |w: String| panic!("{w}");
        // Process 2 stored all six games while process 1 had played two.
        slot.save(&mut all.clone(), &config, &mut warn).unwrap();
        let mut mine = all[..2].to_vec();
        slot.save(&mut mine, &config, &mut warn).unwrap();
        assert_eq!(mine.len(), 6, "the longer record is taken up");
        assert_eq!(slot.load(&config, &mut warn).unwrap().len(), 6);
        // A longer record of one's own replaces a shorter one.
        let mut fewer = all[..3].to_vec();
        std::fs::remove_file(&slot.path).unwrap();
        slot.save(&mut fewer, &config, &mut warn).unwrap();
        slot.save(&mut all.clone(), &config, &mut warn).unwrap();
        assert_eq!(slot.load(&config, &mut warn).unwrap().len(), 6);
    }

    #[test]
    fn damaged_files_are_set_aside_without_replacing_earlier_ones() {
        let dir = fanorona_testkit::TempDir::new("store-damage");
        let (config, all) = games(2);
        let slot = slot(dir.path());
        let mut warnings = Vec::new();
        for damage in ["first damage", "second damage"] {
            slot.save(&mut all.clone(), &config, &mut |w| warnings.push(w))
                .unwrap();
            std::fs::write(&slot.path, damage).unwrap();
            assert!(
                slot.load(&config, &mut |w| warnings.push(w))
                    .unwrap()
                    .is_empty()
            );
        }
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        let first = slot.path.with_extension("games.damaged");
        let mut second = first.as_os_str().to_owned();
        second.push(".2");
        assert_eq!(std::fs::read_to_string(first).unwrap(), "first damage");
        assert_eq!(std::fs::read_to_string(second).unwrap(), "second damage");
    }

    #[test]
    fn slugs_are_short_and_safe_and_hashes_stable() {
        assert_eq!(slug("alphabeta:depth=3"), "alphabeta-depth=3");
        assert_eq!(
            slug("net:path=runs/a/checkpoints/ckpt-10.ckpt,ms=500"),
            "net-ckpt-10.ckpt-ms=500"
        );
        assert!(slug(&"x".repeat(100)).len() == 40);
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
