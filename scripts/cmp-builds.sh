#!/usr/bin/env bash
# Byte-for-byte comparison of two benchdiff builds' reports: stdout, stderr and exit code of
# `benchdiff report` in every format, with the samples in memory and with `--memory-limit 1`
# (the bounded-memory read), on every file under tests/data (oracle, cases, columns, results,
# harness), a few multi-file reports, and optionally the large generated inputs of
# benches/report_large.rs (`--data DIR` holding report-1m.csv, report-1m.go,
# results-217mb.jsonl). Prints one line per difference and a count; exits 1 when any differ.
# Usage: scripts/cmp-builds.sh OLD_BINARY NEW_BINARY [--data DIR] [--only-large]
set -uo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2
shift 2
data="" only_large=0
while [ $# -gt 0 ]; do
  case $1 in
    --data) data=$2; shift 2 ;;
    --only-large) only_large=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
formats="r table analyze markdown json html csv benchstat go"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runs=0 diffs=0

# Runs `report ARGS…` under both builds and compares what they give.
check() {
  local label=$*
  for side in old new; do
    local bin=$old
    [ $side = new ] && bin=$new
    (cd "$work" && "$bin" report "$@" >"$side.out" 2>"$side.err"; echo $? >"$side.code") </dev/null
    for f in "$work"/*.svg; do [ -e "$f" ] && mv "$f" "$work/$side.plot"; done
  done
  runs=$((runs + 1))
  for part in out err code plot; do
    [ -e "$work/old.$part" ] || [ -e "$work/new.$part" ] || continue
    if ! cmp -s "$work/old.$part" "$work/new.$part"; then
      diffs=$((diffs + 1))
      echo "DIFFERS ($part): report $label"
    fi
  done
  rm -f "$work"/old.* "$work"/new.*
}

inputs=()
if [ $only_large = 0 ]; then
  while IFS= read -r f; do inputs+=("$PWD/$f"); done < <(
    find tests/data/oracle tests/data/cases tests/data/columns tests/data/results \
      tests/data/harness tests/data/compare-r -type f ! -name '*.md' 2>/dev/null | sort)
fi
for f in "${inputs[@]}"; do
  for fmt in $formats; do
    check --format "$fmt" "$f"
    check --format "$fmt" --memory-limit 1 "$f"
  done
  check --format table --max-regression 1 "$f"
  check --format r --plot p.svg "$f"
done
if [ $only_large = 0 ]; then
  b=$PWD/tests/data/oracle/benchstat
  for fmt in $formats; do
    check --format "$fmt" "$b/old.txt" "$b/new.txt"
    check --format "$fmt" "$b/crc-old.txt" "$b/crc-new.txt"
    check --format "$fmt" --memory-limit 1 "$b/old.txt" "$b/new.txt"
  done
fi
if [ -n "$data" ]; then
  for f in "$data/report-1m.csv" "$data/report-1m.go" "$data/results-217mb.jsonl"; do
    for fmt in $formats; do
      check --format "$fmt" "$f"
      check --format "$fmt" --memory-limit 1 "$f"
    done
  done
  check --format table --max-regression 1 --memory-limit 1 "$data/report-1m.csv"
fi
echo "$runs reports compared, $diffs differences"
[ $diffs = 0 ]
