#!/usr/bin/env bash
# The "Run benchdiff" step of action.yml: runs `benchdiff compare` or `benchdiff report` with
# the workflow's arguments, writes the Markdown report to the job summary and to
# $BENCHDIFF_OUT/report.md, and sets the step outputs faster, slower, no-change,
# inconclusive, comparisons (from the JSON report's `summary`) and exit-code (benchdiff's:
# 0 fine, 1 a gate or benchmark job failed, 2 bad usage or input). Always exits 0: the
# action's last step fails the job by exit-code, after the comment is written.
#
# Environment: BENCHDIFF (the binary), BENCHDIFF_COMMAND (compare|report), BENCHDIFF_ARGS
# (the command's arguments, shell-quoted), BENCHDIFF_REPORT_ARGS (report options for both
# reports, e.g. `--max-regression 5`), BENCHDIFF_OUT (a folder for the outputs),
# GITHUB_OUTPUT and GITHUB_STEP_SUMMARY (files the runner provides).
set -uo pipefail

out=${BENCHDIFF_OUT:?}
mkdir -p "$out"
md=$out/report.md
json=$out/report.json
rm -f "$md" "$json"

# The arguments are written in the workflow as on a command line: split them with the shell's
# quoting rules (they come from the workflow's author, as a `run:` line would).
eval "args=(${BENCHDIFF_ARGS:-})"
eval "report_args=(${BENCHDIFF_REPORT_ARGS:-})"

case "${BENCHDIFF_COMMAND:-report}" in
  report)
    "$BENCHDIFF" report "${args[@]}" "${report_args[@]}" --format markdown -o "$md"
    code=$?
    "$BENCHDIFF" report "${args[@]}" "${report_args[@]}" --format json -o "$json" 2>/dev/null
    ;;
  compare)
    # The samples go to a CSV and a results file; the JSON report is made from the results.
    "$BENCHDIFF" compare "${args[@]}" "${report_args[@]}" --csv "$out/samples.csv" \
      --results "$out/results.jsonl" --force --format markdown -o "$md"
    code=$?
    if [ -f "$out/results.jsonl" ]; then
      "$BENCHDIFF" report "$out/results.jsonl" "${report_args[@]}" --format json -o "$json" 2>/dev/null
    fi
    ;;
  *)
    echo "::error::benchdiff action: command must be compare or report, not '${BENCHDIFF_COMMAND}'"
    code=2
    ;;
esac

if [ -s "$md" ]; then
  cat "$md" >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
else
  printf '**benchdiff** %s failed (exit code %s) before writing a report; see the step log.\n' \
    "${BENCHDIFF_COMMAND:-report}" "$code" | tee "$md" >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
fi

# Counts from the JSON report's summary (schema/report.schema.json); empty when there is none.
counts() {
  [ -s "$json" ] || return 0
  node -e '
    const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).summary;
    for (const [output, field] of [["faster", "faster"], ["slower", "slower"],
      ["no-change", "no_change"], ["inconclusive", "inconclusive"], ["comparisons", "comparisons"]]) {
      console.log(`${output}=${s[field]}`);
    }' "$json"
}
{
  counts
  echo "exit-code=$code"
  echo "report=$md"
} >> "${GITHUB_OUTPUT:?}"
exit 0
