//! The games file (`fanorona_arena::games_file`): what a match writes reads back as the same
//! games, a longer match extends a shorter one game for game, and every kind of damage is
//! refused with the line and the reason.

use fanorona_arena::arena::{FactoryError, MatchConfig, MatchGame, play_match};
use fanorona_arena::games_file::{GamesFileError, GamesHeader, games_text, parse_games};
use fanorona_engine::Rules;
use fanorona_players::Player;
use fanorona_specs::Registry;

fn factory(text: &str) -> impl Fn(u64) -> Result<Box<dyn Player>, FactoryError> + Sync {
    let settings = Registry::classical().parse(text).unwrap();
    move |stream| Ok(Registry::classical().build(&settings, stream)?)
}

fn config(games: u32) -> MatchConfig {
    MatchConfig {
        games,
        threads: 2,
        seed: 99,
        opening_plies: 3,
        ..MatchConfig::default()
    }
}

fn header() -> GamesHeader {
    GamesHeader {
        a: "alphabeta:depth=1".into(),
        b: "greedy".into(),
        seed: 99,
        opening_plies: 3,
        rules: Rules::default(),
    }
}

fn games(config: &MatchConfig) -> Vec<MatchGame> {
    let (a, b) = (factory("alphabeta:depth=1"), factory("greedy"));
    play_match(config, &a, &b, |_, _| {}).unwrap().games
}

/// Recomputes the CRC line after an edit, so that only the edit is wrong.
fn resealed(text: &str) -> String {
    let body_end = text.trim_end().rfind('\n').unwrap() + 1;
    let body = &text[..body_end];
    format!("{body}# crc32 {:08x}\n", crc32fast::hash(body.as_bytes()))
}

#[test]
fn a_match_reads_back_as_the_same_games_with_their_think_times() {
    let played = games(&config(4));
    let text = games_text(&header(), &played);
    let file = parse_games(&text, MatchConfig::DEFAULT_MAX_TURNS).unwrap();
    assert_eq!(file.header, header());
    assert_eq!(file.games, played);
    for g in &played {
        assert_eq!(g.think_ms.len(), g.turns().len() - g.opening_turns as usize);
        let (a, b) = (
            g.think_ms_of(fanorona_arena::arena::Side::A).count(),
            g.think_ms_of(fanorona_arena::arena::Side::B).count(),
        );
        assert_eq!(a + b, g.think_ms.len());
        assert!(a.abs_diff(b) <= 1, "{a} {b}");
    }
}

#[test]
fn games_from_a_later_first_game_are_the_games_a_longer_match_has_there() {
    let long = games(&config(6));
    let tail = games(&MatchConfig {
        first_game: 4,
        ..config(6)
    });
    assert_eq!(tail.len(), 2);
    for (t, l) in tail.iter().zip(&long[4..]) {
        assert_eq!(t.index, l.index);
        assert_eq!(t.turns(), l.turns());
        assert_eq!(t.a_color, l.a_color);
    }
}

#[test]
fn damage_is_refused_with_the_line_and_the_reason() {
    let played = games(&config(2));
    let text = games_text(&header(), &played);
    let game_line = text.lines().position(|l| l.starts_with("2 ")).unwrap() + 1;
    let err = |t: &str| parse_games(t, MatchConfig::DEFAULT_MAX_TURNS).unwrap_err();

    assert_eq!(err("hello\n"), GamesFileError::NotAGamesFile);
    let cut = &text[..text.len() - 20];
    assert_eq!(err(cut), GamesFileError::NoChecksum);
    let flipped = text.replacen("white=A", "white=X", 1);
    assert!(matches!(err(&flipped), GamesFileError::Checksum { .. }));

    // A result the turns do not give.
    let lines: Vec<&str> = text.lines().collect();
    let second = lines[game_line - 1];
    let wrong = if second.contains("| 1-0 ") {
        second.replace("| 1-0 ", "| 0-1 ")
    } else {
        second
            .replace("| 0-1 ", "| 1-0 ")
            .replace("| 1/2-1/2 ", "| 1-0 ")
    };
    let edited = resealed(&text.replace(second, &wrong));
    match err(&edited) {
        GamesFileError::Game { line, problem } => {
            assert_eq!(line, game_line);
            assert!(problem.contains("the turns give"), "{problem}");
        }
        other => panic!("{other:?}"),
    }

    // An illegal turn: the first turn of the game replaced by a step nobody can make.
    let fields: Vec<&str> = second.split(" | ").collect();
    let first_turn = fields[2].split(' ').next().unwrap();
    let illegal = second.replacen(&format!("| {first_turn} "), "| a1a2 ", 1);
    match err(&resealed(&text.replace(second, &illegal))) {
        GamesFileError::Game { line, problem } => {
            assert_eq!(line, game_line);
            assert!(problem.contains("game 2"), "{problem}");
        }
        other => panic!("{other:?}"),
    }

    // Think times that do not fit the turns, and games out of order.
    let short = resealed(&text.replace(second, second.rsplit_once(' ').unwrap().0));
    assert!(matches!(err(&short), GamesFileError::Game { line, .. } if line == game_line));
    let renumbered = resealed(&text.replace(second, &second.replacen("2 white", "3 white", 1)));
    assert!(err(&renumbered).to_string().contains("game 2 was expected"));

    // A bad header.
    let no_b = resealed(&text.replacen("# B: greedy\n", "", 1));
    assert_eq!(err(&no_b), GamesFileError::Header("no `# B:` line".into()));
}

#[test]
fn version_1_files_without_think_times_are_read() {
    let played = games(&config(2));
    let v2 = games_text(&header(), &played);
    let v1: String = v2
        .lines()
        .take_while(|l| !l.starts_with("# crc32"))
        .map(|l| {
            let l = l.replace("# fanorona-pit-games v2", "# fanorona-pit-games v1");
            let l = if l.starts_with('#') {
                l
            } else {
                l.rsplit_once(" | ").unwrap().0.to_string()
            };
            l + "\n"
        })
        .collect();
    let v1 = format!("{v1}# crc32 {:08x}\n", crc32fast::hash(v1.as_bytes()));
    let file = parse_games(&v1, MatchConfig::DEFAULT_MAX_TURNS).unwrap();
    assert_eq!(file.games.len(), 2);
    assert!(file.games.iter().all(|g| g.think_ms.is_empty()));
    assert_eq!(file.games[1].turns(), played[1].turns());
}
