//! The native network against a plain reference: the network written out as it is defined
//! (channel-major planes, direct convolutions with bounds checks, flatten, linear layers), one
//! position at a time.

use fanorona_infer::testing::{Shape, largest_difference, random_planes, random_weights};
use fanorona_infer::{ConvWeights, LinearWeights, NativeNet, Precision, SimdLevel, Weights};
use proptest::prelude::*;

const ROWS: usize = 5;
const COLS: usize = 9;
const POINTS: usize = ROWS * COLS;

/// `[outputs][5][9]` from `[inputs][5][9]`, zero outside the board.
fn conv(x: &[f32], w: &ConvWeights) -> Vec<f32> {
    let half = (w.kernel / 2) as isize;
    let mut out = vec![0.0; w.outputs * POINTS];
    for co in 0..w.outputs {
        for r in 0..ROWS {
            for c in 0..COLS {
                let mut sum = w.bias[co];
                for ci in 0..w.inputs {
                    for kr in 0..w.kernel {
                        for kc in 0..w.kernel {
                            let rr = r as isize + kr as isize - half;
                            let cc = c as isize + kc as isize - half;
                            if (0..ROWS as isize).contains(&rr) && (0..COLS as isize).contains(&cc)
                            {
                                let weight = w.weight
                                    [((co * w.inputs + ci) * w.kernel + kr) * w.kernel + kc];
                                sum += weight * x[ci * POINTS + rr as usize * COLS + cc as usize];
                            }
                        }
                    }
                }
                out[co * POINTS + r * COLS + c] = sum;
            }
        }
    }
    out
}

fn linear(x: &[f32], w: &LinearWeights) -> Vec<f32> {
    (0..w.outputs)
        .map(|o| {
            w.bias[o]
                + (0..w.inputs)
                    .map(|i| x[i] * w.weight[i * w.outputs + o])
                    .sum::<f32>()
        })
        .collect()
}

fn relu(v: Vec<f32>) -> Vec<f32> {
    v.into_iter().map(|x| x.max(0.0)).collect()
}

/// (policy logits, win/draw/loss probabilities) of one position.
fn reference(w: &Weights, planes: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let mut x = relu(conv(planes, &w.stem));
    for block in &w.blocks {
        let mut y = relu(conv(&x, &block.first));
        if let Some(pool) = &block.global_pool {
            let c = block.first.outputs;
            let mut pooled = vec![0.0; 2 * c];
            for ch in 0..c {
                let values = &y[ch * POINTS..(ch + 1) * POINTS];
                pooled[ch] = values.iter().sum::<f32>() / POINTS as f32;
                pooled[c + ch] = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            }
            let bias = linear(&pooled, pool);
            for ch in 0..c {
                y[ch * POINTS..(ch + 1) * POINTS]
                    .iter_mut()
                    .for_each(|v| *v += bias[ch]);
            }
        }
        let z = conv(&y, &block.second);
        x = relu(x.iter().zip(&z).map(|(a, b)| a + b).collect());
    }
    let policy = linear(&relu(conv(&x, &w.policy_conv)), &w.policy_fc);
    let hidden = relu(linear(&relu(conv(&x, &w.value_conv)), &w.value_fc1));
    let logits = linear(&hidden, &w.value_fc2);
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
    let sum: f32 = exp.iter().sum();
    (policy, exp.iter().map(|e| e / sum).collect())
}

/// Runs `net` and the reference on `batch` random positions; returns the largest difference
/// on policy logits and on WDL.
fn compare(
    net: &NativeNet,
    weights: &Weights,
    planes: usize,
    batch: usize,
    seed: u64,
) -> (f32, f32) {
    let input = random_planes(planes, batch, seed);
    let actions = weights.policy_fc.outputs;
    let mut policy = vec![f32::NAN; batch * actions];
    let mut wdl = vec![f32::NAN; batch * 3];
    net.forward(&input, batch, &mut policy, &mut wdl).unwrap();
    let mut worst = (0.0f32, 0.0f32);
    for i in 0..batch {
        let (p, v) = reference(
            weights,
            &input[i * planes * POINTS..(i + 1) * planes * POINTS],
        );
        worst.0 = worst.0.max(largest_difference(
            &policy[i * actions..(i + 1) * actions],
            &p,
        ));
        worst.1 = worst
            .1
            .max(largest_difference(&wdl[i * 3..(i + 1) * 3], &v));
    }
    worst
}

