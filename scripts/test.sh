#!/usr/bin/env bash
# The one test command (README "Set-up: two commands", and what .ci/run calls).
# On a fresh Debian/Ubuntu machine with only Rust it first installs what the tests need:
#   - nodejs    the Node-format benchmarks run real `node` processes (compare, calibrate, run)
#   - chromium  tests/report_html.rs loads the HTML report in a real headless Chromium
#   - postgresql  tests/history_*.rs start their own server (initdb/pg_ctl in a temp folder)
#   - cargo-machete  .ci/run's unused-dependency check (installed here so one script sets up all)
# apt-get runs only for what is missing (as root, or through sudo when that exists). Then it
# checks that ../shared/oracle (the reference outputs) is beside the checkout and runs
# `cargo test --locked --no-fail-fast`; extra arguments go to cargo test.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "scripts/test.sh: installing ${need_apt[*]}" >&2
  sudo=()
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo=(sudo); fi
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${need_apt[@]}"
fi
if ! command -v cargo-machete >/dev/null 2>&1; then
  echo "scripts/test.sh: installing cargo-machete" >&2
  cargo install cargo-machete --locked
fi
node --version
cargo --version

# The oracle data the tests compare against must be there: fail loudly, never skip.
if [ ! -d ../shared/oracle ]; then
  echo "error: ../shared/oracle is missing (it belongs beside this checkout); the tests need it" >&2
  exit 1
fi

cargo test --locked --no-fail-fast "$@"
