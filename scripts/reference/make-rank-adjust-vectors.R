#!/usr/bin/env Rscript
# Reference vectors for benchdiff's rank-sum test (src/stats/rank.rs) and p-value adjustment
# (src/stats/adjust.rs), from base R's `wilcox.test` and `p.adjust` (package stats only).
# Run from the repository root:
#
#   Rscript scripts/reference/make-rank-adjust-vectors.R tests/data/stats
#
# It writes two tab-separated files with a header line (numbers with 17 significant digits,
# which round-trip to the same doubles; R's NA is written as NA):
#
# wilcox-vectors.tsv, one case per line, R's wilcox.test(new, old, conf.int = TRUE,
# conf.level = conf) (two-sided, mu = 0, correct = TRUE, exact = NULL):
#   case      name of the case
#   conf      requested conf.level
#   exact     1 if R used the exact distribution (method contains "exact"), else 0
#   W         $statistic
#   p         $p.value
#   estimate  $estimate (difference in location)
#   lo, hi    $conf.int
#   level     attr($conf.int, "conf.level") (lower than conf when R says "not achievable")
#   old, new  the samples, comma-separated
#
# p-adjust-vectors.tsv, one p-vector per line:
#   case      name of the case
#   p         raw p-values, comma-separated (NA = missing)
#   holm      p.adjust(p, "holm")
#   BH        p.adjust(p, "BH")
#
# `cargo test` reads these files; it never runs R.
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else "tests/data/stats"
set.seed(20241130)
g17 <- function(v) ifelse(is.na(v), "NA", sprintf("%.17g", v))
join <- function(v) paste(g17(v), collapse = ",")

## ---- wilcox.test ------------------------------------------------------------------------
cases <- list()
add <- function(name, old, new, conf = 0.95) {
  cases[[length(cases) + 1]] <<- list(name = name, old = old, new = new, conf = conf)
}

# Tiny samples (exact; the interval may not reach the requested level).
add("n=1 vs 1", 1.5, 2.25)
add("n=1 vs 2", c(1, 3), 2.5)
add("n=2 vs 1", 0.75, c(1.25, 2.5))
add("n=2 vs 2", c(10.1, 10.4), c(10.9, 11.3))
add("n=3 vs 3", c(3.2, 1.7, 2.9), c(4.4, 3.9, 5.1))
add("n=1 vs 3", c(5.5, 6.25, 7.125), 4)
add("n=3 vs 2 overlap", c(2.2, 4.4, 3.3), c(3.9, 2.7))
add("n=3 vs 3 tie", c(1, 2, 3), c(3, 4, 5))
add("n=2 vs 2 tie", c(1, 1), c(1, 2))
add("n=5 vs 5 separated", 1:5 + 0.5, 11:15 + 0.25)
add("n=5 vs 5 separated, conf 0.99", 1:5 + 0.5, 11:15 + 0.25, 0.99)
add("n=6 vs 4 conf 0.8", rnorm(6), rnorm(4, 0.5), 0.8)

# Continuous samples, exact branch, various sizes.
for (nm in list(c(4, 4), c(5, 8), c(8, 5), c(10, 10), c(7, 20), c(25, 25), c(30, 12),
                c(12, 30), c(40, 45), c(49, 49), c(49, 1), c(1, 49), c(2, 49))) {
  add(sprintf("normal %d vs %d", nm[1], nm[2]), rnorm(nm[1], 100, 5), rnorm(nm[2], 102, 5))
}
# The n = 49/50 boundary: 50 on either side switches to the normal approximation.
add("normal 50 vs 49", rnorm(50, 10, 1), rnorm(49, 10.3, 1))
add("normal 49 vs 50", rnorm(49, 10, 1), rnorm(50, 10.3, 1))
add("normal 50 vs 50", rnorm(50, 10, 1), rnorm(50, 10.3, 1))
add("normal 50 vs 3", rnorm(50, 10, 1), rnorm(3, 10.3, 1))
# Large samples.
add("normal 60 vs 60", rnorm(60, 1e6, 2e4), rnorm(60, 1.01e6, 2e4))
add("normal 200 vs 200", rnorm(200, 50, 3), rnorm(200, 50.5, 3))
add("normal 60 vs 200", rnorm(60, 50, 3), rnorm(200, 49, 3))
add("lognormal 300 vs 250", rlnorm(300, 0, 0.3), rlnorm(250, 0.05, 0.3))
# Ties: rounded data (asymptotic branch even for small n).
add("rounded 10 vs 10", round(rnorm(10, 20, 1)), round(rnorm(10, 21, 1)))
add("rounded 25 vs 25", round(rnorm(25, 100, 3), 0), round(rnorm(25, 101, 3), 0))
add("rounded 8 vs 12 by 0.5", round(rnorm(8, 5, 1) * 2) / 2, round(rnorm(12, 5.5, 1) * 2) / 2)
add("rounded 49 vs 49", round(rnorm(49, 10, 1), 1), round(rnorm(49, 10.2, 1), 1))
add("rounded 120 vs 80", round(rnorm(120, 7, 2)), round(rnorm(80, 7.5, 2)))
add("one tie 10 vs 10", c(rnorm(9), 0.5), c(rnorm(9, 0.7), 0.5))
add("old constant", rep(3, 6), c(2.5, 3, 3.5, 4, 4.5, 5))
# Identical samples on both sides.
x <- rnorm(15, 30, 2)
add("identical 15", x, x)
x <- round(rnorm(40, 30, 2), 1)
add("identical rounded 40", x, x)
add("identical 1..5", 1:5, 1:5)
# Benchmark-like magnitudes: ops/s (large) and seconds (small; R's absolute root tolerance).
add("ops/s 20 vs 20", round(rnorm(20, 3.5e6, 4e4)), round(rnorm(20, 3.45e6, 4e4)))
add("ops/s 60 vs 60", rnorm(60, 1.8e6, 3e4), rnorm(60, 1.82e6, 3e4))
add("seconds 60 vs 60", rnorm(60, 2e-3, 5e-5), rnorm(60, 2.05e-3, 5e-5))
add("seconds rounded 30 vs 30", round(rnorm(30, 0.25, 0.01), 3), round(rnorm(30, 0.26, 0.01), 3))
add("bimodal 40 vs 40", c(rnorm(20, 1.8, 0.05), rnorm(20, 3.5, 0.05)),
    c(rnorm(25, 1.8, 0.05), rnorm(15, 3.5, 0.05)))
