#!/usr/bin/env bash
# Times `benchdiff report` on a generated 1,000,000-row compare.js CSV and, when given the
# path of Node's benchmark/compare.R (kept in a scratch folder, never in this repo) and
# Rscript is installed, compare.R on the same file, printing the ratios.
# Usage: scripts/bench-report.sh [/path/to/benchmark/compare.R]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ge 1 ]; then
  cargo bench --bench report_large -- --compare-r "$(realpath "$1")"
else
  cargo bench --bench report_large
fi