/// Odd sizes everywhere: 5 planes and 13 channels (padded by the kernels), a pooled block.
fn odd_shape() -> Shape {
    Shape {
        planes: 5,
        blocks: 3,
        channels: 13,
        policy_channels: 3,
        value_channels: 5,
        value_hidden: 7,
        global_pool_every: 2,
        actions: 37,
    }
}

/// The native network of `weights` at `level`, on `threads` threads, in `precision`.
fn native_at(
    weights: &Weights,
    level: SimdLevel,
    threads: usize,
    precision: Precision,
) -> NativeNet {
    NativeNet::new(weights)
        .unwrap()
        .with_level(level)
        .unwrap()
        .with_threads(threads)
        .with_precision(precision)
}

#[test]
fn default_shape_matches_on_every_level_and_thread_count() {
    let shape = Shape::new(16, 4, 48);
    let weights = random_weights(&shape, 5);
    for level in SimdLevel::available() {
        for threads in [1, 2] {
            let net = native_at(&weights, level, threads, Precision::F32);
            for batch in [1, 7, 9, 13] {
                let (p, v) = compare(&net, &weights, 16, batch, batch as u64);
                assert!(
                    p < 1e-4 && v < 1e-5,
                    "{level}, {threads} threads, batch {batch}: policy {p}, wdl {v}"
                );
            }
        }
    }
}

#[test]
fn odd_shapes_with_global_pooling_match() {
    let shape = odd_shape();
    let weights = random_weights(&shape, 9);
    assert!(weights.blocks[1].global_pool.is_some() && weights.blocks[0].global_pool.is_none());
    for level in SimdLevel::available() {
        let net = NativeNet::new(&weights).unwrap().with_level(level).unwrap();
        for batch in 1..=40 {
            let (p, v) = compare(&net, &weights, 5, batch, 100 + batch as u64);
            assert!(
                p < 1e-4 && v < 1e-5,
                "{level}, batch {batch}: policy {p}, wdl {v}"
            );
        }
    }
}

#[test]
fn buffers_reused_across_batch_sizes_give_the_same_answers() {
    let shape = Shape::new(16, 2, 24);
    let weights = random_weights(&shape, 3);
    let net = NativeNet::new(&weights).unwrap();
    // Large, then small, then large again: stale values in the reused buffers must not leak.
    for batch in [64, 1, 5, 64, 3] {
        let (p, v) = compare(&net, &weights, 16, batch, 7);
        assert!(p < 1e-4 && v < 1e-5, "batch {batch}: policy {p}, wdl {v}");
    }
}

/// Runs `net` on `batch` random positions; returns (policy logits, wdl).
fn run(net: &NativeNet, planes: usize, batch: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    let input = random_planes(planes, batch, seed);
    let mut policy = vec![f32::NAN; batch * net.policy_size()];
    let mut wdl = vec![f32::NAN; batch * 3];
    net.forward(&input, batch, &mut policy, &mut wdl).unwrap();
    (policy, wdl)
}

#[test]
fn int8_is_near_the_reference_and_the_same_on_every_level() {
    let shape = Shape::new(16, 4, 48);
    let weights = random_weights(&shape, 5);
    let mut first: Option<(SimdLevel, Vec<f32>, Vec<f32>)> = None;
    for level in SimdLevel::available() {
        for threads in [1, 2] {
            let net = native_at(&weights, level, threads, Precision::Int8);
            assert_eq!(net.precision(), Precision::Int8);
            let (p, v) = compare(&net, &weights, 16, 13, 21);
            // Seven bits of activation per position, eight of weight per channel: near the
            // float network, but not equal to it (an 8-bit run that fell back to floats
            // would be).
            assert!(
                p < 0.15 && v < 0.03,
                "{level}, {threads} threads: policy {p}, wdl {v}"
            );
            assert!(
                p > 1e-4,
                "{level}: the 8-bit path did not run (policy off by {p})"
            );
            // The convolutions' sums are exact integers (the kernels are compared bit for bit
            // in the crate's unit tests): levels differ only by the float rounding of the
            // heads.
            let (policy, wdl) = run(&net, 16, 13, 21);
            match &first {
                None => first = Some((level, policy, wdl)),
                Some((other, p, v)) => {
                    let (dp, dv) = (largest_difference(&policy, p), largest_difference(&wdl, v));
                    assert!(
                        dp < 1e-4 && dv < 1e-5,
                        "{level} against {other}: {dp}, {dv}"
                    );
                }
            }
        }
    }
}

