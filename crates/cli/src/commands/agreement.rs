//! `fanorona bench-net --agreement N --model FILE`: how far the 8-bit tower is from the float
//! one on positions of real games.
//!
//! The positions are every step position (turn starts and the middle of capture chains) of
//! games between two alpha-beta players (`alphabeta:depth=1`, tables off) after a few random
//! opening turns, so they are the positions a search meets, not random boards. Both networks
//! evaluate the same batches; the report gives how often their preferred legal action is the
//! same (policy top-1 agreement), and the largest and mean difference of the expected score
//! (win minus loss, from -1 to 1).

use crate::output::say;
use std::path::Path;

use anyhow::{Context, Result};
use fanorona_engine::{Action, Game, Position, Rules};
use fanorona_infer::{NativeNet, Precision};
use fanorona_net::encoding::{self, INPUT_LEN};
use fanorona_net::{Backend, load_exported};
use fanorona_players::Player;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Random turns at the start of each game, for variety.
const RANDOM_OPENING_TURNS: usize = 6;
/// Turns after which a game is cut short (the no-progress rule ends almost every game sooner).
const MAX_TURNS: usize = 400;

/// A position and what the network's input says about it.
struct Sample {
    position: Position,
    repetitions: u32,
}

/// What the two precisions agree on.
#[derive(Debug, Default)]
pub struct Agreement {
    pub positions: usize,
    pub same_top_action: usize,
    pub largest_value_difference: f32,
    pub mean_value_difference: f64,
    pub largest_probability_difference: f32,
}

/// Measures and prints the agreement of the 8-bit and float networks of `model` on `count`
/// positions of games seeded by `seed`.
pub fn run(model: &Path, count: usize, seed: u64) -> Result<()> {
    let (inference, _) = load_exported(model, Backend::Native)
        .with_context(|| format!("--model {}", model.display()))?;
    let weights = inference.native_weights()?;
    let float = NativeNet::new(&weights)?.with_precision(Precision::F32);
    let int8 = NativeNet::new(&weights)?.with_precision(Precision::Int8);
    let rules = Rules::default();
    let (samples, games) = game_positions(count, seed, rules)?;
    let agreement = compare(&float, &int8, &samples, rules)?;
    let Agreement {
        positions,
        same_top_action,
        largest_value_difference,
        mean_value_difference,
        largest_probability_difference,
    } = agreement;
    say!(
        "int8 against fp32 ({} kernels), model {}: {positions} positions of {games} games (alphabeta:depth=1 after {RANDOM_OPENING_TURNS} random turns, seed {seed})",
        float.level(),
        model.display()
    )?;
    say!(
        "policy top-1 agreement {:.2}% ({same_top_action} of {positions}); expected score (win - loss) differs by {mean_value_difference:.4} on average, {largest_value_difference:.4} at most; largest win/draw/loss probability difference {largest_probability_difference:.4}",
        100.0 * same_top_action as f64 / positions.max(1) as f64
    )?;
    Ok(())
}

/// Every step position of games played until `count` positions are collected.
fn game_positions(count: usize, seed: u64, rules: Rules) -> Result<(Vec<Sample>, usize)> {
    let registry = fanorona_net::player_registry(Backend::Native);
    let settings = super::players::parse_player("alphabeta:depth=1,tb=off", &registry)?;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut samples = Vec::with_capacity(count);
    let mut games = 0;
    while samples.len() < count {
        games += 1;
        let mut player: Box<dyn Player> = registry
            .build(&settings, seed.wrapping_add(games as u64))
            .map_err(|e| anyhow::anyhow!("building the game player: {e}"))?;
        let mut game = Game::new(rules);
        for turn_number in 0..MAX_TURNS {
            if game.outcome().is_some() || samples.len() >= count {
                break;
            }
            let turn = if turn_number < RANDOM_OPENING_TURNS {
                let turns = game.position().legal_turns();
                turns[rng.random_range(0..turns.len())]
            } else {
                player
                    .choose(&game, None)
                    .map_err(|e| anyhow::anyhow!("the game player: {e}"))?
                    .turn
            };
            for &step in turn.steps() {
                samples.push(Sample {
                    position: *game.position(),
                    repetitions: game.repetition_count().max(1),
                });
                game.apply(Action::Step(step));
            }
            // A capture chain may be stopped before its last possible capture.
            if !game.position().is_turn_start() {
                samples.push(Sample {
                    position: *game.position(),
                    repetitions: 1,
                });
                game.apply(Action::EndTurn);
            }
        }
    }
    samples.truncate(count);
    Ok((samples, games))
}

/// Evaluates every sample with both networks, 64 at a time.
fn compare(
    float: &NativeNet,
    int8: &NativeNet,
    samples: &[Sample],
    rules: Rules,
) -> Result<Agreement> {
    let mut agreement = Agreement::default();
    let actions = float.policy_size();
    let mut total_difference = 0.0f64;
    for chunk in samples.chunks(64) {
        let batch = chunk.len();
        let mut planes = vec![0.0; batch * INPUT_LEN];
        for (sample, out) in chunk.iter().zip(planes.chunks_exact_mut(INPUT_LEN)) {
            let ctx = encoding::Context {
                repetitions: sample.repetitions,
                no_progress_limit: rules.no_progress_limit,
            };
            encoding::encode(&sample.position, ctx, out);
        }
        let mut outputs = [
            (vec![0.0; batch * actions], vec![0.0; batch * 3]),
            (vec![0.0; batch * actions], vec![0.0; batch * 3]),
        ];
        for (net, (policy, wdl)) in [float, int8].into_iter().zip(outputs.iter_mut()) {
            net.forward(&planes, batch, policy, wdl)?;
        }
        let [(fp, fv), (qp, qv)] = &outputs;
        for (i, sample) in chunk.iter().enumerate() {
            let side = sample.position.side_to_move();
            let legal: Vec<usize> = sample
                .position
                .legal_actions()
                .iter()
                .map(|&a| encoding::action_index(a, side))
                .collect();
            let best = |logits: &[f32]| {
                legal
                    .iter()
                    .copied()
                    .max_by(|&a, &b| logits[a].total_cmp(&logits[b]))
            };
            let row = i * actions..(i + 1) * actions;
            agreement.same_top_action += usize::from(best(&fp[row.clone()]) == best(&qp[row]));
            let (f, q) = (&fv[3 * i..3 * i + 3], &qv[3 * i..3 * i + 3]);
            let difference = ((f[0] - f[2]) - (q[0] - q[2])).abs();
            agreement.largest_value_difference = agreement.largest_value_difference.max(difference);
            total_difference += f64::from(difference);
            for (a, b) in f.iter().zip(q) {
                agreement.largest_probability_difference =
                    agreement.largest_probability_difference.max((a - b).abs());
            }
        }
        agreement.positions += batch;
    }
    agreement.mean_value_difference = total_difference / agreement.positions.max(1) as f64;
    Ok(agreement)
}
