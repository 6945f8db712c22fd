//! The games file: the games of one match as text (`fanorona pit --out`, the rating store).
//!
//! ```text
//! # fanorona-pit-games v2
//! # A: alphabeta:depth=3
//! # B: greedy
//! # games 2 seed 7 opening-plies 4 no-progress-limit 50
//! # fields: ...
//! 1 white=A black=B opening=4 | <start position> | <turns, opening included> | 1-0 all-captured | ms 3 5 ...
//! 2 white=B black=A opening=4 | ...
//! # crc32 1a2b3c4d
//! ```
//!
//! Lines starting with `#` are comments; the first names the format, the `A:`, `B:` and
//! `games ...` lines describe the match, and the last is the CRC-32 of every byte before it.
//! Every other line is one game ([`MatchGame::to_line`]), numbered from 1 in order.
//!
//! Reading ([`parse_games`]) checks everything: the format line, the checksum, the header,
//! and every game, which is replayed with the engine (each turn must be legal) and whose
//! recorded result must be the one the replay reaches. Version 1 files (no think times) are
//! read too. Errors say which line is wrong and how.

use fanorona_engine::{Color, Rules};

use crate::arena::MatchGame;
use fanorona_session::GameSession;

/// How the first line of a games file of any version starts.
pub const FORMAT_PREFIX: &str = "# fanorona-pit-games v";
/// The first line of a games file.
pub const FORMAT_LINE: &str = "# fanorona-pit-games v2";
/// The first line of a version 1 games file (no think times), still read.
pub const FORMAT_LINE_V1: &str = "# fanorona-pit-games v1";

/// What a games file says about its match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GamesHeader {
    /// Player A's spec.
    pub a: String,
    /// Player B's spec.
    pub b: String,
    /// The match seed.
    pub seed: u64,
    /// Random opening turns.
    pub opening_plies: u32,
    /// The rules the games were played under.
    pub rules: Rules,
}

/// A games file read back.
#[derive(Clone, Debug, PartialEq)]
pub struct GamesFile {
    /// The match.
    pub header: GamesHeader,
    /// Its games, by game number.
    pub games: Vec<MatchGame>,
}

/// What is wrong with a games file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GamesFileError {
    /// The first line is not a known format line.
    #[error("not a games file (the first line should be `{FORMAT_LINE}`)")]
    NotAGamesFile,
    /// No `# crc32` line at the end.
    #[error("no `# crc32` line at the end: the file is incomplete")]
    NoChecksum,
    /// The checksum does not match.
    #[error("checksum mismatch (file says {stored}, contents give {actual}): the file is damaged")]
    Checksum {
        /// What the file says.
        stored: String,
        /// What the bytes give.
        actual: String,
    },
    /// A bad or missing header line.
    #[error("header: {0}")]
    Header(String),
    /// A bad game line.
    #[error("line {line}: {problem}")]
    Game {
        /// 1-based line number in the file.
        line: usize,
        /// What is wrong.
        problem: String,
    },
}

/// The text of a games file for `games` (the CRC line included).
pub fn games_text(header: &GamesHeader, games: &[MatchGame]) -> String {
    let mut text = format!(
        "{FORMAT_LINE}\n\
         # A: {}\n\
         # B: {}\n\
         # games {} seed {} opening-plies {} no-progress-limit {}\n\
         # fields: <game> white=<A|B> black=<A|B> opening=<K> | <start position> | <turns, opening included> | <result> <reason> | ms <think time of each turn after the opening>\n",
        header.a,
        header.b,
        games.len(),
        header.seed,
        header.opening_plies,
        header.rules.no_progress_limit
    );
    for g in games {
        text.push_str(&g.to_line());
        text.push('\n');
    }
    let crc = crc32fast::hash(text.as_bytes());
    text.push_str(&format!("# crc32 {crc:08x}\n"));
    text
}

/// Reads a games file (see the [module docs](self)); a game longer than `max_turns` turns is
/// refused.
pub fn parse_games(text: &str, max_turns: u32) -> Result<GamesFile, GamesFileError> {
    let first = text.lines().next().unwrap_or_default();
    let version = match first {
        FORMAT_LINE => 2,
        FORMAT_LINE_V1 => 1,
        _ => return Err(GamesFileError::NotAGamesFile),
    };
    let body_end = checksum(text)?;
    let body = &text[..body_end];
    let header = parse_header(body)?;
    let mut games = Vec::new();
    for (number, line) in body.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let game = parse_game(line, games.len() as u32, version, header.rules, max_turns).map_err(
            |problem| GamesFileError::Game {
                line: number + 1,
                problem,
            },
        )?;
        games.push(game);
    }
    Ok(GamesFile { header, games })
}

