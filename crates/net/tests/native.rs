//! The native CPU path against burn's forward pass: random networks of odd shapes at every
//! batch size from 1 to 300, the default shape, and the trained sample network on positions
//! from real games, on every kernel level this CPU has. Plus the backend switch itself.

use std::path::Path;

use burn::tensor::Device;
use fanorona_engine::Action;
use fanorona_infer::testing::largest_difference;
use fanorona_infer::{NativeNet, SimdLevel};
use fanorona_mcts::EvalRequest;
use fanorona_net::bench::{random_batch, sample_states};
use fanorona_net::evaluator::encode_batch;
use fanorona_net::{Backend, InferenceModel, NetConfig, POLICY_SIZE, WDL_SIZE, load_exported};
use fanorona_players::FanoronaState;

const TOLERANCE: f32 = 1e-4;

/// The burn model, and one native network per kernel level built from its weights.
fn both(model: &InferenceModel) -> (InferenceModel, Vec<NativeNet>) {
    let burn = model.clone().with_backend(Backend::Burn).unwrap();
    assert_eq!(burn.backend(), Backend::Burn);
    let weights = model.native_weights().unwrap();
    let natives = SimdLevel::available()
        .into_iter()
        .map(|level| NativeNet::new(&weights).unwrap().with_level(level).unwrap())
        .collect();
    (burn, natives)
}

/// Largest differences (policy logits, WDL) between burn and `native` on `planes`.
fn compare(burn: &InferenceModel, native: &NativeNet, planes: &[f32], batch: usize) -> (f32, f32) {
    let (policy, wdl) = burn.forward(planes, batch);
    let mut native_policy = vec![f32::NAN; batch * POLICY_SIZE];
    let mut native_wdl = vec![f32::NAN; batch * WDL_SIZE];
    native
        .forward(planes, batch, &mut native_policy, &mut native_wdl)
        .unwrap();
    (
        largest_difference(&policy, &native_policy),
        largest_difference(&wdl, &native_wdl),
    )
}

#[test]
fn odd_shapes_match_burn_at_every_batch_size_from_1_to_300() {
    // 13 channels (not a multiple of any vector width), global pooling in the second block,
    // odd head widths.
    let cfg = NetConfig {
        blocks: 2,
        channels: 13,
        policy_channels: 3,
        value_channels: 5,
        value_hidden: 11,
        global_pool_every: 2,
        ..NetConfig::default()
    };
    let device = Device::flex();
    device.seed(17);
    let (burn, natives) = both(&InferenceModel::random(&cfg, &device));
    let planes = random_batch(&cfg, 300, 5).planes;
    for native in &natives {
        for batch in 1..=300 {
            let (p, v) = compare(&burn, native, &planes[..batch * cfg.input_len()], batch);
            assert!(
                p < TOLERANCE && v < TOLERANCE,
                "{}, batch {batch}: policy off by {p}, wdl by {v}",
                native.level()
            );
        }
    }
}

#[test]
fn default_and_large_shapes_match_burn() {
    for cfg in [
        NetConfig::default(),
        NetConfig::default()
            .with_blocks(3)
            .with_channels(64)
            .with_global_pool_every(3),
    ] {
        let device = Device::flex();
        device.seed(3);
        let (burn, natives) = both(&InferenceModel::random(&cfg, &device));
        let planes = random_batch(&cfg, 257, 9).planes;
        for native in &natives {
            for batch in [1, 8, 64, 257] {
                let (p, v) = compare(&burn, native, &planes[..batch * cfg.input_len()], batch);
                assert!(
                    p < TOLERANCE && v < TOLERANCE,
                    "{} channels, {}, batch {batch}: policy {p}, wdl {v}",
                    cfg.channels,
                    native.level()
                );
            }
        }
    }
}

/// The trained sample network (`checkpoints/sample-2x32.fnm`) on `backend`.
fn sample_network(backend: Backend) -> InferenceModel {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../checkpoints/sample-2x32.fnm");
    let (model, _) = load_exported(&path, backend).unwrap();
    assert_eq!(model.backend(), backend);
    model
}

