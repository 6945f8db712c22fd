#!/usr/bin/env bash
# The GPU check (issue 31): burn's wgpu backend over Vulkan, the GPU path that builds from
# crates.io alone. Two halves, because the machines with a GPU have no Rust toolchain and
# reach nothing outside:
#
#   scripts/gpu-check.sh build   here: builds the release binary with `--features wgpu` into
#                                gpu-bin/fanorona and downloads the Vulkan loader packages into
#                                .gl/ (both ignored by git)
#   scripts/gpu-check.sh run     on the GPU machine (the device tool's `run`, carrying gpu-bin
#                                and .gl): unpacks the loader, then writes to $OUT (default
#                                gpu-check-out/) bench-net's CPU and GPU figures (evaluations/s
#                                at batch 256 and 1024, training samples/s) and a few minutes of
#                                `train --config configs/gpu.toml`
#
# Device tool call, about 6 minutes of its 15:
#   run(command="scripts/gpu-check.sh run", carry=["gpu-bin", ".gl"], timeout_s=480)
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
build)
  cargo build --release -p fanorona --features wgpu --locked
  mkdir -p gpu-bin
  cp target/release/fanorona gpu-bin/fanorona
  grep -qxF '/gpu-bin/' .git/info/exclude 2>/dev/null || echo /gpu-bin/ >>.git/info/exclude
  grep -qxF '/.gl/' .git/info/exclude 2>/dev/null || echo /.gl/ >>.git/info/exclude
  if [ ! -d .gl ] || [ -z "$(ls .gl/*.deb 2>/dev/null)" ]; then
    mkdir -p .gl /tmp/amd64/partial
    o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
    # shellcheck disable=SC2086
    apt-get $o update
    # shellcheck disable=SC2086
    (cd .gl && apt-get $o download libvulkan1)
  fi
  ls -l gpu-bin/fanorona .gl
  ;;
run)
  out="${OUT:-gpu-check-out}"
  mkdir -p "$out"
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  fi
  bin=gpu-bin/fanorona
  nvidia-smi >"$out/nvidia-smi.txt" 2>&1 || true
  # The CPU's figures and the GPU's, one run, the default network and the GPU config's.
  timeout 150 "$bin" bench-net --seconds 2 --device wgpu >"$out/bench-default.txt" 2>&1 || true
  timeout 150 "$bin" bench-net --config configs/gpu.toml --seconds 2 --train-batch 1024 \
    --device wgpu >"$out/bench-gpu-config.txt" 2>&1 || true
  # A few minutes of training with the network on the GPU.
  timeout 200 "$bin" train --config configs/gpu.toml --run-dir /tmp/gpu-run --minutes 3 \
    >"$out/train.txt" 2>&1 || true
  tail -n 40 "$out"/*.txt
  ;;
*)
  echo "usage: scripts/gpu-check.sh build|run" >&2
  exit 2
  ;;
esac
