#!/usr/bin/env bash
# Per-run overhead of benchdiff's command runner against hyperfine on the same trivial command:
# both run CMD (default /bin/true) RUNS times with no shell (benchdiff: RUNS/2 per side), in
# ROUNDS alternating rounds (benchdiff, hyperfine, and the posix_spawn+waitpid floor of
# benches/spawn_floor.rs when it is built), and the script prints, per run,
#   - each tool's whole wall time divided by the runs (start-up, spawn, wait, measure, record:
#     everything; this is the figure compared), minimum and median over the rounds,
#   - the per-run time each tool itself measured (hyperfine's mean; benchdiff's mean wall_s),
#   - benchdiff's fixed start-up cost (a 1-run invocation: machine checks, files) and its
#     per-run overhead above the floor.
# The machine is shared, so the minimum over rounds is the figure least disturbed by others.
# Exits 1 when benchdiff's minimum per-run wall time is above hyperfine's.
#
# usage: scripts/overhead-vs-hyperfine.sh [RUNS=1000] [CMD=/bin/true]
#   env ROUNDS     alternating rounds (default 5), each RUNS runs per tool
#   env BENCHDIFF  the benchdiff binary (default: target/release/benchdiff, built if missing)
#   env FLOOR      the spawn_floor bench binary (default: newest target/release/deps/spawn_floor-*)
#   needs hyperfine (Debian: apt-get install -y hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000}
cmd=${2:-/bin/true}
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install -y hyperfine)" >&2; exit 2; }
bd=${BENCHDIFF:-target/release/benchdiff}
[ -x "$bd" ] || cargo build --release --quiet
floor=${FLOOR:-$(ls -t target/release/deps/spawn_floor-* 2>/dev/null | grep -v '\.d$' | head -1 || true)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
rounds=${ROUNDS:-5}
half=$((runs / 2))
: > "$tmp/times"
bench() { # $1 = runs per side, $2 = file stem
  "$bd" compare --old "$cmd" --new "$cmd" --bench '' --runs "$1" --order node --no-progress \
    --csv "$tmp/$2.csv" --results "$tmp/$2.jsonl" >/dev/null 2>"$tmp/b.err" || { cat "$tmp/b.err" >&2; exit 2; }
}
for r in $(seq 1 "$rounds"); do
  t0=$(now); bench "$half" "b$r"; t1=$(now)
  hyperfine -N --style none --runs "$runs" --export-json "$tmp/h$r.json" "$cmd" >/dev/null 2>"$tmp/h.err" \
    || { cat "$tmp/h.err" >&2; exit 2; }
  t2=$(now)
  if [ -n "$floor" ] && [ -x "$floor" ]; then "$floor" "$runs" "$cmd" --floor-only >/dev/null; fi
  t3=$(now)
  s0=$(now); bench 1 "s$r"; s1=$(now)
  echo "$t0 $t1 $t2 $t3 $s0 $s1" >> "$tmp/times"
done

python3 - "$runs" "$tmp" "$rounds" "${floor:-}" <<'PY'
import json, statistics, sys
n, tmp, rounds, floor = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
b_tot, h_tot, f_tot, b_own, h_own, fixed = [], [], [], [], [], []
for r, line in enumerate(open(f"{tmp}/times"), 1):
    t0, t1, t2, t3, s0, s1 = map(float, line.split())
    b_tot.append((t1 - t0) / n * 1e3)
    h_tot.append((t2 - t1) / n * 1e3)
    f_tot.append((t3 - t2) / n * 1e3)
    fixed.append((s1 - s0) * 1e3)
    walls = [x["wall_s"] for x in map(json.loads, open(f"{tmp}/b{r}.jsonl")) if x.get("type") == "command-job"]
    b_own.append(statistics.mean(walls) * 1e3)
    h_own.append(json.load(open(f"{tmp}/h{r}.json"))["results"][0]["mean"] * 1e3)
med = statistics.median
print(f"{rounds} alternating rounds x {n} runs of the same command per tool, no shell; per run, min / median over rounds")
print(f"benchdiff  whole tool wall / runs: {min(b_tot):.3f} / {med(b_tot):.3f} ms   own measure (mean wall_s): {min(b_own):.3f} / {med(b_own):.3f} ms")
print(f"hyperfine  whole tool wall / runs: {min(h_tot):.3f} / {med(h_tot):.3f} ms   own measure (mean):        {min(h_own):.3f} / {med(h_own):.3f} ms")
if floor:
    print(f"floor      posix_spawn+waitpid / runs: {min(f_tot):.3f} / {med(f_tot):.3f} ms")
    print(f"overhead above the floor per run: benchdiff {min(b_tot) - min(f_tot):.3f} ms, hyperfine {min(h_tot) - min(f_tot):.3f} ms (minima)")
print(f"benchdiff fixed start-up (1 run per side, whole tool): {min(fixed):.0f} / {med(fixed):.0f} ms")
print(f"ratio benchdiff / hyperfine: {min(b_tot) / min(h_tot):.2f} (minima), {med(b_tot) / med(h_tot):.2f} (medians)")
sys.exit(0 if min(b_tot) <= min(h_tot) else 1)
PY
