#!/usr/bin/env Rscript
# Reference vectors for benchdiff's dip test (src/stats/dip.rs), from R's `diptest` package
# (Maechler; Debian: `apt-get install -y r-cran-diptest`). Run from the repository root:
#
#   Rscript scripts/reference/make-dip-vectors.R > tests/data/stats/dip-vectors.tsv
#
# Output: a header line, then one seeded case per line, tab-separated:
#   case   name of the case (distribution, n, variant)
#   n      sample size
#   dip    diptest::dip(x), printed with 17 significant digits
#   p      diptest::dip.test(x)$p.value (interpolated in R's qDiptab table)
#   p_sim  diptest::dip.test(x, simulate.p.value = TRUE, B = 20000)$p.value (Monte Carlo, its
#          standard error is at most 0.0036; drawn after all samples, so `x` does not depend on it)
#   x      the sample, comma-separated, 17 significant digits (round-trips to the same doubles)
# `cargo test` reads the file; it never runs R.
suppressPackageStartupMessages(library(diptest))
set.seed(20240531)
g17 <- function(v) sprintf("%.17g", v)
cases <- list()
add <- function(name, x) cases[[length(cases) + 1]] <<- list(name = name, x = x)

for (n in c(4, 5, 6, 7, 8, 10, 15, 20, 30, 50, 100, 200, 500)) add(sprintf("uniform n=%d", n), runif(n))
for (n in c(4, 9, 12, 25, 30, 60, 150, 300)) add(sprintf("normal n=%d", n), rnorm(n, 10, 2))
for (n in c(10, 20, 30, 40, 80, 200, 500)) {
  k <- rbinom(1, n, 0.5)
  add(sprintf("bimodal 50/50 n=%d", n), sample(c(rnorm(k, 0, 1), rnorm(n - k, 4, 1))))
}
for (n in c(30, 60, 120)) {
  k <- rbinom(1, n, 0.3)
  add(sprintf("bimodal 30/70 n=%d", n), sample(c(rnorm(k, 0, 1), rnorm(n - k, 3, 0.5))))
}
for (n in c(30, 60)) {
  fast <- runif(n) < 0.5
  add(sprintf("gc two-regime ops/s n=%d", n), ifelse(fast, rnorm(n, 3.5e6, 0.03 * 3.5e6), rnorm(n, 1.8e6, 0.03 * 1.8e6)))
}
add("trimodal n=90", sample(c(rnorm(30, 0, 1), rnorm(30, 5, 1), rnorm(30, 10, 1))))
add("lognormal n=30", rlnorm(30, 0, 0.5))
add("lognormal n=100", rlnorm(100, 0, 1))
# Ties.
for (n in c(6, 12, 30, 100)) add(sprintf("ties normal rounded n=%d", n), round(rnorm(n, 0, 1), 1))
for (n in c(8, 20, 50)) add(sprintf("ties integers 1..5 n=%d", n), sample(1:5, n, replace = TRUE))
add("ties bimodal rounded n=60", round(sample(c(rnorm(30, 0, 1), rnorm(30, 4, 1))), 0))
add("ties two values n=10", c(rep(1, 4), rep(2, 6)))
add("ties constant n=5", rep(3.25, 5))
add("ties one pair n=7", c(1, 2, 2, 3.5, 4, 7, 8))
add("tiny n=4 spread", c(0, 1, 10, 11))

cat("case\tn\tdip\tp\tp_sim\tx\n")
set.seed(1985)
for (c in cases) {
  x <- c$x
  d <- dip(x)
  p <- suppressWarnings(dip.test(x)$p.value)
  p_sim <- suppressWarnings(dip.test(x, simulate.p.value = TRUE, B = 20000)$p.value)
  cat(c$name, "\t", length(x), "\t", g17(d), "\t", g17(p), "\t", g17(p_sim), "\t",
      paste(g17(x), collapse = ","), "\n", sep = "")
}
