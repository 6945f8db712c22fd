#!/usr/bin/env bash
# The start position's value under this project's rules, proven in parts and joined into one
# certificate that the checker confirms (docs/solve.md, "The start position, split").
#
#   1. The start position, both questions at once: "White does not lose" is proven; the "White
#      wins" search, stopped at the budget, is saved to seed step 2.
#   2. After each of White's five first turns, "Black does not lose" (one question, one core),
#      two positions at a time, each seeded by step 1's saved search.
#   3. The parts joined into one certificate of the start position and checked with the engine
#      and the tables alone: both sides do not lose, so the value is a draw.
#
# Needs the seven-stone tables (`fanorona tablebase build --stones 7 --out tablebases7`, about
# 21 minutes on two cores). Every step has been run on a 2-vCPU AVX2 EPYC, the two hard parts
# by hand with these commands (docs/solve.md, "The start position's draw in one certificate"):
# step 1 30-45 minutes, the parts `d3e3a` and `f2e3a` 80 and 94 minutes of search each plus
# their readings, the join and its check 27 minutes. Memory: each search about MEMORY plus
# 2 GiB for the tables, two at a time, and the readings of the two hard parts add about 5 GB
# each; the join held 23.1 GB at its peak before the check marked the proving side's
# positions by bits (a7b624b: about 8-10 GB expected, not measured yet; step 3 prints its peak).
# A part whose certificate is already in OUT is skipped, so a stopped run goes on where it was.
#
# Environment: FANORONA (the binary; built when missing), TABLES (tablebases7), OUT
# (runs/solve-start), MEMORY (MiB for each search at a time, 6144), MINUTES (each step's
# budget, 150: `f2e3a` took 94 minutes of search on the AVX2 EPYC, and a part stopped by the
# budget starts again from its seed), FIRST_MINUTES (step 1's budget, 45: 30 proved White's
# half on a Zen 5 and did not on an AVX2 EPYC at half its speed, docs/solve.md).
set -euo pipefail
cd "$(dirname "$0")/.."

FANORONA=${FANORONA:-target/release/fanorona}
TABLES=${TABLES:-tablebases7}
OUT=${OUT:-runs/solve-start}
MEMORY=${MEMORY:-6144}
MINUTES=${MINUTES:-150}
FIRST_MINUTES=${FIRST_MINUTES:-45}

if [ ! -x "$FANORONA" ]; then
  cargo build --release -p fanorona
fi
if [ ! -d "$TABLES" ]; then
  echo "no tables in $TABLES: build them with \`$FANORONA tablebase build --stones 7 --out $TABLES\`" >&2
  exit 1
fi
mkdir -p "$OUT"
common=(--tablebases "$TABLES" --every 60)

# 1. White does not lose; the win search's state seeds the parts.
if [ ! -f "$OUT/start.fnproof" ]; then
  "$FANORONA" solve "${common[@]}" --memory $((2 * MEMORY)) --minutes "$FIRST_MINUTES" \
    --state "$OUT/start.fnsv" --certificate "$OUT/start.fnproof" 2>&1 | tee "$OUT/start.txt"
fi

# 2. Black does not lose after each of White's first turns, two at a time. No --state: saving
# a part's whole table costs about 40 bytes a solved position on top of the table itself.
part() {
  local turn=$1
  [ -f "$OUT/$turn.fnproof" ] && return 0
  "$FANORONA" solve "${common[@]}" --after "$turn" --question not-lose --memory "$MEMORY" \
    --minutes "$MINUTES" --seed "$OUT/start.fnsv" --certificate "$OUT/$turn.fnproof" \
    > "$OUT/$turn.txt" 2>&1 || true
  tail -n 4 "$OUT/$turn.txt"
}
export -f part
export FANORONA TABLES OUT MEMORY MINUTES
export common_joined="${common[*]}"
turns=$("$FANORONA" perft 1 --divide | awk 'NF == 2 && $1 != "perft" && $1 != "turns" { print $1 }')
printf '%s\n' $turns | xargs -P 2 -I{} bash -c 'common=($common_joined); part {}'

# 3. Joined and checked.
if [ ! -f "$OUT/start.fnproof" ]; then
  echo "the start position: White not losing is not proven within the budget; run again to go on (step 1 resumes from $OUT/start.fnsv)" >&2
  exit 1
fi
parts=("$OUT/start.fnproof")
for turn in $turns; do
  if [ ! -f "$OUT/$turn.fnproof" ]; then
    echo "after $turn: Black not losing is not proven within the budget; run again to go on" >&2
    exit 1
  fi
  parts+=("$OUT/$turn.fnproof")
done
# Its time and peak memory (issue 44's targets) with GNU time where the machine has it.
timed=()
if [ -x /usr/bin/time ]; then timed=(/usr/bin/time -f "join and check: %e s, peak resident %M KB"); fi
"${timed[@]}" "$FANORONA" solve --tablebases "$TABLES" --join "${parts[@]}" \
  --certificate "$OUT/draw.fnproof"
