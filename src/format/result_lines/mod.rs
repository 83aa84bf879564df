//! Result lines of command benchmarks: what a program prints on stdout to report its own
//! measurements. Two forms are read:
//!
//! - Node's line form (spec §2.6, parsed by [`crate::format::result_lines::node`]):
//!   `name key=value …: rate`, e.g. `queue size=1000: 1,234,567.8`;
//! - a JSON object on one line:
//!   `{"name": "queue", "conf": {"size": 1000}, "rate": 1234567.8, "time": 0.081,
//!     "metrics": {"allocs": 2000, "alloc_bytes": {"value": 64000, "unit": "bytes", "better": "lower"}}}`.
//!   `rate` (operations per second, higher is better) is required; `name` (default: the
//!   benchmark's name), `conf` (numbers, strings, booleans), `time` (seconds) and `metrics` are
//!   optional. A metric is a number (unit none, **lower is better**: counts, bytes, times are
//!   costs) or an object with `value`, `unit` and `better` (`lower` or `higher`).
//!
//! Any other stdout line is ignored. A JSON object with a `rate` key that breaks these rules is
//! an error (a program that meant to report and got it wrong must not be read as silence).

pub mod node;

use crate::format::result_lines::node::parse_named_result_line;
use crate::sample::{Better, ConfValue};

/// Names a program may not use for its own metrics: benchdiff measures these itself.
pub const RESERVED_METRICS: [&str; 5] = ["rate", "wall", "user", "sys", "max_rss"];

/// Which form a result line had.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LineForm {
    /// `name key=value: rate`.
    Node,
    /// A JSON object.
    Json,
}

/// One metric a program reported besides its rate.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReportedMetric {
    /// Name, e.g. `allocs`.
    pub name: String,
    /// Unit (empty for a count).
    pub unit: String,
    /// Direction.
    #[serde(with = "better_serde")]
    pub better: Better,
    /// The value in `unit`.
    pub value: f64,
}

/// One parsed result line.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultLine {
    /// The reported benchmark name (empty: use the benchmark's own name).
    pub name: String,
    /// Reported configuration entries, in reported order.
    pub conf: Vec<(String, serde_json::Value)>,
    /// Operations per second.
    pub rate: f64,
    /// Seconds of the measured section, when reported.
    pub time_s: Option<f64>,
    /// Further metrics (JSON form only).
    pub metrics: Vec<ReportedMetric>,
    /// The form it came in.
    pub form: LineForm,
}

/// Reads one stdout line: `Ok(Some)` for a result line, `Ok(None)` for any other line.
///
/// # Errors
/// A description when the line is a JSON object with a `rate` key that is not a valid result.
pub fn parse_line(line: &str) -> Result<Option<ResultLine>, String> {
    let t = line.trim();
    if t.starts_with('{') {
        let Ok(serde_json::Value::Object(obj)) = serde_json::from_str::<serde_json::Value>(t)
        else {
            return Ok(None);
        };
        if !obj.contains_key("rate") {
            return Ok(None);
        }
        return parse_json(&obj).map(Some);
    }
    Ok(parse_named_result_line(t).map(|(name, r)| ResultLine {
        name,
        conf: r
            .configuration
            .params
            .iter()
            .map(|(k, v)| (k.clone(), conf_json(v)))
            .collect(),
        rate: r.rate,
        time_s: None,
        metrics: Vec::new(),
        form: LineForm::Node,
    }))
}

/// A configuration value back as JSON (a NaN number becomes `null`, as on Node's channel).
pub fn conf_json(v: &ConfValue) -> serde_json::Value {
    match v {
        ConfValue::Number(x) => {
            serde_json::Number::from_f64(*x).map_or(serde_json::Value::Null, Into::into)
        }
        ConfValue::String(s) => serde_json::Value::String(s.clone()),
        ConfValue::Bool(b) => serde_json::Value::Bool(*b),
    }
}

fn number(v: &serde_json::Value, what: &str) -> Result<f64, String> {
    match v {
        serde_json::Value::Number(n) => n
            .as_f64()
            .ok_or_else(|| format!("{what} {n} is not a number")),
        serde_json::Value::Null => Ok(f64::NAN),
        other => Err(format!("{what} must be a number, got {other}")),
    }
}

