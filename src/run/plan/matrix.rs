//! Parameter matrices of command benchmarks: every combination of the listed values, in the
//! order Node's `benchmark/common.js` enumerates a `configs` object (spec §2.2): the cartesian
//! product with the **last key varying fastest**, e.g. `a=[1,2], b=[x,y]` gives
//! `a=1 b=x`, `a=1 b=y`, `a=2 b=x`, `a=2 b=y`.
//!
//! - `-L key=a,b,c` (repeatable) lists a key's values; keys keep the order of their first mention.
//! - `--set key=v` replaces that key's whole list by the single value `v` (common.js's `--set`);
//!   an unknown key is an error.
//! - Exclusions remove combinations, the declarative form of common.js's `combinationFilter`:
//!   a combination is dropped when it matches **every** `key=value` of any exclusion.
//!
//! Values are kept as the text that goes into argv, plus a typed form for the configuration
//! column: a value that reads as a finite number is a number (`size=1000`), `true`/`false` are
//! booleans, anything else is a string (`file='data.txt'`), as common.js types its values.

pub use crate::format::results::plan::{Combination, Exclusion, Param, configuration, typed_value};

/// Parameters with their values, and exclusions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Matrix {
    /// Parameters in key order (the first key varies slowest).
    pub params: Vec<Param>,
    /// Combinations to leave out.
    pub exclusions: Vec<Exclusion>,
}

/// Checks a parameter key: letters, digits, `_` and `-`, not starting with a digit or `-`.
///
/// # Errors
/// A message naming the key.
pub fn check_key(key: &str) -> Result<(), String> {
    let mut chars = key.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "parameter name {key:?}: use letters, digits, `_` and `-` (not first)"
        ))
    }
}

impl Matrix {
    /// Adds `-L key=a,b,c`: the values are split at commas (an empty list item is an empty
    /// value); a key given again gets the values appended.
    ///
    /// # Errors
    /// A message when the text is not `key=values` or the key is not a valid name.
    pub fn add_list(&mut self, spec: &str) -> Result<(), String> {
        let (k, v) = spec
            .split_once('=')
            .ok_or_else(|| format!("-L {spec:?}: expected KEY=V1,V2,… (e.g. -L size=10,100)"))?;
        check_key(k).map_err(|e| format!("-L {spec:?}: {e}"))?;
        let values = v.split(',').map(str::to_owned);
        self.push_values(k, values);
        Ok(())
    }

    /// Appends values to `key` (created at the end when new).
    pub fn push_values(&mut self, key: &str, values: impl IntoIterator<Item = String>) {
        match self.params.iter_mut().find(|p| p.key == key) {
            Some(p) => p.values.extend(values),
            None => self.params.push(Param {
                key: key.to_owned(),
                values: values.into_iter().collect(),
            }),
        }
    }

    /// Applies `--set key=value`: the key's list becomes that single value.
    ///
    /// # Errors
    /// A message when the text is not `key=value` or no parameter has that key.
    pub fn set(&mut self, spec: &str) -> Result<(), String> {
        let (k, v) = spec
            .split_once('=')
            .filter(|(k, _)| !k.is_empty())
            .ok_or_else(|| format!("--set {spec:?}: expected KEY=VALUE (e.g. --set size=100)"))?;
        let known: Vec<String> = self.params.iter().map(|p| p.key.clone()).collect();
        match self.params.iter_mut().find(|p| p.key == k) {
            Some(p) => {
                p.values = vec![v.to_owned()];
                Ok(())
            }
            None => Err(format!(
                "--set {spec:?}: no parameter {k:?} (parameters: {})",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )),
        }
    }

    /// Adds an exclusion written `key=value,key=value` (a combination matching all of them is
    /// left out).
    ///
    /// # Errors
    /// A message when an item is not `key=value`.
    pub fn add_exclusion_text(&mut self, spec: &str) -> Result<(), String> {
        let mut ex = Vec::new();
        for item in spec.split(',') {
            let (k, v) = item.split_once('=').filter(|(k, _)| !k.is_empty()).ok_or_else(|| {
                format!("exclusion {spec:?}: expected KEY=VALUE[,KEY=VALUE…] (e.g. size=10,mode=slow)")
            })?;
            ex.push((k.to_owned(), v.to_owned()));
        }
        self.exclusions.push(ex);
        Ok(())
    }