/// Checks the last line's CRC; returns where the body (everything before it) ends.
fn checksum(text: &str) -> Result<usize, GamesFileError> {
    let trimmed = text.strip_suffix('\n').ok_or(GamesFileError::NoChecksum)?;
    let start = trimmed.rfind('\n').map_or(0, |i| i + 1);
    let stored = trimmed[start..]
        .strip_prefix("# crc32 ")
        .ok_or(GamesFileError::NoChecksum)?;
    let actual = format!("{:08x}", crc32fast::hash(&text.as_bytes()[..start]));
    if stored != actual {
        return Err(GamesFileError::Checksum {
            stored: stored.chars().take(16).collect(),
            actual,
        });
    }
    Ok(start)
}

fn parse_header(body: &str) -> Result<GamesHeader, GamesFileError> {
    let find = |prefix: &str| {
        body.lines()
            .take_while(|l| l.starts_with('#'))
            .find_map(|l| l.strip_prefix(prefix))
            .map(str::trim)
            .ok_or_else(|| GamesFileError::Header(format!("no `{}` line", prefix.trim())))
    };
    let a = find("# A:")?.to_string();
    let b = find("# B:")?.to_string();
    let settings: Vec<&str> = find("# games ")?.split_whitespace().collect();
    let bad = || {
        GamesFileError::Header(
            "the `# games` line should read `# games <N> seed <S> opening-plies <K> no-progress-limit <L>`"
                .to_string(),
        )
    };
    let [
        _,
        "seed",
        seed,
        "opening-plies",
        plies,
        "no-progress-limit",
        limit,
    ] = settings[..]
    else {
        return Err(bad());
    };
    Ok(GamesHeader {
        a,
        b,
        seed: seed.parse().map_err(|_| bad())?,
        opening_plies: plies.parse().map_err(|_| bad())?,
        rules: Rules {
            no_progress_limit: limit.parse().map_err(|_| bad())?,
        },
    })
}

/// One game line; `index` is the 0-based number it must have.
fn parse_game(
    line: &str,
    index: u32,
    version: u32,
    rules: Rules,
    max_turns: u32,
) -> Result<MatchGame, String> {
    let fields: Vec<&str> = line.split(" | ").collect();
    let expected = if version == 1 { 4 } else { 5 };
    if fields.len() != expected {
        return Err(format!(
            "expected {expected} fields separated by ` | `, found {}",
            fields.len()
        ));
    }
    let (a_color, opening_turns) = parse_game_head(fields[0], index)?;
    let turns: Vec<&str> = fields[2].split_whitespace().collect();
    let session = GameSession::replay(Some(fields[1]), &turns, rules, max_turns as usize)
        .map_err(|e| format!("game {}: {e}", index + 1))?;
    if (opening_turns as usize) > turns.len() {
        return Err(format!(
            "opening={opening_turns} but the game has only {} turns",
            turns.len()
        ));
    }
    let think_ms = if version == 1 {
        Vec::new()
    } else {
        parse_times(fields[4], turns.len() - opening_turns as usize)?
    };
    let game = MatchGame {
        index,
        a_color,
        opening_turns,
        session,
        think_ms,
    };
    let recorded = fields[3].trim();
    let replayed = format!("{} {}", game.score(), game.reason());
    if recorded != replayed {
        return Err(format!(
            "the result says `{recorded}` but the turns give `{replayed}`"
        ));
    }
    Ok(game)
}

/// `<n> white=<A|B> black=<A|B> opening=<K>`: A's colour and K.
fn parse_game_head(head: &str, index: u32) -> Result<(Color, u32), String> {
    let parts: Vec<&str> = head.split_whitespace().collect();
    let [number, white, black, opening] = parts[..] else {
        return Err("the first field should read `<n> white=<A|B> black=<A|B> opening=<K>`".into());
    };
    if number != (index + 1).to_string() {
        return Err(format!(
            "game number {number:?} where game {} was expected (games are numbered from 1 in order)",
            index + 1
        ));
    }
    let a_color = match (white, black) {
        ("white=A", "black=B") => Color::White,
        ("white=B", "black=A") => Color::Black,
        _ => {
            return Err(format!(
                "`{white} {black}`: expected `white=A black=B` or `white=B black=A`"
            ));
        }
    };
    let opening = opening
        .strip_prefix("opening=")
        .and_then(|k| k.parse::<u32>().ok())
        .ok_or_else(|| format!("{opening:?}: expected opening=<number of turns>"))?;
    Ok((a_color, opening))
}

/// `ms <t> <t> ...` with exactly `count` times.
fn parse_times(field: &str, count: usize) -> Result<Vec<u32>, String> {
    let mut words = field.split_whitespace();
    if words.next() != Some("ms") {
        return Err("the last field should start with `ms`".into());
    }
    let times: Vec<u32> = words
        .map(|w| {
            w.parse::<u32>()
                .map_err(|_| format!("think time {w:?} is not a whole number of milliseconds"))
        })
        .collect::<Result<_, _>>()?;
    if times.len() != count {
        return Err(format!(
            "{} think times for {count} turns after the opening",
            times.len()
        ));
    }
    Ok(times)
}
