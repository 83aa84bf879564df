#!/usr/bin/env bash
# Per-run overhead of benchdiff's command runner against hyperfine on the same trivial command:
# both run CMD (default `true`) RUNS times with no shell, and the script prints, per run,
#   - the whole tool's wall time divided by the runs (spawn, wait, measure, record: overhead
#     included; this is the figure compared), and
#   - the per-run time each tool itself measured (hyperfine's mean; benchdiff's mean wall_s).
# Exits 1 when benchdiff's per-run wall time is above hyperfine's.
#
# usage: scripts/overhead-vs-hyperfine.sh [RUNS=1000] [CMD=true]
#   env ROUNDS     alternate the tools this many times (default 5)
#   env BENCHDIFF  the benchdiff binary (default: target/release/benchdiff, built if missing)
#   needs hyperfine (Debian: apt-get install -y hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000}
cmd=${2:-true}
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install -y hyperfine)" >&2; exit 2; }
bd=${BENCHDIFF:-target/release/benchdiff}
[ -x "$bd" ] || cargo build --release --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }

# The machine's load drifts, so the two tools alternate in ROUNDS rounds (default 5) of RUNS/ROUNDS
# runs each, and the per-run figures are medians over the rounds.
rounds=${ROUNDS:-5}
chunk=$((runs / rounds / 2 * 2))
[ "$chunk" -ge 2 ] || chunk=2
: > "$tmp/times"
for r in $(seq 1 "$rounds"); do
  t0=$(now)
  "$bd" compare --old "$cmd" --new "$cmd" --bench '' --runs "$((chunk / 2))" --order node --no-progress \
    --csv "$tmp/b$r.csv" --results "$tmp/b$r.jsonl" >/dev/null 2>"$tmp/b.err" || { cat "$tmp/b.err" >&2; exit 2; }
  t1=$(now)
  hyperfine -N --style none --runs "$chunk" --export-json "$tmp/h$r.json" "$cmd" >/dev/null 2>"$tmp/h.err" \
    || { cat "$tmp/h.err" >&2; exit 2; }
  t2=$(now)
  echo "$t0 $t1 $t2" >> "$tmp/times"
done

python3 - "$chunk" "$tmp" "$rounds" <<'PY'
import json, statistics, sys
n, tmp, rounds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
b_tot, h_tot, b_own, h_own = [], [], [], []
for r, line in enumerate(open(f"{tmp}/times"), 1):
    t0, t1, t2 = map(float, line.split())
    b_tot.append((t1 - t0) / n * 1e3)
    h_tot.append((t2 - t1) / n * 1e3)
    walls = [x["wall_s"] for x in map(json.loads, open(f"{tmp}/b{r}.jsonl")) if x.get("type") == "command-job"]
    b_own.append(statistics.mean(walls) * 1e3)
    h_own.append(json.load(open(f"{tmp}/h{r}.json"))["results"][0]["mean"] * 1e3)
med = statistics.median
print(f"{rounds} alternating rounds x {n} runs of the same command per tool, no shell; medians over rounds")
print(f"benchdiff  per run (whole tool wall / runs): {med(b_tot):.3f} ms   own measure (mean wall_s): {med(b_own):.3f} ms")
print(f"hyperfine  per run (whole tool wall / runs): {med(h_tot):.3f} ms   own measure (mean):        {med(h_own):.3f} ms")
print(f"ratio benchdiff / hyperfine: {med(b_tot) / med(h_tot):.2f}")
sys.exit(0 if med(b_tot) <= med(h_tot) else 1)
PY
