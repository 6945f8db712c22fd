//! The JSON shapes of the API: what clients send and what the server answers.
//!
//! See the crate documentation for the routes and an example.

use std::collections::BTreeMap;

use fanorona_engine::{Bitboard, Color, EndReason, HEIGHT, Outcome, Point, StepKind, WIDTH};
use serde::{Deserialize, Serialize};

use fanorona_session::levels::{Level, TurnChooser};
use fanorona_session::session::ReplayError;
use fanorona_session::session::{GameSession, StepDetail, list_turns};

/// A game as the client sends it, to `POST /api/state` and `POST /api/move`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GameRequest {
    /// The start position in notation; the standard start when absent.
    #[serde(default)]
    pub start: Option<String>,
    /// The turns played from it, in notation (`"d2e3a"`, `"e2e3a,e3d4w"`).
    #[serde(default)]
    pub turns: Vec<String>,
    /// The engine's strength for `/api/move` (`beginner`, `easy`, `medium`, `hard`);
    /// `medium` when absent. Ignored by `/api/state`.
    #[serde(default)]
    pub level: Option<String>,
    /// For `/api/move` in a game on a clock: the engine's time left, in milliseconds. The
    /// engine then thinks at most a twentieth of it (at least 50 ms), and never longer than
    /// its level says. Ignored elsewhere.
    #[serde(default)]
    pub engine_ms: Option<u64>,
}

/// A finished game's score: `1-0`, `0-1` or `1/2-1/2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Score {
    /// White won.
    #[serde(rename = "1-0")]
    WhiteWins,
    /// Black won.
    #[serde(rename = "0-1")]
    BlackWins,
    /// A draw.
    #[serde(rename = "1/2-1/2")]
    Draw,
}

/// The state of a game after the turns sent (and, for `/api/move`, the engine's turn).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StateView {
    /// The start position in notation.
    pub start: String,
    /// Every turn played from the start, in notation.
    pub turns: Vec<String>,
    /// The current position in notation.
    pub position: String,
    /// The board, rows 5 down to 1, each nine characters `a`..`i`: `W`, `B` or `.`.
    pub board: Vec<String>,
    /// `white` or `black`.
    pub side_to_move: Color,
    /// Turn number (increases after Black's turn).
    pub turn_number: u32,
    /// Consecutive turns without a capture.
    pub no_capture_turns: u32,
    /// The no-progress draw limit in force.
    pub no_progress_limit: u32,
    /// Stones left on each side.
    pub stones: StoneCounts,
    /// The result when the game is over, otherwise `null`.
    pub outcome: Option<OutcomeView>,
    /// Every legal turn for the side to move, each as its list of steps in notation. Every
    /// prefix of a chain is a turn of its own (a chain may stop after any capture). Empty
    /// when the game is over.
    pub legal_turns: Vec<Vec<String>>,
    /// For each legal turn (written as its steps joined by commas), its last step in detail.
    /// So `steps["e2e3a,e3d4w"]` says what `e3d4w` captures after `e2e3a`.
    pub steps: BTreeMap<String, StepView>,
    /// The last turn played, when there is one.
    pub last_turn: Option<TurnView>,
    /// The exact result from the endgame tables, when the server has tables covering the
    /// position (and the game is not over).
    pub tablebase: Option<TablebaseView>,
}

/// What the endgame tables say about the current position.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TablebaseView {
    /// The side that wins with best play, `null` for a draw.
    pub winner: Option<Color>,
    /// Turns (both sides) until the next capture along best play; `null` for a draw.
    pub next_capture_in: Option<u32>,
    /// One line for people, e.g. `tablebase: White wins; next capture in 7 turns`.
    pub message: String,
}

impl TablebaseView {
    /// The view of a probe of `pos` (the result is for its side to move).
    pub fn new(pos: &fanorona_engine::Position, probe: fanorona_tablebase::Probe) -> Self {
        use fanorona_tablebase::Wdl;
        let us = pos.side_to_move();
        let winner = match probe.wdl {
            Wdl::Win => Some(us),
            Wdl::Loss => Some(!us),
            Wdl::Draw => None,
        };
        let message = match winner {
            None => "tablebase: a draw with best play".to_string(),
            Some(w) => format!(
                "tablebase: {} wins; next capture in {} turn{}",
                color_name(w),
                probe.dtz,
                if probe.dtz == 1 { "" } else { "s" }
            ),
        };
        TablebaseView {
            winner,
            next_capture_in: winner.map(|_| probe.dtz),
            message,
        }
    }
}

