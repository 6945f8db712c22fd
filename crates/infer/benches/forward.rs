//! Forward-pass throughput of the native network, default shape (4 x 48) and 6 x 64, per
//! kernel level, precision of the tower (`avx2` floats, `avx2-int8` 8-bit) and batch size. `fanorona bench-net` compares it with burn in one run.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fanorona_infer::testing::{Shape, random_planes, random_weights};
use fanorona_infer::{NativeNet, Precision, SimdLevel};

fn forward(c: &mut Criterion) {
    for (blocks, channels) in [(4, 48), (6, 64)] {
        let weights = random_weights(&Shape::new(16, blocks, channels), 1);
        let mut group = c.benchmark_group(format!("forward_{blocks}x{channels}"));
        let variants = SimdLevel::available()
            .into_iter()
            .flat_map(|level| [(level, Precision::F32), (level, Precision::Int8)]);
        for (level, precision) in variants {
            let net = NativeNet::new(&weights)
                .unwrap()
                .with_level(level)
                .unwrap()
                .with_precision(precision);
            let name = match precision {
                Precision::F32 => level.name().to_string(),
                Precision::Int8 => format!("{level}-int8"),
            };
            for batch in [1usize, 8, 64, 256] {
                let planes = random_planes(16, batch, 2);
                let mut policy = vec![0.0; batch * net.policy_size()];
                let mut wdl = vec![0.0; batch * 3];
                // A fast but wrong forward pass must not pass: the WDL rows are distributions.
                net.forward(&planes, batch, &mut policy, &mut wdl).unwrap();
                assert!(
                    wdl.chunks(3)
                        .all(|p| (p.iter().sum::<f32>() - 1.0).abs() < 1e-4),
                    "{name} batch {batch}: win/draw/loss rows do not sum to 1"
                );
                group.throughput(Throughput::Elements(batch as u64));
                group.bench_function(BenchmarkId::new(&name, batch), |b| {
                    b.iter(|| net.forward(&planes, batch, &mut policy, &mut wdl).unwrap())
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, forward);
criterion_main!(benches);