# p near 0.05: draw until the exact (10 vs 10) and the asymptotic (60 vs 60, rounded 20 vs 20)
# p-values land in [0.04, 0.06].
near <- function(gen, branch, k) {
  found <- 0
  while (found < k) {
    s <- gen()
    p <- suppressWarnings(wilcox.test(s$new, s$old)$p.value)
    if (p >= 0.04 && p <= 0.06) {
      add(sprintf("p near 0.05 %s #%d", branch, found + 1), s$old, s$new)
      found <- found + 1
    }
  }
}
near(function() list(old = rnorm(10), new = rnorm(10, 0.9)), "exact 10 vs 10", 3)
near(function() list(old = rnorm(60), new = rnorm(60, 0.35)), "normal 60 vs 60", 3)
near(function() list(old = round(rnorm(20), 1), new = round(rnorm(20, 0.6), 1)), "ties 20 vs 20", 3)
# Random sizes and shapes.
for (i in 1:60) {
  n <- sample(c(1:12, 20, 30, 45, 49, 50, 51, 70, 100), 2, replace = TRUE)
  shift <- sample(c(0, 0.1, 0.5, 2), 1)
  digits <- sample(c(NA, 0, 1, 2), 1)
  old <- rnorm(n[1], 10, 1)
  new <- rnorm(n[2], 10 + shift, 1)
  if (!is.na(digits)) { old <- round(old, digits); new <- round(new, digits) }
  conf <- sample(c(0.95, 0.95, 0.9, 0.99), 1)
  add(sprintf("random #%d %d vs %d digits=%s", i, n[1], n[2], digits), old, new, conf)
}

rows <- character()
for (cs in cases) {
  r <- tryCatch(suppressWarnings(wilcox.test(cs$new, cs$old, conf.int = TRUE,
                                             conf.level = cs$conf)),
                error = function(e) NULL)
  if (is.null(r)) { message("skipped (R error): ", cs$name); next }
  rows <- c(rows, paste(cs$name, g17(cs$conf), as.integer(grepl("exact", r$method)),
                        g17(r$statistic), g17(r$p.value), g17(r$estimate),
                        g17(r$conf.int[1]), g17(r$conf.int[2]),
                        g17(attr(r$conf.int, "conf.level")), join(cs$old), join(cs$new),
                        sep = "\t"))
}
writeLines(c(paste("case", "conf", "exact", "W", "p", "estimate", "lo", "hi", "level",
                   "old", "new", sep = "\t"), rows),
           file.path(out, "wilcox-vectors.tsv"))

## ---- p.adjust ---------------------------------------------------------------------------
pcases <- list()
padd <- function(name, p) pcases[[length(pcases) + 1]] <<- list(name = name, p = p)
padd("single", 0.03)
padd("two", c(0.04, 0.01))
padd("R help example", c(0.01, 0.04, 0.03, 0.005))
padd("with NA", c(0.01, NA, 0.02, 0.5, NA))
padd("all NA", c(NA, NA))
padd("ties", c(0.02, 0.02, 0.02, 0.5, 0.01, 0.01))
padd("zeros and ones", c(0, 1, 0, 0.5, 1, 1e-300))
padd("tiny", c(1e-20, 3e-15, 2e-10, 0.04))
padd("near 0.05", c(0.049, 0.051, 0.0499, 0.0501, 0.025, 0.0125))
padd("increasing", (1:10) / 100)
padd("decreasing", (10:1) / 100)
for (m in c(3, 5, 20, 50, 200)) padd(sprintf("uniform m=%d", m), runif(m))
for (m in c(20, 100)) {
  padd(sprintf("mixed m=%d", m), sample(c(runif(m / 2), rbeta(m / 2, 0.2, 8))))
}
padd("uniform m=30 with NA", replace(runif(30), c(3, 17, 29), NA))
padd("wilcox p of a 20-row suite", sapply(1:20, function(i) {
  suppressWarnings(wilcox.test(rnorm(10, 0.3 * (i %% 4 == 0)), rnorm(10))$p.value)
}))

prow <- sapply(pcases, function(cs) paste(cs$name, join(cs$p), join(p.adjust(cs$p, "holm")),
                                          join(p.adjust(cs$p, "BH")), sep = "\t"))
writeLines(c(paste("case", "p", "holm", "BH", sep = "\t"), prow),
           file.path(out, "p-adjust-vectors.tsv"))
message(sprintf("%s: %d wilcox cases, %d p.adjust cases (%s)", out, length(rows),
                length(pcases), R.version.string))
