#!/usr/bin/env python3
"""Reference change points from Apache Otava for tests/history/accuracy.rs.

Generates series with known steps (several lengths, noise levels, zero to three steps),
runs Apache Otava's change point detection on each (otava.analysis.compute_change_points:
E-divisive split over sliding windows + Student's t-test merge, defaults window_len=50,
max_pvalue=0.001), and writes

  tests/data/history/series.csv        id,n,noise_pct,steps,true_changes,values (';'-joined)
  tests/data/history/otava.csv         id,otava_changes (';'-joined indices)

An index is the first point after a change. The generator is seeded (random.Random(18)),
so a rerun writes the same series; the outputs are checked in and the Rust test reads them.
Otava is used only here (pip install apache-otava; tested with 0.8.0).

Usage: python3 scripts/reference/otava_changepoints.py [OUT_DIR]
"""
import csv
import os
import random
import sys

from otava.analysis import compute_change_points


def make_series(rng, n, noise_pct, steps):
    level = 100.0
    # Step positions at least 12 points apart and from the ends.
    while True:
        pos = sorted(rng.sample(range(12, n - 12), steps)) if steps else []
        if all(b - a >= 12 for a, b in zip(pos, pos[1:])):
            break
    values, changes, cur = [], [], level
    for i in range(n):
        if i in pos:
            # A step of 6 to 12 noise standard deviations, up or down.
            size = rng.uniform(6.0, 12.0) * noise_pct / 100.0 * level
            cur += size if rng.random() < 0.5 else -size
            changes.append(i)
        values.append(cur + rng.gauss(0.0, noise_pct / 100.0 * level))
    return values, changes


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "tests", "data", "history")
    rng = random.Random(18)
    rows = []
    sid = 0
    for n in (60, 120, 300):
        for noise in (1.0, 2.0, 5.0):
            for steps in (0, 1, 2, 3):
                for _ in range(4):
                    values, changes = make_series(rng, n, noise, steps)
                    cps, _ = compute_change_points(values)
                    found = [int(c.index) for c in cps]
                    rows.append((sid, n, noise, steps, changes, values, found))
                    sid += 1
    with open(os.path.join(out, "series.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "n", "noise_pct", "steps", "true_changes", "values"])
        for sid, n, noise, steps, changes, values, _ in rows:
            w.writerow([sid, n, noise, steps, ";".join(map(str, changes)),
                        ";".join(repr(v) for v in values)])
    with open(os.path.join(out, "otava.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "otava_changes"])
        for sid, *_, found in rows:
            w.writerow([sid, ";".join(map(str, found))])
    print(f"wrote {len(rows)} series to {out}")


if __name__ == "__main__":
    main()
