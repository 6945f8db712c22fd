//! Fuzz targets for everything the engine reads from text: positions, steps and turns, and
//! turns played on the positions they name (see `fanorona_testkit::fuzz`; `scripts/fuzz.sh`
//! runs them longer).

use fanorona_engine::{Action, Game, Position, Rules, Turn, parse_position};
use fanorona_testkit::fuzz;

const POSITIONS: [&str; 4] = [
    "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1",
    "9/3B5/3W2B2/2B2B1W1/1BBW5 w",
    "9/9/9/9/W1B6 b 12 40",
    "4B4/9/2W3W2/9/B7W w 3 9",
];

const TOKENS: [&[u8]; 12] = [
    b"/",
    b" w",
    b" b",
    b"9",
    b"B",
    b"W",
    b"1",
    b" 4294967295",
    b" 0",
    b",",
    b"a",
    b"w",
];

#[test]
fn fuzz_position_text_never_panics_and_what_parses_round_trips() {
    let seeds: Vec<Vec<u8>> = POSITIONS.iter().map(|p| p.as_bytes().to_vec()).collect();
    fuzz::run("position", &seeds, &TOKENS, 20_000, |bytes| {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return;
        };
        if let Ok(pos) = parse_position(text) {
            let again = parse_position(&pos.to_string()).expect("a printed position parses");
            assert_eq!(again, pos, "{text}");
            // Whatever parses can be played on.
            let _ = pos.legal_turns();
        }
    });
}

#[test]
fn fuzz_turn_text_never_panics_and_is_checked_against_the_position() {
    let start = Position::start();
    let seeds: Vec<Vec<u8>> = ["d2e3a", "d2e3a,e3d4w", "e2e3a", "c3d2a,d2d3w,d3e4a", "f2e2"]
        .iter()
        .map(|t| t.as_bytes().to_vec())
        .collect();
    let positions: Vec<Position> = POSITIONS.iter().map(|p| p.parse().unwrap()).collect();
    fuzz::run("turn", &seeds, &TOKENS, 20_000, |bytes| {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return;
        };
        let _ = text.parse::<Action>();
        if let Ok(turn) = text.parse::<Turn>() {
            assert_eq!(turn.to_string().parse::<Turn>().ok(), Some(turn), "{text}");
            for pos in positions.iter().chain([&start]) {
                if let Ok(next) = pos.try_play_turn(&turn) {
                    assert!(pos.legal_turns().contains(&turn), "{text} on {pos}");
                    let mut game = Game::from_position(*pos, Rules::default());
                    assert!(game.play_turn(&turn).is_ok());
                    assert_eq!(*game.position(), next);
                }
            }
        }
    });
}
