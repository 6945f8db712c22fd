//! The integer path against the float forward pass on every shape and SIMD level the CPU has,
//! the file round trip, and damaged or out-of-bounds files refused (fuzzed like the other model
//! files).

use fanorona_data::container;
use fanorona_engine::{Color, Position};
use fanorona_eval::{
    EVAL_MAGIC, EVAL_VERSION, EvalMeta, EvalNet, EvalWeights, Inputs, L1_BIAS_MAX, L1_WEIGHT_MAX,
    L2_BIAS_MAX, L2_WEIGHT_MAX, Shape, SimdLevel,
};
use fanorona_testkit::{Rng, TempDir, fuzz, random_position, random_walk};

fn uniform(rng: &mut Rng, max: f32) -> f32 {
    (rng.next_u64() as f64 / u64::MAX as f64 * 2.0 - 1.0) as f32 * max
}

/// Random weights of `shape`, scaled so that the hidden units are often inside (0, 1): the
/// clipping and the linear part are both exercised.
fn random_weights(shape: Shape, seed: u64) -> EvalWeights {
    let mut rng = Rng::new(seed);
    let mut w = EvalWeights::zeros(shape);
    // The lines set has twice the inputs on: half the weights keep the sums alike.
    let l1 = 0.3 * 44.0 / shape.inputs.max_active() as f32;
    for v in &mut w.l1 {
        *v = uniform(&mut rng, l1);
    }
    for v in &mut w.b1 {
        *v = uniform(&mut rng, 0.5) + 0.3;
    }
    let fan_in = (shape.hidden1 as f32).sqrt();
    for v in &mut w.l2 {
        *v = uniform(&mut rng, 2.0) / fan_in;
    }
    for v in &mut w.b2 {
        *v = uniform(&mut rng, 0.5) + 0.3;
    }
    for v in &mut w.l3 {
        *v = uniform(&mut rng, 6.0 / (shape.hidden2 as f32).sqrt());
    }
    w.b3 = uniform(&mut rng, 1.0);
    w
}

fn positions(seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for _ in 0..8 {
        out.extend(random_walk(&mut rng, Position::start(), 200));
    }
    for (white, black) in [(1, 1), (3, 5), (12, 9), (22, 22), (22, 1)] {
        for side in [Color::White, Color::Black] {
            out.push(random_position(&mut rng, white, black, side));
        }
    }
    out.retain(|p| p.chain().is_none());
    out
}

#[test]
fn the_integer_path_matches_the_float_network_on_every_shape_and_level() {
    let positions = positions(3);
    assert!(positions.len() > 50);
    let levels = EvalNet::levels();
    let shapes = Inputs::ALL.into_iter().flat_map(|inputs| {
        Shape::HIDDEN1
            .iter()
            .enumerate()
            .flat_map(move |(k, &hidden1)| {
                Shape::HIDDEN2.iter().map(move |&hidden2| {
                    let shape = Shape {
                        inputs,
                        hidden1,
                        hidden2,
                    };
                    (shape, 10 + k as u64 * 7 + hidden2 as u64)
                })
            })
    });
    for (shape, seed) in shapes {
        {
            let weights = random_weights(shape, seed);
            let nets: Vec<EvalNet> = levels
                .iter()
                .map(|&l| EvalNet::with_level(weights.clone(), l).unwrap())
                .collect();
            let (mut spread, mut error) = (0.0f32, 0.0f32);
            for pos in &positions {
                let float = weights.evaluate_f32(pos);
                spread = spread.max(float.abs());
                let first = nets[0].evaluate(pos);
                for net in &nets {
                    // Every level computes the same integers.
                    assert_eq!(net.evaluate(pos), first, "{shape} {:?}", net.level());
                }
                // Quantisation costs a few centi-stones at most (these random weights are
                // rougher than trained ones), about one on average.
                let tolerance = 8.0 + 0.02 * float.abs();
                assert!(
                    (first as f32 - float).abs() <= tolerance,
                    "{shape}: integer {first}, float {float} at {pos}"
                );
                error += (first as f32 - float).abs();
            }
            assert!(
                spread > 20.0,
                "{shape}: the test weights say almost nothing"
            );
            let mean = error / positions.len() as f32;
            assert!(mean < 2.0, "{shape}: mean error {mean} centi-stones");
        }
    }
}