    /// Checks that every exclusion names known keys and values (a typo would silently exclude
    /// nothing).
    ///
    /// # Errors
    /// A message naming the unknown key or value.
    pub fn check_exclusions(&self) -> Result<(), String> {
        for ex in &self.exclusions {
            for (k, v) in ex {
                let Some(p) = self.params.iter().find(|p| &p.key == k) else {
                    return Err(format!("exclusion {k}={v}: no parameter {k:?}"));
                };
                if !p.values.contains(v) {
                    return Err(format!(
                        "exclusion {k}={v}: {v:?} is not a value of {k} ({})",
                        p.values.join(",")
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every combination, last key fastest, exclusions removed. A matrix without parameters
    /// has one, empty, combination; a parameter with no values gives none.
    pub fn combinations(&self) -> Vec<Combination> {
        let mut out: Vec<Combination> = vec![Vec::new()];
        for p in &self.params {
            let mut next = Vec::with_capacity(out.len() * p.values.len());
            for prefix in &out {
                for v in &p.values {
                    let mut c = prefix.clone();
                    c.push((p.key.clone(), v.clone()));
                    next.push(c);
                }
            }
            out = next;
        }
        out.retain(|c| !self.exclusions.iter().any(|ex| matches(c, ex)));
        out
    }

    /// The same matrix restricted to `keys` (in matrix order); exclusions that mention another
    /// key are dropped with it.
    pub fn restrict(&self, keys: &[&str]) -> Matrix {
        Matrix {
            params: self
                .params
                .iter()
                .filter(|p| keys.contains(&p.key.as_str()))
                .cloned()
                .collect(),
            exclusions: self
                .exclusions
                .iter()
                .filter(|ex| ex.iter().all(|(k, _)| keys.contains(&k.as_str())))
                .cloned()
                .collect(),
        }
    }
}

fn matches(c: &Combination, ex: &Exclusion) -> bool {
    ex.iter()
        .all(|(k, v)| c.iter().any(|(ck, cv)| ck == k && cv == v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(lists: &[&str]) -> Matrix {
        let mut m = Matrix::default();
        for l in lists {
            m.add_list(l).unwrap();
        }
        m
    }

    #[test]
    fn last_key_fastest() {
        let c = m(&["a=1,2", "b=x,y"]).combinations();
        let t: Vec<String> = c
            .iter()
            .map(|c| {
                c.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(t, ["a=1 b=x", "a=1 b=y", "a=2 b=x", "a=2 b=y"]);
        assert_eq!(Matrix::default().combinations(), vec![Vec::new()]);
    }

    #[test]
    fn set_and_exclusions() {
        let mut x = m(&["a=1,2,3", "b=x,y"]);
        x.set("a=7").unwrap();
        assert_eq!(x.combinations().len(), 2);
        assert!(x.set("zz=1").unwrap_err().contains("parameters: a, b"));
        let mut x = m(&["a=1,2", "b=x,y"]);
        x.add_exclusion_text("a=1,b=y").unwrap();
        x.add_exclusion_text("a=2").unwrap();
        assert_eq!(
            x.combinations(),
            vec![vec![("a".into(), "1".into()), ("b".into(), "x".into())]]
        );
        x.check_exclusions().unwrap();
        x.add_exclusion_text("a=9").unwrap();
        assert!(x.check_exclusions().unwrap_err().contains("not a value"));
    }

    #[test]
    fn typed_configuration_text() {
        let c = vec![
            ("size".to_owned(), "1000".to_owned()),
            ("mode".to_owned(), "fast".to_owned()),
            ("on".to_owned(), "true".to_owned()),
            ("v".to_owned(), "1.2.3".to_owned()),
        ];
        let conf = configuration(&c, &[("size".into(), serde_json::json!(5))]);
        assert_eq!(conf.text, "size=1000 mode='fast' on=true v='1.2.3'");
        assert!(check_key("1a").is_err());
        assert!(Matrix::default().add_list("; rm=1").is_err());
    }
}