/// The evaluation requests of `states` (positions with their legal actions).
fn requests_of(states: &[(FanoronaState, Vec<Action>)]) -> Vec<EvalRequest<'_, FanoronaState>> {
    states
        .iter()
        .map(|(s, l)| EvalRequest { state: s, legal: l })
        .collect()
}

#[test]
fn the_trained_sample_network_matches_burn_on_real_positions() {
    let model = sample_network(Backend::Native);
    let (burn, natives) = both(&model);
    let states = sample_states(200, 11);
    let requests = requests_of(&states);
    let planes = encode_batch(&requests);
    let input = model.config().input_len();
    for native in &natives {
        for batch in [1, 13, 64, 200] {
            let (p, v) = compare(&burn, native, &planes[..batch * input], batch);
            assert!(
                p < TOLERANCE && v < TOLERANCE,
                "{}, batch {batch}: policy {p}, wdl {v}",
                native.level()
            );
        }
    }
    // Through the model itself, on the default backend.
    let (a, b) = model.forward(&planes, 200);
    let (c, d) = burn.forward(&planes, 200);
    assert!(largest_difference(&a, &c) < TOLERANCE && largest_difference(&b, &d) < TOLERANCE);
}

#[test]
fn the_int8_backend_stays_near_burn_on_real_positions() {
    let model = sample_network(Backend::Int8);
    let burn = model.clone().with_backend(Backend::Burn).unwrap();
    let states = sample_states(200, 11);
    let requests = requests_of(&states);
    let planes = encode_batch(&requests);
    let (policy, wdl) = model.forward(&planes, 200);
    let (exact_policy, exact_wdl) = burn.forward(&planes, 200);
    let p = largest_difference(&policy, &exact_policy);
    let v = largest_difference(&wdl, &exact_wdl);
    // Near the float network, and not equal to it (the 8-bit tower really ran).
    assert!(v < 0.05 && p > TOLERANCE, "policy {p}, wdl {v}");
    let top = |logits: &[f32], legal: &[usize]| {
        legal
            .iter()
            .copied()
            .max_by(|&a, &b| logits[a].total_cmp(&logits[b]))
    };
    let same = requests
        .iter()
        .enumerate()
        .filter(|(i, r)| {
            let row = i * POLICY_SIZE..(i + 1) * POLICY_SIZE;
            let side = r.state.position().side_to_move();
            let legal: Vec<usize> = r
                .legal
                .iter()
                .map(|&a| fanorona_net::encoding::action_index(a, side))
                .collect();
            top(&policy[row.clone()], &legal) == top(&exact_policy[row], &legal)
        })
        .count();
    assert!(
        same >= 194,
        "the same preferred turn in {same} of 200 positions"
    );
}

#[test]
fn the_backend_switches_both_ways() {
    let cfg = NetConfig::new().with_blocks(1).with_channels(8);
    let model = InferenceModel::random(&cfg, &Device::flex());
    assert_eq!(model.backend(), Backend::Native);
    assert!(model.native().is_some());
    let burn = model.clone().with_backend(Backend::Burn).unwrap();
    assert_eq!(burn.backend(), Backend::Burn);
    let again = burn.with_backend(Backend::Native).unwrap();
    assert_eq!(again.backend(), Backend::Native);
    let int8 = again.with_backend(Backend::Int8).unwrap();
    assert_eq!(int8.backend(), Backend::Int8);
    assert_eq!(
        int8.native().map(|n| n.precision()),
        Some(fanorona_infer::Precision::Int8)
    );
    assert_eq!(
        int8.with_backend(Backend::Native).unwrap().backend(),
        Backend::Native
    );
    assert_eq!("burn".parse::<Backend>(), Ok(Backend::Burn));
    assert!("onnx".parse::<Backend>().is_err());
    // Bad batch buffers are errors on the native path as on burn's.
    assert!(model.try_forward(&[0.0; 3], 1).is_err());
}