fn parse_json(obj: &serde_json::Map<String, serde_json::Value>) -> Result<ResultLine, String> {
    for k in obj.keys() {
        if !matches!(k.as_str(), "name" | "conf" | "rate" | "time" | "metrics") {
            return Err(format!(
                "unknown key {k:?} (a result line has name, conf, rate, time, metrics)"
            ));
        }
    }
    let name = match obj.get("name") {
        None => String::new(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => return Err(format!("\"name\" must be a string, got {other}")),
    };
    let rate = number(&obj["rate"], "\"rate\"")?;
    let time_s = obj.get("time").map(|t| number(t, "\"time\"")).transpose()?;
    let mut conf = Vec::new();
    match obj.get("conf") {
        None => {}
        Some(serde_json::Value::Object(c)) => {
            for (k, v) in c {
                crate::format::node_ipc::conf_value(v).map_err(|e| format!("\"conf\".{k}: {e}"))?;
                conf.push((k.clone(), v.clone()));
            }
        }
        Some(other) => return Err(format!("\"conf\" must be an object, got {other}")),
    }
    let mut metrics = Vec::new();
    match obj.get("metrics") {
        None => {}
        Some(serde_json::Value::Object(m)) => {
            for (k, v) in m {
                if RESERVED_METRICS.contains(&k.as_str()) {
                    return Err(format!(
                        "metric {k:?} is measured by benchdiff itself; report it under another name"
                    ));
                }
                metrics.push(parse_metric(k, v)?);
            }
        }
        Some(other) => return Err(format!("\"metrics\" must be an object, got {other}")),
    }
    Ok(ResultLine {
        name,
        conf,
        rate,
        time_s,
        metrics,
        form: LineForm::Json,
    })
}

fn parse_metric(name: &str, v: &serde_json::Value) -> Result<ReportedMetric, String> {
    let what = format!("metric {name:?}");
    match v {
        serde_json::Value::Object(o) => {
            let value = number(
                o.get("value")
                    .ok_or_else(|| format!("{what} has no \"value\""))?,
                &what,
            )?;
            let unit = match o.get("unit") {
                None => String::new(),
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(other) => {
                    return Err(format!("{what}: \"unit\" must be a string, got {other}"));
                }
            };
            let better = match o.get("better").and_then(|b| b.as_str()) {
                None if o.get("better").is_none() => Better::Lower,
                Some("lower") => Better::Lower,
                Some("higher") => Better::Higher,
                _ => {
                    return Err(format!(
                        "{what}: \"better\" must be \"lower\" or \"higher\""
                    ));
                }
            };
            Ok(ReportedMetric {
                name: name.to_owned(),
                unit,
                better,
                value,
            })
        }
        other => Ok(ReportedMetric {
            name: name.to_owned(),
            unit: String::new(),
            better: Better::Lower,
            value: number(other, &what)?,
        }),
    }
}

mod better_serde {
    use crate::sample::Better;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(b: &Better, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match b {
            Better::Lower => "lower",
            Better::Higher => "higher",
        })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Better, D::Error> {
        match String::deserialize(d)?.as_str() {
            "lower" => Ok(Better::Lower),
            "higher" => Ok(Better::Higher),
            o => Err(serde::de::Error::custom(format!(
                "better {o:?} is not lower/higher"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_node_forms() {
        let l = parse_line(
            r#"{"name":"q","conf":{"size":10},"rate":5.5,"time":0.25,"metrics":{"allocs":3,"mb":{"value":2,"unit":"MB/s","better":"higher"}}}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(l.name, "q");
        assert_eq!(l.rate, 5.5);
        assert_eq!(l.time_s, Some(0.25));
        assert_eq!(l.metrics.len(), 2);
        assert_eq!(l.metrics[0].better, Better::Lower);
        assert_eq!(l.metrics[1].better, Better::Higher);
        assert_eq!(l.metrics[1].unit, "MB/s");
        let n = parse_line("queue size=1000: 1,234.5").unwrap().unwrap();
        assert_eq!(n.name, "queue");
        assert_eq!(n.conf, vec![("size".into(), serde_json::json!(1000.0))]);
        assert_eq!(n.form, LineForm::Node);
        assert!(parse_line("hello").unwrap().is_none());
        assert!(parse_line(r#"{"level":"info"}"#).unwrap().is_none());
        assert!(
            parse_line(r#"{"level":"info","msg":"rate"}"#)
                .unwrap()
                .is_none()
        );
        assert_eq!(parse_line(r#"{"r\u0061te":2}"#).unwrap().unwrap().rate, 2.0);
    }

    #[test]
    fn bad_json_results_are_errors() {
        for l in [
            r#"{"rate":"fast"}"#,
            r#"{"rate":1,"metrics":{"wall":1}}"#,
            r#"{"rate":1,"metrics":{"x":{"value":1,"better":"up"}}}"#,
            r#"{"rate":1,"conf":{"a":[1]}}"#,
            r#"{"rate":1,"extra":2}"#,
        ] {
            assert!(parse_line(l).is_err(), "{l}");
        }
    }
}