/// Stones left on each side.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StoneCounts {
    /// White stones.
    pub white: u32,
    /// Black stones.
    pub black: u32,
}

/// One step and what it captures.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StepView {
    /// The step in notation, e.g. `d3e3a`.
    pub step: String,
    /// Origin point, e.g. `d3`.
    pub from: String,
    /// Destination point, e.g. `e3`.
    pub to: String,
    /// `approach`, `withdrawal` or `paika`.
    pub kind: StepKind,
    /// The enemy stones it captures, nearest first.
    pub captured: Vec<String>,
}

/// A whole turn with each step's captures.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TurnView {
    /// The turn in notation.
    pub turn: String,
    /// Who played it: `white` or `black`.
    pub color: Color,
    /// Its steps.
    pub steps: Vec<StepView>,
}

/// A finished game's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OutcomeView {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: Score,
    /// `white`, `black`, or `null` for a draw.
    pub winner: Option<Color>,
    /// `all-captured`, `no-legal-move`, `repetition` or `no-progress`.
    pub reason: EndReason,
    /// The result in words, e.g. `white wins: black has no stones left`.
    pub message: String,
}

/// The answer of `POST /api/move`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MoveResponse {
    /// The engine's turn, or `null` when the game was already over.
    pub engine_turn: Option<TurnView>,
    /// The level the engine played at.
    pub level: Level,
    /// How long the engine thought, in milliseconds.
    pub think_ms: u64,
    /// The game after the engine's turn.
    pub state: StateView,
}

/// The body of every error answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ErrorBody {
    /// What is wrong, in words.
    pub error: String,
    /// The 1-based number of the offending turn, when one turn is to blame.
    pub turn: Option<usize>,
}

/// The answer of `GET /api/info`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InfoView {
    /// The engine's name.
    pub engine: String,
    /// The strength levels, weakest first.
    pub levels: Vec<LevelView>,
    /// The level used when a request names none.
    pub default_level: Level,
    /// The standard start position.
    pub start: String,
    /// The no-progress draw limit.
    pub no_progress_limit: u32,
    /// Largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Most turns a game may have.
    pub max_turns: usize,
    /// Longest the engine thinks, in milliseconds, whatever the level.
    pub max_think_ms: u64,
}

/// One strength level.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LevelView {
    /// Its name.
    pub name: Level,
    /// What it is like to play.
    pub description: String,
    /// Think time per turn in milliseconds.
    pub think_ms: u64,
    /// Alpha-beta depth in turns (`null`: the network, or as deep as the think time allows).
    pub depth: Option<u32>,
    /// Network simulations per step (`null`: the classical engine, or as many as the think
    /// time allows).
    pub simulations: Option<u32>,
}

impl LevelView {
    /// `level` as `chooser` plays it.
    pub fn new(level: Level, chooser: &dyn TurnChooser) -> LevelView {
        let strength = chooser.level_strength(level);
        LevelView {
            name: level,
            description: strength.description,
            think_ms: level.think_time().as_millis() as u64,
            depth: strength.depth,
            simulations: strength.simulations,
        }
    }
}

fn points(b: Bitboard) -> Vec<String> {
    b.iter().map(|p| p.to_string()).collect()
}

/// Captured points ordered from the capturing stone outwards, as they are taken.
fn captured_in_order(detail: &StepDetail) -> Vec<String> {
    let step = detail.step;
    let (start, dir) = match step.kind() {
        StepKind::Paika => return Vec::new(),
        StepKind::Approach => (step.to(), step.dir()),
        StepKind::Withdrawal => (step.from(), step.dir().opposite()),
    };
    let mut out = Vec::new();
    let mut p = start;
    while let Some(next) = p.neighbour(dir) {
        if !detail.captured.contains(next) {
            break;
        }
        out.push(next.to_string());
        p = next;
    }
    // Fall back to board order if the line walk missed any (it cannot by the rules).
    if out.len() as u32 != detail.captured.count() {
        return points(detail.captured);
    }
    out
}

