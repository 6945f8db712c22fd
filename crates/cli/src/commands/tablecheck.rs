//! `fanorona tablebase check`: how often a network is right where the tables know the answer.
//!
//! Positions are sampled from the covered material (both sides at least one stone, counter 0,
//! side to move at random; positions already decided by the rules are skipped). For each:
//! - the **value head**: is the most likely of its win/draw/loss the table's result?
//! - the **policy**: does the turn it prefers (one simulation a step, so the prior's choice)
//!   keep the table's result?
//! - the **search**: does the turn chosen with `--sims` simulations keep it?

use crate::output::say;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use fanorona_engine::{Bitboard, ByColor, Color, Game, Point, Position, Rules, Setup};
use fanorona_net::encoding::{self, INPUT_LEN};
use fanorona_net::{Backend, InferenceModel, load_exported, net_player};
use fanorona_players::Player;
use fanorona_specs::NetSettings;
use fanorona_tablebase::{Probe, Tablebase, Wdl};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::tables::TableDir;

/// Arguments of `fanorona tablebase check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The exported model (`fanorona export`).
    #[arg(long, value_name = "FILE", required_unless_present = "eval")]
    pub model: Option<PathBuf>,
    /// A learned evaluation (`.fne`, a checkpoint of an evaluation run, or `learned`): how
    /// often the sign of its score agrees with the exact result, beside the hand-written
    /// evaluation's.
    #[arg(long, value_name = "FILE")]
    pub eval: Option<String>,
    /// Positions to sample (uniformly over the covered material, then over placements), 1 to
    /// 1,000,000.
    #[arg(long, default_value_t = 1000,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    pub positions: usize,
    /// Simulations per step of the search whose turns are checked, 1 to 100,000.
    #[arg(long, default_value_t = 200,
          value_parser = clap::builder::RangedU64ValueParser::<u32>::new().range(1..=100_000))]
    pub sims: u32,
    /// Seed of the sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub tables: TableDir,
}

/// Counts of one check.
#[derive(Default)]
struct Tally {
    right: usize,
    total: usize,
}

impl Tally {
    fn add(&mut self, ok: bool) {
        self.right += usize::from(ok);
        self.total += 1;
    }

    fn percent(&self) -> f64 {
        100.0 * self.right as f64 / self.total.max(1) as f64
    }
}

/// Run `fanorona tablebase check`.
pub fn run(args: &CheckArgs, backend: Backend) -> Result<()> {
    let tb = args.tables.open()?;
    let rules = args.tables.rules();
    if let Some(eval) = &args.eval {
        evaluation_signs(&tb, eval, args)?;
    }
    let Some(model_path) = &args.model else {
        return Ok(());
    };
    let (model, _) = load_exported(model_path, backend)
        .with_context(|| format!("--model {}", model_path.display()))?;
    let max = tb.max_stones();
    let positions = sample(&tb, max, args.positions, args.seed);
    let value = value_head(&model, &tb, &positions, rules)?;
    let policy = turns_kept(&model, &tb, &positions, rules, 1, args.seed)?;
    let search = turns_kept(&model, &tb, &positions, rules, args.sims, args.seed)?;

    say!(
        "positions {} (2 to {max} stones, counter 0, seed {}), model {}",
        positions.len(),
        args.seed,
        model_path.display()
    )?;
    say!("value head right {}", per_result(&value))?;
    say!("policy top turn keeps the result {:.1}%", policy.percent())?;
    say!(
        "search turn ({} simulations a step) keeps the result {:.1}%",
        args.sims,
        search.percent()
    )?;
    Ok(())
}

/// How often an evaluation's sign agrees with the exact result: a win scores above 0, a loss
/// below, a draw within a stone of 0; per true result, the learned evaluation `eval` beside
/// the hand-written one.
fn evaluation_signs(tb: &Tablebase, eval: &str, args: &CheckArgs) -> Result<()> {
    use fanorona_players::Evaluation;
    let source = match eval {
        fanorona_specs::SHIPPED_EVAL => fanorona_specs::EvalSource::Shipped,
        path => fanorona_specs::EvalSource::File(PathBuf::from(path)),
    };
    let learned = fanorona_specs::load_evaluation(&source)
        .map_err(|e| anyhow::anyhow!("--eval {eval}: {e}"))?;
    let max = tb.max_stones();
    let positions = sample(tb, max, args.positions, args.seed);
    say!(
        "positions {} (2 to {max} stones, counter 0, seed {}): the sign of the evaluation against the exact result",
        positions.len(),
        args.seed
    )?;
    for (name, e) in [
        ("learned", &learned),
        ("hand-written", &Evaluation::Handwritten),
    ] {
        let mut tallies = [Tally::default(), Tally::default(), Tally::default()];
        for pos in &positions {
            let truth = tb.probe(pos)?.wdl;
            let score = e.evaluate(pos);
            let agrees = match truth {
                Wdl::Win => score > 0,
                Wdl::Loss => score < 0,
                Wdl::Draw => score.abs() <= 100,
            };
            tallies[truth_slot(truth)].add(agrees);
        }
        say!("{name} evaluation agrees {}", per_result(&tallies))?;
    }
    Ok(())
}

