#!/usr/bin/env bash
# Runs every fuzz target (see crates/testkit/src/fuzz.rs; each is a test named `fuzz_*`) with
# many more cases than the normal test command gives them, from a fresh seed each time.
#
#   scripts/fuzz.sh [CASES]                 (default 20000 cases per target)
#   FANORONA_FUZZ_SEED=S scripts/fuzz.sh    replays a run: a failure prints its case's seed
#
# The targets: positions, steps and turns (engine); the checksummed container (data); table
# files, model files and shards with valid checksums over mutated contents (tablebase, net,
# train); config files (train); engine protocol sessions (cli); HTTP requests (serve).
set -euo pipefail
cd "$(dirname "$0")/.."

export FANORONA_FUZZ_CASES="${1:-20000}"
export FANORONA_FUZZ_SEED="${FANORONA_FUZZ_SEED:-$(date +%s)}"
echo "fuzzing: $FANORONA_FUZZ_CASES cases per target, seed $FANORONA_FUZZ_SEED"
# The whole workspace at once, as scripts/test.sh builds it, so nothing is compiled twice.
cargo test --workspace --all-targets --locked -- fuzz_ --nocapture
echo
echo "no fuzz target failed"