impl From<&StepDetail> for StepView {
    fn from(d: &StepDetail) -> StepView {
        StepView {
            step: d.step.to_string(),
            from: d.step.from().to_string(),
            to: d.step.to().to_string(),
            kind: d.step.kind(),
            captured: captured_in_order(d),
        }
    }
}

impl From<Outcome> for OutcomeView {
    fn from(o: Outcome) -> OutcomeView {
        OutcomeView {
            result: match o.winner() {
                Some(Color::White) => Score::WhiteWins,
                Some(Color::Black) => Score::BlackWins,
                None => Score::Draw,
            },
            winner: o.winner(),
            reason: o.reason(),
            message: o.to_string(),
        }
    }
}

/// Describe a turn given as its detailed steps.
pub fn turn_view(color: Color, steps: &[StepDetail]) -> TurnView {
    let steps: Vec<StepView> = steps.iter().map(StepView::from).collect();
    TurnView {
        turn: steps
            .iter()
            .map(|s| s.step.as_str())
            .collect::<Vec<_>>()
            .join(","),
        color,
        steps,
    }
}

impl StateView {
    /// The state of `record`, listing at most `max_listed_turns` legal turns, with the verdict
    /// of `tables` where they cover the position.
    pub fn build(
        record: &GameSession,
        max_listed_turns: u64,
        tables: Option<&fanorona_tablebase::Tablebase>,
    ) -> Result<StateView, ReplayError> {
        let game = record.game();
        let pos = game.position();
        let outcome = game.outcome();
        let mut legal_turns = Vec::new();
        let mut steps = BTreeMap::new();
        if outcome.is_none() {
            for turn in list_turns(pos, max_listed_turns)? {
                let names: Vec<String> = turn.iter().map(|d| d.step.to_string()).collect();
                if let Some(last) = turn.last() {
                    steps.insert(names.join(","), StepView::from(last));
                }
                legal_turns.push(names);
            }
        }
        let board = (0..HEIGHT)
            .rev()
            .map(|y| {
                (0..WIDTH)
                    .map(|x| match Point::new(x, y).and_then(|p| pos.color_at(p)) {
                        Some(Color::White) => 'W',
                        Some(Color::Black) => 'B',
                        None => '.',
                    })
                    .collect()
            })
            .collect();
        Ok(StateView {
            start: record.start().to_string(),
            turns: record.turns().iter().map(|t| t.to_string()).collect(),
            position: pos.to_string(),
            board,
            side_to_move: pos.side_to_move(),
            turn_number: pos.turn_number(),
            no_capture_turns: pos.no_capture_turns(),
            no_progress_limit: game.rules().no_progress_limit,
            stones: StoneCounts {
                white: pos.stones(Color::White).count(),
                black: pos.stones(Color::Black).count(),
            },
            outcome: outcome.map(OutcomeView::from),
            legal_turns,
            steps,
            last_turn: record
                .last_turn()
                .map(|(color, details)| turn_view(color, &details)),
            tablebase: tables
                .filter(|tb| outcome.is_none() && tb.fits(game.rules()) && tb.covers(pos))
                .and_then(|tb| tb.probe(pos).ok())
                .map(|probe| TablebaseView::new(pos, probe)),
        })
    }
}