/// `P% (wins P% of N, draws P% of N, losses P% of N)` of tallies per true result.
fn per_result(tallies: &[Tally; 3]) -> String {
    let all = Tally {
        right: tallies.iter().map(|t| t.right).sum(),
        total: tallies.iter().map(|t| t.total).sum(),
    };
    format!(
        "{:.1}% (wins {:.1}% of {}, draws {:.1}% of {}, losses {:.1}% of {})",
        all.percent(),
        tallies[0].percent(),
        tallies[0].total,
        tallies[1].percent(),
        tallies[1].total,
        tallies[2].percent(),
        tallies[2].total
    )
}

/// How often the value head's most likely result is the table's, per true result (win, draw,
/// loss), evaluated in batches.
fn value_head(
    model: &InferenceModel,
    tb: &Tablebase,
    positions: &[Position],
    rules: Rules,
) -> Result<[Tally; 3]> {
    let mut value = [Tally::default(), Tally::default(), Tally::default()];
    let ctx = encoding::Context {
        repetitions: 1,
        no_progress_limit: rules.no_progress_limit,
    };
    for chunk in positions.chunks(256) {
        let mut planes = vec![0.0; chunk.len() * INPUT_LEN];
        for (pos, out) in chunk.iter().zip(planes.chunks_exact_mut(INPUT_LEN)) {
            encoding::encode(pos, ctx, out);
        }
        let output = model.try_forward(&planes, chunk.len())?;
        for (i, pos) in chunk.iter().enumerate() {
            let wdl = &output.wdl[3 * i..3 * i + 3];
            let guess = if wdl[0] >= wdl[1] && wdl[0] >= wdl[2] {
                Wdl::Win
            } else if wdl[1] >= wdl[2] {
                Wdl::Draw
            } else {
                Wdl::Loss
            };
            let truth = tb.probe(pos)?.wdl;
            value[truth_slot(truth)].add(guess == truth);
        }
    }
    Ok(value)
}

/// How often the network player's turn with `sims` simulations a step keeps the table's
/// result (one simulation: the policy's own choice).
fn turns_kept(
    model: &InferenceModel,
    tb: &Tablebase,
    positions: &[Position],
    rules: Rules,
    sims: u32,
    seed: u64,
) -> Result<Tally> {
    let mut player = net_player(model.clone(), NetSettings::search_with(sims, seed), "net");
    let mut kept = Tally::default();
    for pos in positions {
        let game = Game::from_position(*pos, rules);
        let turn = player.choose(&game, None)?.turn;
        kept.add(keeps(tb, pos, tb.probe(pos)?, &turn)?);
    }
    Ok(kept)
}

fn truth_slot(w: Wdl) -> usize {
    match w {
        Wdl::Win => 0,
        Wdl::Draw => 1,
        Wdl::Loss => 2,
    }
}

/// Whether playing `turn` from `pos` keeps its result `truth` (a win stays a win, a draw at
/// least a draw; in a lost position every turn keeps the result).
fn keeps(
    tb: &Tablebase,
    pos: &Position,
    truth: Probe,
    turn: &fanorona_engine::Turn,
) -> Result<bool> {
    let child = pos.try_play_turn(turn)?;
    let theirs = tb.probe(&child)?.wdl.flip();
    Ok(theirs >= truth.wdl)
}

/// `count` positions at counter 0 with 2 to `max` stones, none already over.
fn sample(tb: &Tablebase, max: usize, count: usize, seed: u64) -> Vec<Position> {
    let mut rng = StdRng::seed_from_u64(seed);
    let classes: Vec<(usize, usize)> = tb.classes().filter(|&(a, b)| a + b <= max).collect();
    let mut out = Vec::with_capacity(count);
    while out.len() < count && !classes.is_empty() {
        let (own, other) = classes[rng.random_range(0..classes.len())];
        let side = if rng.random::<bool>() {
            Color::White
        } else {
            Color::Black
        };
        let mut points: Vec<Point> = Point::all().collect();
        for i in (1..points.len()).rev() {
            points.swap(i, rng.random_range(0..=i));
        }
        let mine: Bitboard = points[..own].iter().copied().collect();
        let theirs: Bitboard = points[own..own + other].iter().copied().collect();
        let stones = match side {
            Color::White => ByColor([mine, theirs]),
            Color::Black => ByColor([theirs, mine]),
        };
        let Ok(pos) = Position::from_setup(&Setup {
            stones,
            side_to_move: side,
            no_capture_turns: 0,
            turn_number: 1,
        }) else {
            continue;
        };
        if pos.has_legal_action() {
            out.push(pos);
        }
    }
    out
}
