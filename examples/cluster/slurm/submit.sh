#!/usr/bin/env bash
# Submits a sharded benchdiff comparison to Slurm (examples/cluster/): bench-array.sbatch as a job
# array of SHARDS tasks, then merge.sbatch with --dependency=afterok on the array, so the merge
# runs once every shard has succeeded (if a shard fails, the merge never runs: with
# DependencyParameters=kill_invalid_depend Slurm cancels it, otherwise it stays pending).
#
# Usage: [VARIABLE=value …] submit.sh [extra sbatch options for both jobs, e.g. --partition=bench]
#   BENCHDIFF      the benchdiff binary, as the nodes see it               (default: benchdiff)
#   OUT            shared output folder (made absolute)                    (default: ./benchdiff-cluster)
#   SHARDS         array tasks N                                           (default: 4)
#   MAX_PARALLEL   at most this many tasks at once (--array=1-N%M)         (default: no limit)
#   RUNS           runs per binary and configuration                       (default: 30)
#   SPLIT          benchmarks | runs                                       (default: benchmarks)
#   SEED           the plan's seed, one for all shards                     (default: random)
#   EXCLUSIVE      1: each task gets a whole node (quiet benchmarks); 0: shares it (default: 1)
#   the benchmark: SUITE=FILE | OLD, NEW and BENCH='ARGS' | OLD, NEW, BENCHMARK_DIR [, CATEGORIES]
#   BENCHDIFF_ARGS extra compare options (split on spaces)
# Prints the job ids and writes them to $OUT/jobs.env (ARRAY_ID=…, MERGE_ID=…).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

export BENCHDIFF=${BENCHDIFF:-benchdiff}
OUT=${OUT:-benchdiff-cluster}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
export OUT
export SHARDS=${SHARDS:-4}
export RUNS=${RUNS:-30}
export SPLIT=${SPLIT:-benchmarks}
export SEED=${SEED:-$(((RANDOM << 30) | (RANDOM << 15) | RANDOM))}
EXCLUSIVE=${EXCLUSIVE:-1}

die() {
  echo "submit.sh: $*" >&2
  exit 2
}
[[ $SHARDS =~ ^[1-9][0-9]*$ ]] || die "SHARDS must be a positive integer (got '$SHARDS')"
[[ -z ${MAX_PARALLEL:-} || $MAX_PARALLEL =~ ^[1-9][0-9]*$ ]] || die "MAX_PARALLEL must be a positive integer"
case $SPLIT in benchmarks | runs) ;; *) die "SPLIT must be benchmarks or runs (got '$SPLIT')" ;; esac
if [ -z "${SUITE:-}" ]; then
  [ -n "${OLD:-}" ] && [ -n "${NEW:-}" ] || die "set SUITE=FILE, or OLD and NEW with BENCH or BENCHMARK_DIR"
  [ -n "${BENCH+x}" ] || [ -n "${BENCHMARK_DIR:-}" ] || die "set BENCH (a command benchmark) or BENCHMARK_DIR (Node-format files)"
fi
export SUITE=${SUITE:-} OLD=${OLD:-} NEW=${NEW:-} BENCHMARK_DIR=${BENCHMARK_DIR:-}
export CATEGORIES=${CATEGORIES:-} BENCHDIFF_ARGS=${BENCHDIFF_ARGS:-}
[ -z "${BENCH+x}" ] || export BENCH

mkdir -p "$OUT/logs"
node_opts=()
if [ "$EXCLUSIVE" = 1 ]; then node_opts+=(--exclusive); fi

array_id=$(sbatch --parsable --export=ALL "${node_opts[@]}" \
  --array="1-$SHARDS${MAX_PARALLEL:+%$MAX_PARALLEL}" \
  --output="$OUT/logs/shard-%a.out" "$@" "$here/bench-array.sbatch")
array_id=${array_id%%;*}
merge_id=$(sbatch --parsable --export=ALL --dependency="afterok:$array_id" \
  --output="$OUT/logs/merge.out" "$@" "$here/merge.sbatch")
merge_id=${merge_id%%;*}

printf 'ARRAY_ID=%s\nMERGE_ID=%s\n' "$array_id" "$merge_id" >"$OUT/jobs.env"
echo "submitted: array job $array_id ($SHARDS shards, split $SPLIT, seed $SEED), merge job $merge_id"
echo "shard logs: $OUT/logs/shard-K.out; report when the merge is done: $OUT/report.md"