/// The answer of `POST /api/analysis`: the engine's view of a position, from White's side.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AnalysisView {
    /// Who is to move in the position analysed.
    pub side_to_move: Color,
    /// The engine that analysed it (`alphabeta`, `network`).
    pub engine: String,
    /// The evaluation in words, from White's side, e.g. `White is ahead by about 1.5 stones`.
    pub summary: String,
    /// The evaluation as a number from -1 (Black wins) to 1 (White wins), for a bar.
    pub bar: f32,
    /// Whether the evaluation is exact: a finished game, the endgame tables, or a win or loss
    /// the search proved.
    pub exact: bool,
    /// The engine's own figure for the side to move (`cs 120`, `win 3`, `value 0.250`,
    /// `tb win 7`), when it gave one.
    pub score: Option<String>,
    /// The line the engine expects, its best turn for the side to move first.
    pub line: Vec<TurnView>,
    /// How long the analysis took, in milliseconds.
    pub think_ms: u64,
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// An engine's score for `side` (the side to move) from White's side: words, a bar from -1
/// (Black wins) to 1 (White wins), and whether it is exact.
pub fn judge(side: Color, score: fanorona_players::Score) -> (String, f32, bool) {
    use fanorona_players::Score as S;
    use fanorona_tablebase::Wdl;
    // +1 when the side to move is White: scores are the mover's, the view is White's.
    let sign = if side == Color::White { 1.0f32 } else { -1.0 };
    let turns = |n: u32| format!("{n} turn{}", if n == 1 { "" } else { "s" });
    let wins = |winner: Color, how: String| {
        let bar = if winner == Color::White { 1.0 } else { -1.0 };
        (format!("{} wins {how}", color_name(winner)), bar, true)
    };
    match score {
        S::Centistones(cs) => {
            let white = sign * cs as f32;
            let stones = (white.abs() / 100.0 * 10.0).round() / 10.0;
            let summary = if white.abs() < 25.0 {
                "about level".to_string()
            } else {
                let leader = if white > 0.0 { "White" } else { "Black" };
                format!("{leader} is ahead by about {stones:.1} stones")
            };
            (summary, (white / 400.0).tanh(), false)
        }
        S::WinIn(n) => wins(side, format!("in at most {} with best play", turns(n))),
        S::LossIn(n) => wins(!side, format!("in at most {} with best play", turns(n))),
        S::Value(v) => {
            let white = (sign * v).clamp(-1.0, 1.0);
            let summary = format!("White's expected score {:.0}%", (white + 1.0) * 50.0);
            (summary, white, false)
        }
        S::Tablebase(probe) => {
            let how = format!(
                "with best play (endgame tables; next capture in {})",
                turns(probe.dtz)
            );
            match probe.wdl {
                Wdl::Draw => (
                    "a draw with best play (endgame tables)".to_string(),
                    0.0,
                    true,
                ),
                Wdl::Win => wins(side, how),
                Wdl::Loss => wins(!side, how),
            }
        }
        S::Proven(wdl) => {
            let how = "with best play (proven by the solver)".to_string();
            match wdl {
                Wdl::Draw => (
                    "a draw with best play (proven by the solver)".to_string(),
                    0.0,
                    true,
                ),
                Wdl::Win => wins(side, how),
                Wdl::Loss => wins(!side, how),
            }
        }
    }
}

/// Stones a forced result counts as in a review: more than any evaluation of a game that is
/// still open says, so that walking into a forced loss is the largest mistake.
pub const FORCED_STONES: f32 = 30.0;

/// The engine's `score` for the side to move `side` as stones of advantage for White (one
/// stone is 1.0; a forced or table result is [`FORCED_STONES`]; a network's value `v` counts
/// as `5 v` stones), for measuring what a turn cost in the words a player uses.
pub fn white_stones(side: Color, score: fanorona_players::Score) -> f32 {
    use fanorona_players::Score as S;
    use fanorona_tablebase::Wdl;
    let sign = if side == Color::White { 1.0f32 } else { -1.0 };
    let mover = match score {
        S::Centistones(cs) => (cs as f32 / 100.0).clamp(-FORCED_STONES, FORCED_STONES),
        S::WinIn(_) => FORCED_STONES,
        S::LossIn(_) => -FORCED_STONES,
        S::Value(v) => 5.0 * v.clamp(-1.0, 1.0),
        S::Tablebase(fanorona_tablebase::Probe { wdl, .. }) | S::Proven(wdl) => match wdl {
            Wdl::Win => FORCED_STONES,
            Wdl::Draw => 0.0,
            Wdl::Loss => -FORCED_STONES,
        },
    };
    sign * mover
}

/// A finished game's result in stones for White ([`white_stones`]): a win is
/// [`FORCED_STONES`].
pub fn outcome_stones(outcome: Outcome) -> f32 {
    outcome_bar(outcome) * FORCED_STONES
}

/// A finished game's result as a bar from White's side: 1, 0 or -1.
pub fn outcome_bar(outcome: Outcome) -> f32 {
    match outcome.winner() {
        Some(Color::White) => 1.0,
        Some(Color::Black) => -1.0,
        None => 0.0,
    }
}

