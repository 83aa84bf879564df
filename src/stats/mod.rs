//! Statistics: pure math over slices of sample values, no I/O.
//!
//! - [`dip`]: Hartigan's dip statistic of unimodality and its p-value.
//! - [`dip_table`]: generated quantile table of the dip under the uniform null.
//! - [`drift`]: trend against run order (Kendall's tau test, Theil–Sen slope).
//! - [`bandwidth`]: Silverman's bandwidth of a Gaussian kernel density estimate.
//! - [`outliers`]: modified z-score outliers (median, MAD), flagged not dropped.
//! - [`regimes`]: two separated performance regimes in a side (gap and dip tests, robust to
//!   rounding, calibrated at every sample size).
//! - [`shape`]: the multimodality flag of a side (its regimes) and the too-few-to-tell note.
//! - [`changepoint`]: change points of a series (E-divisive means, permutation test).
//! - [`adjust`]: Holm and Benjamini–Hochberg adjusted p-values (R's `p.adjust`).
//! - [`quantile`]: type-7 quantiles, median and benchstat's order-statistic intervals.
//! - [`rank`]: Wilcoxon rank-sum test with the Hodges–Lehmann shift (R's `wilcox.test`).
//! - [`tdist`]: Student's t CDF and quantile (R's `pt`/`qt`).
//! - [`welch`]: Welch's t-test and compare.R's improvement/accuracy figures.
//! - [`paired`]: per-round log-ratio test for interleaved runs.
//! - [`meta`]: combining per-machine estimates (inverse variance, DerSimonian–Laird, Cochran's Q, I²).
//! - [`precision`]: CV, the t interval of a mean, Welch half-width and runs needed for it.
//! - [`sequential`]: anytime-valid confidence sequences of a paired log ratio (`--stop decided`).
//! - [`ratio`]: Fieller's interval for a ratio of means.
//! - [`proportion`]: Wilson's score interval of a binomial proportion.
//! - [`utest`]: benchstat's Mann–Whitney U test (exact with ties for small samples).

pub mod adjust;
pub mod bandwidth;
pub mod changepoint;
pub mod dip;
pub mod dip_table;
pub mod drift;
pub mod meta;
pub mod outliers;
pub mod paired;
pub mod precision;
pub mod proportion;
pub mod quantile;
pub mod rank;
pub mod ratio;
pub mod regimes;
pub mod sequential;
pub mod shape;
pub mod tdist;
pub mod utest;
pub mod welch;
