#!/usr/bin/env bash
# Record registry fuzz seeds with both CLIs into OUT (default /tmp/fuzzreg) and compare them with the engine.
#   bash tests/oracle/fuzz_registry_campaign.sh FIRST LAST [OUT] [JOBS]
# Needs root (run_oracle.sh). Recordings stay outside the tree; commit a few with record.py --name fuzz-reg-N.
set -u
cd "$(dirname "$0")/../.."
FIRST=$1; LAST=$2; OUT=${3:-/tmp/fuzzreg}; JOBS=${4:-4}
mkdir -p "$OUT"
rec() {
  seed=$1; profile=$2; out=$3
  args=$(python3 tests/oracle/fuzz_registry.py --record-args "$seed")
  eval "python3 tests/oracle/record.py fuzz-reg --fixture-env FUZZ_SEED=$seed $args --profile $profile \
        --name ../../../../$out/$seed" >"$out/$seed.$profile.log" 2>&1
}
export -f rec
for s in $(seq "$FIRST" "$LAST"); do for p in legacy current; do echo "$s $p"; done; done |
  xargs -P "$JOBS" -n 2 bash -c 'rec "$0" "$1" '"$OUT"
ls "$OUT"/*/*.json | sort -V | xargs /work/venv312/bin/python -m tests.test_registry_fuzz
