//! The rating store: a folder of games files, one per pairing, reused by later runs.
//!
//! A pairing is known by its *key*: both players' identities (their specs, with a model
//! file's path replaced by the fingerprint of its weights, so a moved or re-saved model is the
//! same player and a retrained one is not), the seed, the opening length and the rules. Its
//! games live in `<slug>-<hash>.games` (the pit games format), where the hash is of the key.
//! Since game `i` of a match depends only on the seed and `i`, a stored pairing with fewer
//! games than asked is extended by playing only the missing ones.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use fanorona_players::arena::{MatchConfig, MatchGame};
use fanorona_players::games_file::{GamesHeader, games_text, parse_games};

/// A folder of stored pairings.
pub struct Store {
    dir: PathBuf,
}

/// One pairing's place in the store.
pub struct Slot {
    /// The file.
    pub path: PathBuf,
    /// What its header must say.
    pub header: GamesHeader,
}

impl Store {
    /// The store in `dir` (created when missing).
    pub fn open(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating the rating store {}", dir.display()))?;
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
    /// The stored games (none when there is no file). A file that cannot be read, is damaged
    /// or describes another match is set aside as `<name>.damaged` with a warning (never
    /// deleted), and the pairing starts again.
    pub fn load(&self, config: &MatchConfig) -> Result<Vec<MatchGame>> {
        let text = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e).with_context(|| format!("reading {}", self.path.display())),
        };
        let parsed = std::str::from_utf8(&text)
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
                let aside = self.path.with_extension("games.damaged");
                eprintln!(
                    "warning: {}: {problem}; moved to {} and playing the pairing again",
                    self.path.display(),
                    aside.display()
                );
                std::fs::rename(&self.path, &aside)
                    .with_context(|| format!("moving {} aside", self.path.display()))?;
                Ok(Vec::new())
            }
        }
    }

    /// Writes `games` (numbered 0.. in order) atomically.
    pub fn save(&self, games: &[MatchGame]) -> Result<()> {
        fanorona_data::write_atomic(&self.path, games_text(&self.header, games).as_bytes())
            .with_context(|| format!("writing {}", self.path.display()))
    }
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
