//! Combining machines: a run sharded with `--split runs` measured every
//! comparison on several machines. Each machine is a block: its change is estimated from its
//! own samples only — the per-round log-ratio (paired) when it has at least
//! [`super::decide::MIN_PAIRS`] rounds with both sides, else the difference of mean
//! logarithms (Welch) — and the per-machine log-ratios are combined with
//! [`crate::stats::meta`]: inverse-variance weights, the DerSimonian–Laird random-effects
//! interval (which widens beyond the fixed-effect one only when the machines disagree), and
//! Cochran's Q / I² naming the outlying machine(s). A t-test over raw samples pooled across
//! machines would count the machines' different speeds as noise; it is never used.
//!
//! **Small samples.** A machine's variance is an estimate with few degrees of freedom `dfᵢ`
//! (pairs − 1, or Welch–Satterthwaite's), so its weight uses the variance of a t-distributed
//! estimate, `vᵢ·dfᵢ/(dfᵢ − 2)` ([`MachineEstimate::t_variance`]), and the interval
//! `μ̂ ± q·SE` (log scale, exponentiated) takes `q` from Student's t at `Σ dfᵢ` degrees of
//! freedom instead of metafor's default normal quantile; the p-value is the same t. Without
//! these the combined interval covers 93% instead of 95% with 7 rounds per machine
//! (`tests/stats/meta_simulation.rs`; with them 95.1%).

use crate::compare::Comparison;
use crate::stats::{meta, tdist};

/// One machine's estimate of one comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct MachineEstimate {
    /// The machine's label (host name, or `host [shard K/N]`).
    pub machine: String,
    /// `ln(new/old)` (ratio of geometric means), unitless.
    pub log_ratio: f64,
    /// Its variance (squared standard error).
    pub variance: f64,
    /// Degrees of freedom of that variance.
    pub df: f64,
    /// True when from the per-round pairs.
    pub paired: bool,
    /// Samples (old, new) on this machine.
    pub n: (usize, usize),
}

impl MachineEstimate {
    /// The variance the combination weighs this estimate by: a t-distributed estimate with
    /// `df` degrees of freedom has `variance · df/(df − 2)` (the variance of Student's t), so
    /// a machine with few runs gets the weight its noisy variance estimate deserves (without
    /// it, inverse-variance weights from estimated variances make the combined interval too
    /// narrow: 93% instead of 95% coverage with 7 rounds per machine in the simulation of
    /// `tests/stats/meta_simulation.rs`). `df ≤ 3` is taken as 3 (factor 3).
    pub fn t_variance(&self) -> f64 {
        let df = self.df.max(3.0);
        self.variance * df / (df - 2.0)
    }

    /// The machine's change, percent.
    pub fn change_pct(&self) -> f64 {
        (self.log_ratio.exp() - 1.0) * 100.0
    }
}

/// The estimate of one machine's comparison `c` (its own samples only), labelled `machine`;
/// `None` when it cannot be estimated (fewer than 2 samples a side, a value ≤ 0 or not finite).
pub fn machine_estimate(machine: &str, c: &Comparison) -> Option<MachineEstimate> {
    let positive = |v: &[f64]| v.iter().all(|x| x.is_finite() && *x > 0.0);
    if !positive(&c.old) || !positive(&c.new) {
        return None;
    }
    let pairs = c.pairs();
    if pairs.len() >= super::decide::MIN_PAIRS {
        let d: Vec<f64> = pairs.iter().map(|(o, n)| (n / o).ln()).collect();
        let n = d.len() as f64;
        let mean = d.iter().sum::<f64>() / n;
        let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        return Some(MachineEstimate {
            machine: machine.to_owned(),
            log_ratio: mean,
            variance: floor(var / n, mean),
            df: n - 1.0,
            paired: true,
            n: (c.old.len(), c.new.len()),
        });
    }
    if c.old.len() < 2 || c.new.len() < 2 {
        return None;
    }
    let stats = |x: &[f64]| {
        let n = x.len() as f64;
        let m = x.iter().map(|v| v.ln()).sum::<f64>() / n;
        let v = x.iter().map(|v| (v.ln() - m).powi(2)).sum::<f64>() / (n - 1.0);
        (m, v / n, n)
    };
    let (mo, so, no) = stats(&c.old);
    let (mn, sn, nn) = stats(&c.new);
    let se2 = so + sn;
    let df = if se2 > 0.0 {
        se2.powi(2) / (so.powi(2) / (no - 1.0) + sn.powi(2) / (nn - 1.0))
    } else {
        no + nn - 2.0
    };
    Some(MachineEstimate {
        machine: machine.to_owned(),
        log_ratio: mn - mo,
        variance: floor(se2, mn - mo),
        df,
        paired: false,
        n: (c.old.len(), c.new.len()),
    })
}

/// A variance of exactly 0 (constant samples) would take all the weight: floor it at a
/// relative 1e-12 of the estimate (or 1e-24).
fn floor(v: f64, y: f64) -> f64 {
    v.max((y * 1e-12).powi(2)).max(1e-24)
}