#[test]
fn int8_handles_padding_global_pooling_and_reused_buffers() {
    // 5 planes and 13 channels are padded to 8 and 16; the pooled block's second convolution
    // can see negative inputs and then runs in floats.
    let shape = odd_shape();
    let weights = random_weights(&shape, 9);
    let net = NativeNet::new(&weights)
        .unwrap()
        .with_precision(Precision::Int8);
    for batch in [1, 9, 40, 2, 17] {
        let (p, v) = compare(&net, &weights, 5, batch, 300 + batch as u64);
        assert!(p < 0.15 && v < 0.03, "batch {batch}: policy {p}, wdl {v}");
        // A fresh network (fresh buffers) gives the same answers: nothing stale leaks.
        let fresh = NativeNet::new(&weights)
            .unwrap()
            .with_precision(Precision::Int8);
        assert_eq!(
            run(&net, 5, batch, 300 + batch as u64),
            run(&fresh, 5, batch, 300 + batch as u64),
            "batch {batch}"
        );
    }
}

#[test]
fn precisions_parse() {
    assert_eq!("int8".parse::<Precision>(), Ok(Precision::Int8));
    assert_eq!("fp32".parse::<Precision>(), Ok(Precision::F32));
    assert!(
        "fp16"
            .parse::<Precision>()
            .unwrap_err()
            .contains("fp32 or int8")
    );
}

#[test]
fn wrong_buffer_sizes_are_errors() {
    let weights = random_weights(&Shape::new(16, 1, 8), 1);
    let net = NativeNet::new(&weights).unwrap();
    let planes = vec![0.0; 2 * net.input_len()];
    let mut policy = vec![0.0; 2 * net.policy_size()];
    let mut wdl = vec![0.0; 6];
    let e = net
        .forward(&planes[1..], 2, &mut policy, &mut wdl)
        .unwrap_err();
    assert_eq!((e.what, e.expected), ("planes", 2 * 16 * 45));
    let e = net
        .forward(&planes, 2, &mut policy, &mut wdl[..5])
        .unwrap_err();
    assert_eq!(e.what, "wdl");
    net.forward(&[], 0, &mut [], &mut []).unwrap();
}

#[test]
fn weights_that_do_not_fit_are_refused_with_the_layer_named() {
    let good = random_weights(&Shape::new(16, 2, 8), 1);
    let mut w = good.clone();
    w.blocks[1].second.weight.pop();
    let e = NativeNet::new(&w).unwrap_err();
    assert_eq!(e.layer, "blocks.1.second");
    assert!(
        e.to_string()
            .contains("weight has 575 values, expected 576"),
        "{e}"
    );

    let mut w = good.clone();
    w.policy_fc.inputs = 7 * 45;
    let e = NativeNet::new(&w).unwrap_err();
    assert_eq!(e.layer, "policy_fc");

    let mut w = good.clone();
    w.value_fc2 = LinearWeights {
        inputs: 64,
        outputs: 4,
        weight: vec![0.0; 256],
        bias: vec![0.0; 4],
    };
    assert_eq!(NativeNet::new(&w).unwrap_err().layer, "value_fc2");

    let mut w = good;
    w.blocks[0].first.kernel = 1;
    w.blocks[0].first.weight.truncate(64);
    assert_eq!(NativeNet::new(&w).unwrap_err().layer, "blocks.0.first");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn any_small_shape_matches(
        planes in 1usize..6,
        blocks in 0usize..3,
        channels in 1usize..20,
        heads in (1usize..4, 1usize..4, 1usize..9),
        pool in 0usize..3,
        actions in 1usize..40,
        batch in 1usize..12,
        seed in 0u64..1000,
    ) {
        let shape = Shape {
            planes, blocks, channels,
            policy_channels: heads.0, value_channels: heads.1, value_hidden: heads.2,
            global_pool_every: pool, actions,
        };
        let weights = random_weights(&shape, seed);
        for level in SimdLevel::available() {
            let net = NativeNet::new(&weights).unwrap().with_level(level).unwrap();
            let (p, v) = compare(&net, &weights, planes, batch, seed);
            prop_assert!(p < 1e-4 && v < 1e-5, "{:?} {}: policy {} wdl {}", shape, level, p, v);
        }
    }
}
