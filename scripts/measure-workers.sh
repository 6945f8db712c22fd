#!/usr/bin/env bash
# Self-play games/s of 1, 2 and 3 `fanorona selfplay` worker processes sharing one run in a
# bucket of an s3s-fs server on loopback (the README's "Training across machines" figures).
# Needs target/release/fanorona and s3s-fs ($FANORONA_S3S_FS, or the one scripts/test.sh
# installs). Each measurement: a trainer creates the run and publishes its first network, then
# N workers play QUOTA games each of generation 0; the time runs from their start until every
# game is in the bucket.
set -euo pipefail
cd "$(dirname "$0")/.."
S3S="${FANORONA_S3S_FS:-$PWD/target/tools/s3s-fs-0.14.1/bin/s3s-fs}"
DATA="$(mktemp -d)"
mkdir -p "$DATA/s3/runs"
PORT=9311
"$S3S" --host 127.0.0.1 --port $PORT --access-key measure --secret-key measure-secret "$DATA/s3" >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
sleep 1
export AWS_ACCESS_KEY_ID=measure AWS_SECRET_ACCESS_KEY=measure-secret
export AWS_ENDPOINT_URL=http://127.0.0.1:$PORT FANORONA_CACHE_DIR="$DATA/cache"
F=target/release/fanorona
QUOTA="${QUOTA:-96}"
sed "s/^games_per_generation = .*/games_per_generation = $QUOTA/; s/^name = .*/name = \"measure\"/" configs/default.toml > "$DATA/measure.toml"
for rep in ${REPS:-1 2}; do
for N in 1 2 3; do
  RUN=meas-$N-$rep
  rm -rf "$DATA/cache"
  $F train --config "$DATA/measure.toml" --run-dir s3://runs/$RUN --no-selfplay > "$DATA/train.log" 2>&1 &
  T=$!
  until [ -n "$(ls $DATA/s3/runs/$RUN/checkpoints 2>/dev/null)" ]; do sleep 0.2; done
  kill -INT $T; wait $T || true
  start=$(date +%s.%N)
  pids=()
  for i in $(seq 1 $N); do $F selfplay --run-dir s3://runs/$RUN --worker w$i > "$DATA/w$i.log" 2>&1 & pids+=($!); done
  while :; do
    games=$(ls "$DATA/s3/runs/$RUN/selfplay" 2>/dev/null | sed -n 's/.*-n0*\([0-9]*\)\.shard/\1/p' | paste -sd+ | bc || true)
    [ "${games:-0}" -ge $((N*QUOTA)) ] && break
    sleep 0.2
  done
  end=$(date +%s.%N)
  kill -INT "${pids[@]}"; wait "${pids[@]}" || true
  echo "workers $N rep $rep: $((N*QUOTA)) games in $(echo "$end - $start" | bc) s: $(echo "scale=2; $N*$QUOTA/($end - $start)" | bc) games/s"
done
done