/// The evaluation runs at the level the network's native path picks: `bench-net --simd` (and
/// `FANORONA_SIMD`) choose it for both.
#[test]
fn the_level_follows_the_networks_dispatch() {
    let weights = random_weights(Shape::default(), 2);
    let levels = EvalNet::levels();
    assert_eq!(levels.last(), Some(&SimdLevel::Portable));
    for &level in &levels {
        fanorona_infer::kernel::prefer(Some(level));
        let net = EvalNet::new(weights.clone()).unwrap();
        fanorona_infer::kernel::prefer(None);
        assert_eq!(net.level(), level);
    }
    let detected = SimdLevel::detect();
    if levels.contains(&detected) {
        assert_eq!(EvalNet::new(weights).unwrap().level(), detected);
    }
}

#[test]
fn colour_swapped_twins_get_the_same_evaluation() {
    for inputs in Inputs::ALL {
        let shape = Shape {
            inputs,
            ..Shape::default()
        };
        let net = EvalNet::new(random_weights(shape, 1)).unwrap();
        let white: Position = "W7W/1B7/4B4/9/W8 w".parse().unwrap();
        let black: Position = "8B/9/4W4/7W1/B7B b".parse().unwrap();
        assert_eq!(net.evaluate(&white), net.evaluate(&black), "{inputs:?}");
    }
}

/// Every first-layer weight and bias at its bound, on the fullest board of each input set:
/// the integer sums stay exact (a wrapped `i16` would turn the largest sum negative, and the
/// unit would read as off instead of fully on).
#[test]
fn the_weight_bounds_keep_the_integer_sums_exact() {
    let positions = positions(5);
    for inputs in Inputs::ALL {
        for sign in [1.0f32, -1.0] {
            let shape = Shape {
                inputs,
                hidden1: 32,
                hidden2: 8,
            };
            let mut w = EvalWeights::zeros(shape);
            w.l1.fill(sign * inputs.l1_weight_max());
            w.b1.fill(sign * L1_BIAS_MAX);
            w.l2.fill(0.25);
            w.l3.fill(1.0);
            for level in EvalNet::levels() {
                let net = EvalNet::with_level(w.clone(), level).unwrap();
                for pos in positions.iter().chain([&Position::start()]) {
                    let (int, float) = (net.evaluate(pos), w.evaluate_f32(pos));
                    assert!(
                        (int as f32 - float).abs() <= 2.0,
                        "{inputs:?} {sign} {level:?}: integer {int}, float {float} at {pos}"
                    );
                }
            }
        }
    }
}

#[test]
fn files_round_trip_and_name_what_is_wrong() {
    let dir = TempDir::new("eval-files");
    let path = dir.join("e.fne");
    let weights = random_weights(Shape::default(), 4);
    let meta = EvalMeta {
        training_steps: 12,
        games: 34,
        label: "test".into(),
    };
    weights.save(&path, &meta).unwrap();
    let (back, meta_back) = EvalWeights::load(&path).unwrap();
    assert_eq!(back, weights);
    assert_eq!(meta_back, meta);
    assert_eq!(back.fingerprint(), weights.fingerprint());
    assert_ne!(
        random_weights(Shape::default(), 5).fingerprint(),
        weights.fingerprint()
    );

    // Out of the integer path's bounds, non-finite, an unsupported shape: refused on save's
    // readers with the weight named.
    for (what, edit) in [
        (
            "l1[3]",
            Box::new(|w: &mut EvalWeights| w.l1[3] = L1_WEIGHT_MAX * 1.5)
                as Box<dyn Fn(&mut EvalWeights)>,
        ),
        (
            "b1[0]",
            Box::new(|w: &mut EvalWeights| w.b1[0] = L1_BIAS_MAX + 1.0),
        ),
        ("l2[7]", Box::new(|w: &mut EvalWeights| w.l2[7] = f32::NAN)),
        (
            "b2[1]",
            Box::new(|w: &mut EvalWeights| w.b2[1] = -L2_BIAS_MAX - 1.0),
        ),
        (
            "l3[2]",
            Box::new(|w: &mut EvalWeights| w.l3[2] = L2_WEIGHT_MAX * 2.0),
        ),
        ("b3", Box::new(|w: &mut EvalWeights| w.b3 = f32::INFINITY)),
    ] {
        let mut bad = weights.clone();
        edit(&mut bad);
        bad.save(&path, &meta).unwrap();
        let err = EvalWeights::load(&path).unwrap_err().to_string();
        assert!(err.contains(what) && err.contains("e.fne"), "{what}: {err}");
        assert!(EvalNet::new(bad).is_err());
    }
    let odd = EvalWeights::zeros(Shape {
        inputs: Default::default(),
        hidden1: 48,
        hidden2: 16,
    });
    odd.save(&path, &meta).unwrap();
    let err = EvalWeights::load(&path).unwrap_err().to_string();
    assert!(err.contains("not run here"), "{err}");

    // The lines set round-trips, is told from the stones set, and keeps its smaller bound.
    let lines = Shape {
        inputs: Inputs::Lines,
        ..Shape::default()
    };
    let weights_lines = random_weights(lines, 4);
    weights_lines.save(&path, &meta).unwrap();
    let (back, _) = EvalWeights::load(&path).unwrap();
    assert_eq!(back, weights_lines);
    assert_eq!(back.shape.inputs, Inputs::Lines);
    assert_ne!(
        EvalWeights::zeros(lines).fingerprint(),
        EvalWeights::zeros(Shape::default()).fingerprint()
    );
    let mut bad = weights_lines.clone();
    bad.l1[5] = 0.75;
    bad.save(&path, &meta).unwrap();
    let err = EvalWeights::load(&path).unwrap_err().to_string();
    assert!(err.contains("l1[5]") && err.contains("0.5"), "{err}");

    // Not an evaluation file, or a truncated one.
    std::fs::write(&path, b"hello").unwrap();
    assert!(EvalWeights::load(&path).is_err());
    weights.save(&path, &meta).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
    let err = EvalWeights::load(&path).unwrap_err().to_string();
    assert!(err.contains("e.fne"), "{err}");
}

