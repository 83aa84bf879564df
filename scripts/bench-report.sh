#!/usr/bin/env bash
# Times `benchdiff report` in every format on a generated 1,000,000-row compare.js CSV, a
# 1,000,000-line Go file and a ~217 MB results file, this build against an old binary.
# Usage: scripts/bench-report.sh [--old /path/to/old/benchdiff] [--runs N] [--formats r,table,…]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench report_large -- "$@"
