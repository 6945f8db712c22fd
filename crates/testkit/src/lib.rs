//! Helpers shared by the project's tests, so no crate keeps its own copy: [`TempDir`], a
//! seeded generator ([`Rng`]), positions drawn as pictures ([`board`]) and random positions
//! ([`random_position`], [`random_walk`]), and mutation fuzzing on stable Rust ([`fuzz`]).
//!
//! ```
//! use fanorona_engine::Color;
//! use fanorona_testkit::{Rng, TempDir, board, random_position};
//!
//! let dir = TempDir::new("doc");
//! std::fs::write(dir.path().join("a.txt"), "x").unwrap();
//! let pos = board(
//!     ". . . . . . . . .
//!      . . . . B . . . .
//!      . . . . . . . . .
//!      . . . . W . . . .
//!      . . . . . . . . .",
//!     Color::White,
//! );
//! assert_eq!(pos.stones(Color::White).count(), 1);
//! let random = random_position(&mut Rng::new(7), 3, 2, Color::Black);
//! assert_eq!(random.stones(Color::Black).count(), 2);
//! ```

pub mod fuzz;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use fanorona_engine::{Action, Bitboard, ByColor, Color, Point, Position, Setup};

/// The names of the files in `dir` ending in `suffix`, temporary files (`.name`) left out;
/// empty when the folder does not exist.
pub fn file_names(dir: &Path, suffix: &str) -> std::collections::BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(suffix) && !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default()
}

/// A fresh directory under the system temp dir, named after the test, removed on drop.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new empty directory whose name contains `name`, the process id and a counter.
    ///
    /// # Panics
    /// If the directory cannot be created (a test cannot go on without it).
    pub fn new(name: &str) -> Self {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "fanorona-test-{name}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
        Self(path)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A path inside the directory.
    pub fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.0.join(name)
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for TempDir {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Makes a FIFO (named pipe) at `path`, for tests of readers that must not block on one.
///
/// # Panics
/// If `mkfifo` fails.
pub fn make_fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(made, "mkfifo {}", path.display());
}

/// A small deterministic generator (xorshift64*), so tests need no extra dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value, zero included).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n` at least 1).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// A position drawn as a picture: five rows, row 5 first, of `W`, `B` or `.` separated by
/// spaces, e.g.
/// ```text
/// . . . . . . . . .
/// . . . . B . . . .
/// . . . . . . . . .
/// . . . . W . . . .
/// . . . . . . . . .
/// ```
///
/// # Panics
/// If the picture is not five rows of nine points.
pub fn board(picture: &str, side: Color) -> Position {
    let rows: Vec<Vec<char>> = picture
        .lines()
        .map(|l| {
            l.split_whitespace()
                .flat_map(|t| t.chars())
                .collect::<Vec<char>>()
        })
        .filter(|r| !r.is_empty())
        .collect();
    assert_eq!(rows.len(), 5, "a board picture has 5 rows");
    let mut stones = ByColor([Bitboard::EMPTY; 2]);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), 9, "row {} has 9 points", 5 - i);
        for (x, &ch) in row.iter().enumerate() {
            let p = Point::new(x, 4 - i).unwrap();
            match ch {
                'W' => stones[Color::White] = stones[Color::White].with(p),
                'B' => stones[Color::Black] = stones[Color::Black].with(p),
                '.' => {}
                other => panic!("unexpected {other:?} in board picture"),
            }
        }
    }
    Position::from_setup(&Setup {
        stones,
        side_to_move: side,
        no_capture_turns: 0,
        turn_number: 1,
    })
    .unwrap()
}

/// A random legal placement: `white` and `black` stones on distinct random points.
pub fn random_position(rng: &mut Rng, white: usize, black: usize, side: Color) -> Position {
    let mut points: Vec<Point> = Point::all().collect();
    for i in (1..points.len()).rev() {
        let j = rng.below(i + 1);
        points.swap(i, j);
    }
    let w: Bitboard = points[..white].iter().copied().collect();
    let b: Bitboard = points[white..white + black].iter().copied().collect();
    Position::from_setup(&Setup {
        stones: ByColor([w, b]),
        side_to_move: side,
        no_capture_turns: 0,
        turn_number: 1,
    })
    .unwrap()
}

/// Positions reached by seeded random step-level play from `start`, mid-chain ones included.
pub fn random_walk(rng: &mut Rng, start: Position, max_actions: usize) -> Vec<Position> {
    let mut out = vec![start];
    let mut pos = start;
    for _ in 0..max_actions {
        let actions = pos.legal_actions();
        if actions.is_empty()
            || pos.stones(Color::White).is_empty()
            || pos.stones(Color::Black).is_empty()
        {
            break;
        }
        let a: Action = actions[rng.below(actions.len())];
        pos = pos.apply(a);
        out.push(pos);
    }
    out
}
