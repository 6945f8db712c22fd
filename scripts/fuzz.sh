#!/usr/bin/env bash
# Runs every fuzz target (see crates/testkit/src/fuzz.rs) with many more cases than the normal
# test command gives them, from a fresh seed each time.
#
#   scripts/fuzz.sh [CASES]        (default 20000 cases per target)
#   FANORONA_FUZZ_SEED=S scripts/fuzz.sh   replays a run: a failure prints its case's seed
set -euo pipefail
cd "$(dirname "$0")/.."

export FANORONA_FUZZ_CASES="${1:-20000}"
export FANORONA_FUZZ_SEED="${FANORONA_FUZZ_SEED:-$(date +%s)}"
echo "fuzzing: $FANORONA_FUZZ_CASES cases per target, seed $FANORONA_FUZZ_SEED"

run() { echo; echo "==> $*"; cargo test --locked "$@" -- --nocapture; }
run -p fanorona-engine --test fuzz          # positions, steps, turns
run -p fanorona-data --test fuzz            # the checksummed container
run -p fanorona-tablebase --test fuzz       # table files (valid checksums over bad contents)
run -p fanorona-net --lib fuzz_             # model files
run -p fanorona-train --lib fuzz_           # shards and config files
run -p fanorona --bin fanorona fuzz_        # the engine protocol
run -p fanorona-serve --test fuzz           # the HTTP API
echo
echo "no fuzz target failed"
