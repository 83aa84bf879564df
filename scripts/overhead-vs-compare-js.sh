#!/usr/bin/env bash
# Runs Node's benchmark/compare.js and `benchdiff compare` on the same files, binaries and
# runs, one after the other, and prints the wall-time ratio benchdiff ÷ compare.js.
# benchdiff's own overhead should keep the ratio at or below 1.0.
#
# usage: scripts/overhead-vs-compare-js.sh OLD_NODE NEW_NODE BENCHMARK_DIR RUNS [ARGS...] -- CATEGORY...
#   BENCHMARK_DIR  a Node checkout's benchmark/ folder (holds compare.js and common.js);
#                  nothing is copied from it.
#   ARGS           options both tools understand: --filter S, --exclude S, --set K=V
#   env NODE       the node that runs compare.js (default: node from PATH)
#   env BENCHDIFF  the benchdiff binary (default: target/release/benchdiff, built if missing)
#   env REPEAT     alternate the two tools this many times (default 1); ratios of the sums
#
# example:
#   scripts/overhead-vs-compare-js.sh nodes/n22/package/bin/node nodes/n24/package/bin/node \
#     node/benchmark 5 --set n=1000 --set loop=10 --filter next-tick-loop -- process
set -euo pipefail

if [ $# -lt 6 ]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
old=$1 new=$2 bench=$3 runs=$4
shift 4
args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
cats=("$@")
[ ${#cats[@]} -gt 0 ] || { echo "no CATEGORY given (after --)" >&2; exit 2; }
[ -f "$bench/compare.js" ] || { echo "$bench/compare.js not found" >&2; exit 2; }

here=$(cd "$(dirname "$0")/.." && pwd)
node=${NODE:-node}
benchdiff=${BENCHDIFF:-$here/target/release/benchdiff}
if [ ! -x "$benchdiff" ]; then
  (cd "$here" && cargo build --release --quiet)
fi
repeat=${REPEAT:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
total_js=0 total_bd=0
for i in $(seq 1 "$repeat"); do
  t0=$(now)
  "$node" "$bench/compare.js" --old "$old" --new "$new" --runs "$runs" "${args[@]}" \
    -- "${cats[@]}" > "$tmp/compare-js.csv" 2> "$tmp/compare-js.err" \
    || { echo "compare.js failed:" >&2; cat "$tmp/compare-js.err" >&2; exit 1; }
  t1=$(now)
  "$benchdiff" compare --old "$old" --new "$new" --runs "$runs" --order node --no-progress \
    --benchmark-dir "$bench" --results "$tmp/benchdiff-$i.jsonl" "${args[@]}" \
    -- "${cats[@]}" > "$tmp/benchdiff.csv" 2> "$tmp/benchdiff.err" \
    || { echo "benchdiff failed:" >&2; cat "$tmp/benchdiff.err" >&2; exit 1; }
  t2=$(now)
  js=$(echo "$t1 - $t0" | bc -l) bd=$(echo "$t2 - $t1" | bc -l)
  rows_js=$(($(wc -l < "$tmp/compare-js.csv") - 1))
  rows_bd=$(($(wc -l < "$tmp/benchdiff.csv") - 1))
  printf 'round %d: compare.js %.3f s (%d rows), benchdiff %.3f s (%d rows), ratio %.3f\n' \
    "$i" "$js" "$rows_js" "$bd" "$rows_bd" "$(echo "$bd / $js" | bc -l)"
  total_js=$(echo "$total_js + $js" | bc -l)
  total_bd=$(echo "$total_bd + $bd" | bc -l)
done
printf 'wall time: compare.js %.3f s, benchdiff %.3f s; ratio benchdiff/compare.js = %.3f\n' \
  "$total_js" "$total_bd" "$(echo "$total_bd / $total_js" | bc -l)"
