//! Forward-pass throughput of the native network, default shape (4 x 48) and 6 x 64, per
//! kernel level and batch size. `fanorona bench-net` compares it with burn in one run.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fanorona_infer::testing::{Shape, random_planes, random_weights};
use fanorona_infer::{NativeNet, SimdLevel};

fn forward(c: &mut Criterion) {
    for (blocks, channels) in [(4, 48), (6, 64)] {
        let weights = random_weights(&Shape::new(16, blocks, channels), 1);
        let mut group = c.benchmark_group(format!("forward_{blocks}x{channels}"));
        for level in SimdLevel::available() {
            let net = NativeNet::new(&weights).unwrap().with_level(level).unwrap();
            for batch in [1usize, 8, 64, 256] {
                let planes = random_planes(16, batch, 2);
                let mut policy = vec![0.0; batch * net.policy_size()];
                let mut wdl = vec![0.0; batch * 3];
                // A fast but wrong forward pass must not pass: the WDL rows are distributions.
                net.forward(&planes, batch, &mut policy, &mut wdl).unwrap();
                assert!(
                    wdl.chunks(3)
                        .all(|p| (p.iter().sum::<f32>() - 1.0).abs() < 1e-4),
                    "{level} batch {batch}: win/draw/loss rows do not sum to 1"
                );
                group.throughput(Throughput::Elements(batch as u64));
                group.bench_function(BenchmarkId::new(level.name(), batch), |b| {
                    b.iter(|| net.forward(&planes, batch, &mut policy, &mut wdl).unwrap())
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, forward);
criterion_main!(benches);
