#!/usr/bin/env bash
# Runs every cargo-fuzz target for a given time and prints a summary line per target
# (executions, seconds, crashes). Needs `cargo install cargo-fuzz`; uses a nightly toolchain
# when one is installed, otherwise the stable one with RUSTC_BOOTSTRAP=1 (cargo-fuzz passes
# -Z sanitizer flags; the stable rust-std ships the ASan runtime).
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET=60] [TARGET...]
# A crash leaves its input in fuzz/artifacts/TARGET/; turn it into a regression test under
# tests/ (see tests/import/fuzz_regressions.rs) before fixing it.
set -uo pipefail
cd "$(dirname "$0")/../fuzz"
secs=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list 2>/dev/null)
fi
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  fuzz=(cargo +nightly fuzz)
else
  export RUSTC_BOOTSTRAP=1
  fuzz=(cargo fuzz)
fi
mkdir -p ../target/fuzz-logs
status=0
for t in "${targets[@]}"; do
  log=../target/fuzz-logs/$t.log
  before=$(ls artifacts/"$t" 2>/dev/null | grep -c -E '^(crash|oom|timeout|leak)-' || true)
  # -rss_limit_mb bounds memory, -timeout flags hangs (seconds per input).
  "${fuzz[@]}" run "$t" -- -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 >"$log" 2>&1
  rc=$?
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
  [ -n "$execs" ] || execs=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  after=$(ls artifacts/"$t" 2>/dev/null | grep -c -E '^(crash|oom|timeout|leak)-' || true)
  crashes=$((after - before))
  printf '%-16s executions=%-10s seconds=%-5s crashes=%s exit=%s\n' "$t" "${execs:-?}" "$secs" "$crashes" "$rc"
  [ "$rc" -eq 0 ] || status=1
done
exit $status