impl AnalysisView {
    /// The view of `score` (for `side`, the side to move), with the expected `line`.
    pub fn new(
        side: Color,
        score: Option<fanorona_players::Score>,
        engine: &str,
        line: Vec<TurnView>,
        think_ms: u64,
    ) -> AnalysisView {
        let (summary, bar, exact) = score.map_or_else(
            || ("no evaluation".to_string(), 0.0, false),
            |score| judge(side, score),
        );
        AnalysisView {
            side_to_move: side,
            engine: engine.to_string(),
            summary,
            bar,
            exact,
            score: score.map(|s| s.to_string()),
            line,
            think_ms,
        }
    }

    /// The view of a finished game: its result, no line.
    pub fn finished(side: Color, outcome: Outcome, engine: &str) -> AnalysisView {
        AnalysisView {
            side_to_move: side,
            engine: engine.to_string(),
            summary: format!("game over: {outcome}"),
            bar: outcome_bar(outcome),
            exact: true,
            score: None,
            line: Vec::new(),
            think_ms: 0,
        }
    }
}

/// The answer of `POST /api/review`: every position of a game evaluated quickly, and the
/// turns after which the mover's evaluation fell most.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReviewView {
    /// The evaluation before each turn and after the last (one more than the turns), from
    /// White's side in [-1, 1] as [`AnalysisView::bar`]; `null` where time ran out.
    pub bars: Vec<Option<f32>>,
    /// The turns that cost their mover most, largest loss first (at most
    /// [`ReviewView::MAX_MISTAKES`] per side, each losing at least
    /// [`ReviewView::MIN_STONES`] stones of evaluation).
    pub mistakes: Vec<MistakeView>,
    /// Whether every position was evaluated in the time allowed.
    pub complete: bool,
    /// The engine that evaluated (`alphabeta`, `network`).
    pub engine: String,
    /// How long the review took, in milliseconds.
    pub think_ms: u64,
}

/// One turn that lost its mover much of the evaluation.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MistakeView {
    /// Which turn, counted from 0 (`turns[index]` of the request).
    pub index: usize,
    /// Who played it.
    pub color: Color,
    /// The turn played.
    pub played: String,
    /// The turn the engine preferred there.
    pub best: String,
    /// The evaluation before and after it, from White's side.
    pub before: f32,
    /// See `before`.
    pub after: f32,
    /// How much the mover lost, in bar units (0 to 2).
    pub loss: f32,
    /// How much the mover lost in stones of evaluation (a forced loss walked into counts as
    /// [`FORCED_STONES`] or more): the measure mistakes are found and ordered by, since the
    /// bar flattens out once a side is far ahead.
    pub stones: f32,
    /// What the turn did, in words a page can use: `lost-the-win` (a forced win before, none
    /// after), `into-a-loss` (a forced loss after, none before), or `stones` (it cost
    /// [`MistakeView::stones`] of the evaluation).
    pub what: String,
}

impl ReviewView {
    /// Most mistakes listed per side.
    pub const MAX_MISTAKES: usize = 3;
    /// Smallest loss listed: a stone's worth of evaluation.
    pub const MIN_STONES: f32 = 1.0;