/// A comparison combined over machines.
#[derive(Clone, Debug, PartialEq)]
pub struct Combined {
    /// The per-machine estimates, in machine order.
    pub machines: Vec<MachineEstimate>,
    /// The meta-analysis of their log-ratios.
    pub meta: meta::Meta,
    /// Degrees of freedom of the interval's t quantile, `Σ dfᵢ`.
    pub df: f64,
    /// The combined change, percent (from the random-effects estimate).
    pub change_pct: f64,
    /// Its interval at the report's confidence, percent.
    pub change_ci_pct: (f64, f64),
    /// Two-sided p-value of no change.
    pub p_value: f64,
}

impl Combined {
    /// The number of machines combined.
    pub fn k(&self) -> usize {
        self.machines.len()
    }

    /// True when the machines disagree (Cochran's Q p < 0.10; [`meta::Meta::heterogeneous`]).
    pub fn heterogeneous(&self) -> bool {
        self.meta.heterogeneous()
    }

    /// True when the random-effects interval is wider than the fixed-effect one (τ² > 0).
    pub fn random_effects(&self) -> bool {
        self.meta.tau2 > 0.0
    }

    /// Labels of the outlying machines (empty unless heterogeneous).
    pub fn outliers(&self) -> Vec<&str> {
        self.meta
            .outliers()
            .into_iter()
            .filter_map(|i| self.machines.get(i).map(|m| m.machine.as_str()))
            .collect()
    }

    /// The note reports print for a combined comparison (without its name).
    pub fn note(&self) -> String {
        let per: Vec<String> = self
            .machines
            .iter()
            .map(|m| format!("{} {:+.2}%", m.machine, m.change_pct()))
            .collect();
        let mut s = format!(
            "combined over {} machines (each machine analysed on its own, {}; inverse-variance \
             weights{}): {}",
            self.k(),
            if self.machines.iter().all(|m| m.paired) {
                "paired by round"
            } else {
                "paired by round where it had 3 rounds, else Welch on logs"
            },
            if self.random_effects() {
                format!(
                    ", DerSimonian–Laird random-effects interval, τ² = {:.2e}",
                    self.meta.tau2
                )
            } else {
                String::new()
            },
            per.join(", ")
        );
        if self.heterogeneous() {
            s.push_str(&format!(
                "; heterogeneity: the machines disagree (Cochran's Q = {:.2}, p = {:.3}, I² = \
                 {:.0}%), outlying: {}",
                self.meta.q,
                self.meta.q_p_value,
                self.meta.i2_pct,
                self.outliers().join(", ")
            ));
        } else if self.k() > 1 {
            s.push_str(&format!(
                "; the machines agree (Cochran's Q p = {:.3}, I² = {:.0}%)",
                self.meta.q_p_value, self.meta.i2_pct
            ));
        }
        s
    }
}

/// Combines the per-machine estimates of one comparison at `confidence` (0.95); `None` for
/// fewer than 2 machines (one machine is analysed as an unsharded run) or unusable estimates.
pub fn combine(machines: Vec<MachineEstimate>, confidence: f64) -> Option<Combined> {
    if machines.len() < 2 {
        return None;
    }
    let y: Vec<f64> = machines.iter().map(|m| m.log_ratio).collect();
    let v: Vec<f64> = machines.iter().map(MachineEstimate::t_variance).collect();
    let meta = meta::combine(&y, &v)?;
    let df: f64 = machines.iter().map(|m| m.df.max(1.0)).sum();
    let q = tdist::qt(1.0 - (1.0 - confidence) / 2.0, df);
    let (lo, hi) = meta.random.interval(q);
    let t = meta.random.estimate / meta.random.se;
    let p_value = if meta.random.se == 0.0 {
        meta.random.p_value()
    } else {
        tdist::two_sided_p(t, df)
    };
    Some(Combined {
        change_pct: (meta.random.estimate.exp() - 1.0) * 100.0,
        change_ci_pct: ((lo.exp() - 1.0) * 100.0, (hi.exp() - 1.0) * 100.0),
        p_value,
        df,
        meta,
        machines,
    })
}

/// The combined comparisons of `blocks` (machine label, that machine's comparisons), by
/// comparison name: every name estimated on at least two machines.
pub fn combine_blocks(
    blocks: &[(String, Vec<Comparison>)],
    confidence: f64,
) -> std::collections::HashMap<String, Combined> {
    let mut per: std::collections::HashMap<String, Vec<MachineEstimate>> =
        std::collections::HashMap::new();
    for (label, comps) in blocks {
        for c in comps {
            if let Some(e) = machine_estimate(label, c) {
                per.entry(c.name.clone()).or_default().push(e);
            }
        }
    }
    per.into_iter()
        .filter_map(|(name, m)| combine(m, confidence).map(|c| (name, c)))
        .collect()
}