#[test]
fn fuzz_mutated_eval_payloads_with_valid_checksums_never_panic() {
    let dir = TempDir::new("fuzz-eval");
    let path = dir.join("e.fne");
    random_weights(
        Shape {
            inputs: Default::default(),
            hidden1: 32,
            hidden2: 8,
        },
        9,
    )
    .save(&path, &EvalMeta::default())
    .unwrap();
    let payload = container::read(&path, &EVAL_MAGIC, EVAL_VERSION).unwrap();
    let positions = positions(8);
    fuzz::run(
        "evaluation file",
        &[payload],
        &[b"hidden1", b"{}", b"\"features\"", &[0x7f; 4], &[0xff; 4]],
        1000,
        |bytes| {
            container::write_atomic(&path, &EVAL_MAGIC, EVAL_VERSION, bytes).unwrap();
            if let Ok((weights, _)) = EvalWeights::load(&path) {
                let net = EvalNet::new(weights).expect("a file that loads is runnable");
                for pos in &positions {
                    let _ = net.evaluate(pos);
                }
            }
        },
    );
}

/// The evaluation this program ships (`checkpoints/learned.fne`, built in) loads, and it has
/// learned what material is worth: stones up is good for the mover, stones down bad, and the
/// start is near even. (Quiet positions: the search never asks the evaluation about one with a
/// capture to play.)
#[test]
fn the_shipped_evaluation_loads_and_values_material() {
    let bytes = fanorona_eval::SHIPPED.expect("this build ships checkpoints/learned.fne");
    let (weights, meta) =
        EvalWeights::decode_file(std::path::Path::new("learned.fne"), bytes).unwrap();
    assert!(meta.training_steps > 0 && meta.games > 0, "{meta:?}");
    let net = EvalNet::new(weights).unwrap();
    let eval = |fen: &str| net.evaluate(&fen.parse::<Position>().unwrap());
    let start = net.evaluate(&Position::start());
    assert!(start.abs() < 150, "the start: {start}");
    // The middle row empty, then four of Black's stones gone: worth more than a stone to White.
    let even = eval("BBBBBBBBB/BBBBBBBBB/9/WWWWWWWWW/WWWWWWWWW w 0 1");
    let up = eval("BBBBBBBBB/BBBBB4/9/WWWWWWWWW/WWWWWWWWW w 0 1");
    assert!(up > even + 100, "four up: {up}, even: {even}");
    // Nine stones against one, either side to move.
    let ahead = eval("9/9/4B4/9/WWWWWWWWW w 0 1");
    let behind = eval("9/9/4B4/9/WWWWWWWWW b 0 1");
    assert!(
        ahead > 300 && behind < -300,
        "nine against one: {ahead}, {behind}"
    );
}