    /// The mistakes of a game whose positions were evaluated as `bars` and `stones` (White's
    /// side, before each turn and after the last) with the engine's preferred turn `best` at
    /// each, `movers[i]` having played `played[i]`.
    pub fn mistakes(
        bars: &[Option<f32>],
        stones: &[Option<f32>],
        movers: &[Color],
        played: &[String],
        best: &[Option<String>],
    ) -> Vec<MistakeView> {
        let mut found: Vec<MistakeView> = Vec::new();
        for (i, (&color, turn)) in movers.iter().zip(played).enumerate() {
            let (Some(before), Some(after)) = (bars[i], bars.get(i + 1).copied().flatten()) else {
                continue;
            };
            let (Some(stones_before), Some(stones_after)) =
                (stones[i], stones.get(i + 1).copied().flatten())
            else {
                continue;
            };
            let Some(Some(preferred)) = best.get(i) else {
                continue;
            };
            if preferred == turn {
                continue;
            }
            let sign = if color == Color::White { 1.0 } else { -1.0 };
            let lost_stones = sign * (stones_before - stones_after);
            // From the mover's side, what the turn did: a forced result given up or walked
            // into is said as such, not as a count of stones.
            let (mine_before, mine_after) = (sign * stones_before, sign * stones_after);
            let forced = FORCED_STONES - 0.5;
            let what = if mine_before >= forced {
                "lost-the-win"
            } else if mine_after <= -forced {
                "into-a-loss"
            } else {
                "stones"
            };
            if lost_stones >= Self::MIN_STONES {
                found.push(MistakeView {
                    index: i,
                    color,
                    played: turn.clone(),
                    best: preferred.clone(),
                    before,
                    after,
                    loss: sign * (before - after),
                    stones: lost_stones,
                    what: what.to_string(),
                });
            }
        }
        found.sort_by(|a, b| b.stones.total_cmp(&a.stones));
        let mut per_side = [0usize; 2];
        found.retain(|m| {
            let n = &mut per_side[usize::from(m.color == Color::Black)];
            *n += 1;
            *n <= Self::MAX_MISTAKES
        });
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mistakes_are_the_movers_largest_losses_in_stones_largest_first() {
        // White moves on even turns, Black on odd; values are White's view, in stones.
        let stones = vec![
            Some(0.0),   // turn 0, White: 0 -> -2, loses 2
            Some(-2.0),  // turn 1, Black: -2 -> -1.5, loses 0.5 (below the floor)
            Some(-1.5),  // turn 2, White: -1.5 -> 3, gains
            Some(3.0),   // turn 3, Black: 3 -> 4.5, loses 1.5
            Some(4.5),   // turn 4, White: 4.5 -> -30 (walks into a forced loss), loses 34.5
            Some(-30.0), // turn 5, Black: unchanged
            Some(-30.0), // turn 6, White: still lost, loses nothing
            Some(-30.0), // turn 7, Black: a forced win let go to -6: loses 24
            Some(-6.0),  // turn 8, White: the next position was not reached in time
            None,
        ];
        let bars: Vec<Option<f32>> = stones
            .iter()
            .map(|s| s.map(|s: f32| (s * 100.0 / 400.0).tanh()))
            .collect();
        let movers: Vec<Color> = (0..9)
            .map(|i| {
                if i % 2 == 0 {
                    Color::White
                } else {
                    Color::Black
                }
            })
            .collect();
        let played: Vec<String> = (0..9).map(|i| format!("t{i}")).collect();
        let mut best: Vec<Option<String>> = (0..9).map(|i| Some(format!("b{i}"))).collect();
        let found = ReviewView::mistakes(&bars, &stones, &movers, &played, &best);
        let got: Vec<(usize, Color)> = found.iter().map(|m| (m.index, m.color)).collect();
        assert_eq!(
            got,
            vec![
                (4, Color::White),
                (7, Color::Black),
                (0, Color::White),
                (3, Color::Black)
            ]
        );
        assert!((found[0].stones - 34.5).abs() < 1e-4);
        // said as what happened: into a forced loss, a forced win let go, stones lost
        let what: Vec<&str> = found.iter().map(|m| m.what.as_str()).collect();
        assert_eq!(what, ["into-a-loss", "lost-the-win", "stones", "stones"]);
        // Far behind, the bar hardly moves (-0.96 to -0.99), the stones do: 6 lost.
        let far = [Some(-8.0), Some(-14.0)];
        let far_bars: Vec<Option<f32>> = far
            .iter()
            .map(|s| s.map(|s: f32| (s / 4.0).tanh()))
            .collect();
        let found = ReviewView::mistakes(
            &far_bars,
            &far,
            &[Color::Black],
            &["x".into()],
            &[Some("y".into())],
        );
        assert!(found.is_empty(), "Black gained: White's view fell");
        let found = ReviewView::mistakes(
            &far_bars,
            &far,
            &[Color::White],
            &["x".into()],
            &[Some("y".into())],
        );
        assert_eq!(found.len(), 1);
        assert!(found[0].loss < 0.05 && (found[0].stones - 6.0).abs() < 1e-4);
        // The engine's own choice is never a mistake, whatever the evaluation says.
        best[4] = Some("t4".into());
        let found = ReviewView::mistakes(&bars, &stones, &movers, &played, &best);
        assert!(found.iter().all(|m| m.index != 4));
    }
}
