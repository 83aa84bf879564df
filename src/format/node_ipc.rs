//! Node's IPC channel as compare.js uses it (spec §1.3, §2.4, §2.6; real-node-rig.md).
//!
//! compare.js `fork`s each benchmark file, which gives the child an IPC channel: one end of a
//! Unix socket pair on a file descriptor named by `NODE_CHANNEL_FD`, with
//! `NODE_CHANNEL_SERIALIZATION_MODE=json`, so every message is one line of JSON ending in `\n`.
//! A `common.js` controller sends `{type:'config', name, queueLength}` once and relays one
//! `{type:'report', name, conf, rate, time}` per configuration from its workers. Node's own
//! internal messages (`{cmd:'NODE_…'}`) and anything without a known `type` are ignored.

use crate::format::inspect::{inspect_number, inspect_string, js_number};
use crate::sample::{ConfValue, Configuration};
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use std::fmt;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};

/// Which way a report reached the runner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    /// A `report` message on Node's IPC channel (what compare.js reads).
    Ipc,
    /// A result line on stdout (a program that sent nothing over IPC).
    Stdout,
}

/// One measured configuration, as a child reported it.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The configuration: compare.js text and structured params in reported order.
    pub configuration: Configuration,
    /// Operations per second.
    pub rate: f64,
    /// The `time` column text: the child's seconds string verbatim, or `NA`.
    pub time_text: String,
    /// The same in seconds (NaN when unknown).
    pub time_s: f64,
    /// How it arrived.
    pub channel: Channel,
}

/// The descriptor number the child finds its end of the channel on (`NODE_CHANNEL_FD`).
pub const CHANNEL_FD: i32 = 3;

/// Environment that makes a Node child open the channel in JSON mode.
pub const CHANNEL_ENV: [(&str, &str); 2] = [
    ("NODE_CHANNEL_FD", "3"),
    ("NODE_CHANNEL_SERIALIZATION_MODE", "json"),
];

/// Longest IPC line accepted (16 MiB); a longer line is treated as garbage.
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// One message read from the channel.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// `{type:'config', name, queueLength}`: the controller's announcement of how many
    /// configurations it will run.
    Config {
        /// The benchmark name the child reports (informational; the runner uses its own path).
        name: Option<String>,
        /// Number of configurations queued (`queueLength`).
        queue_length: Option<u64>,
    },
    /// `{type:'report', …}`: one measured configuration.
    Report(Report),
    /// Anything else that is valid JSON (Node's internal `NODE_*` messages and the like).
    Other,
}

/// Creates the socket pair of the channel: `(ours, the child's)`, both close-on-exec (the
/// child's end is moved to [`CHANNEL_FD`] by `dup2` in the child, which clears the flag).
///
/// # Errors
/// The `socketpair(2)` error.
pub fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` is a valid array of two ints, as socketpair requires.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: socketpair succeeded, so both descriptors are open and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

#[derive(Deserialize)]
struct Kind {
    #[serde(rename = "type")]
    kind: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct ConfigMsg {
    name: Option<serde_json::Value>,
    #[serde(rename = "queueLength")]
    queue_length: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct ReportMsg {
    conf: Option<OrderedConf>,
    rate: Option<serde_json::Value>,
    time: Option<serde_json::Value>,
}

/// A JSON object's entries in document order (serde_json's own map would sort the keys).
struct OrderedConf(Vec<(String, serde_json::Value)>);

impl<'de> Deserialize<'de> for OrderedConf {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedConf;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of configuration values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedConf, A::Error> {
                let mut v = Vec::new();
                while let Some((k, val)) = map.next_entry::<String, serde_json::Value>()? {
                    v.push((k, val));
                }
                Ok(OrderedConf(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// Converts one JSON configuration value to its typed value and its compare.js rendering
/// (`util.inspect` of the value the parent received: JSON `null`, what a NaN becomes on the
/// channel, prints `null` and is kept as a NaN number).
///
/// # Errors
/// A description when the value is an array or object (common.js allows only numbers,
/// strings and booleans).
pub fn conf_value(v: &serde_json::Value) -> Result<(ConfValue, String), String> {
    match v {
        serde_json::Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            Ok((ConfValue::Number(x), inspect_number(x)))
        }
        serde_json::Value::String(s) => Ok((ConfValue::String(s.clone()), inspect_string(s))),
        serde_json::Value::Bool(b) => Ok((ConfValue::Bool(*b), b.to_string())),
        serde_json::Value::Null => Ok((ConfValue::Number(f64::NAN), "null".to_owned())),
        other => Err(format!(
            "configuration value {other} is not a number, string or boolean"
        )),
    }
}

/// Builds a [`Configuration`] (text + structured params) from entries in reported order.
///
/// # Errors
/// As [`conf_value`].
pub fn configuration_from_entries(
    entries: &[(String, serde_json::Value)],
) -> Result<Configuration, String> {
    let mut params = Vec::with_capacity(entries.len());
    let mut rendered = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        let (value, text) = conf_value(v).map_err(|e| format!("key {k:?}: {e}"))?;
        params.push((k.clone(), value));
        rendered.push(text);
    }
    let text = crate::format::inspect::configuration_text(
        params.iter().map(|(k, _)| k.as_str()).zip(rendered),
    );
    Ok(Configuration { text, params })
}

/// Reads a rate as JavaScript's `parseFloat` would from a string (HTTP benchmarkers such as
/// h2load report `"1234.5 req/s"`); numbers pass through; `null` (a NaN sent as JSON) is NaN.
fn rate_value(v: &serde_json::Value) -> Result<f64, String> {
    match v {
        serde_json::Value::Number(n) => Ok(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::Null => Ok(f64::NAN),
        serde_json::Value::String(s) => {
            parse_float_prefix(s).ok_or_else(|| format!("rate {s:?} does not start with a number"))
        }
        other => Err(format!("rate {other} is not a number")),
    }
}

/// JavaScript `parseFloat`: the longest numeric prefix after leading whitespace
/// (`Infinity` included); `None` when there is none.
pub fn parse_float_prefix(s: &str) -> Option<f64> {
    let t = s.trim_start();
    let (sign, body) = match t.as_bytes().first() {
        Some(b'-') => (-1.0, &t[1..]),
        Some(b'+') => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    if body.starts_with("Infinity") {
        return Some(sign * f64::INFINITY);
    }
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if int_digits == 0 && i <= 1 {
        return None;
    }
    let mut end = i;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > start {
            end = j;
        }
    }
    body[..end].parse::<f64>().ok().map(|x| sign * x)
}

/// Parses one channel line (without its `\n`).
///
/// # Errors
/// A short description when the line is not JSON, or is a `report` without a usable `conf`
/// object or `rate`.
pub fn parse_message(line: &[u8]) -> Result<Message, String> {
    let kind: Kind = serde_json::from_slice(line).map_err(|e| {
        format!(
            "IPC message is not JSON ({e}): {}",
            preview(&String::from_utf8_lossy(line))
        )
    })?;
    match kind.kind.as_ref().and_then(|k| k.as_str()) {
        Some("config") => {
            let m: ConfigMsg =
                serde_json::from_slice(line).map_err(|e| format!("bad config message: {e}"))?;
            Ok(Message::Config {
                name: m.name.and_then(|n| n.as_str().map(str::to_owned)),
                queue_length: m.queue_length.and_then(|q| q.as_u64()),
            })
        }
        Some("report") => {
            let m: ReportMsg =
                serde_json::from_slice(line).map_err(|e| format!("bad report message: {e}"))?;
            let conf = m
                .conf
                .ok_or_else(|| "report message without a conf object".to_owned())?;
            let configuration = configuration_from_entries(&conf.0)?;
            let rate = rate_value(
                m.rate
                    .as_ref()
                    .ok_or_else(|| "report message without a rate".to_owned())?,
            )?;
            let (time_text, time_s) = match m.time {
                Some(serde_json::Value::String(s)) => {
                    let t = s.trim().parse::<f64>().unwrap_or(f64::NAN);
                    (s, t)
                }
                Some(serde_json::Value::Number(n)) => {
                    let t = n.as_f64().unwrap_or(f64::NAN);
                    (js_number(t), t)
                }
                _ => ("NA".to_owned(), f64::NAN),
            };
            Ok(Message::Report(Report {
                configuration,
                rate,
                time_text,
                time_s,
                channel: Channel::Ipc,
            }))
        }
        _ => Ok(Message::Other),
    }
}

/// The first 120 characters of `s`, for diagnostics.
pub fn preview(s: &str) -> String {
    let mut p: String = s.chars().take(120).collect();
    if p.len() < s.len() {
        p.push('…');
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_and_report_messages() {
        let m = parse_message(
            br#"{"type":"config","name":"process/next-tick-loop.js","queueLength":1}"#,
        )
        .unwrap();
        assert_eq!(
            m,
            Message::Config {
                name: Some("process/next-tick-loop.js".into()),
                queue_length: Some(1)
            }
        );
        let m = parse_message(
            br#"{"name":"x.js","conf":{"type":"it's","n":1000,"ok":false,"bad":null},"rate":45686.44123456789,"time":"0.021888329","type":"report"}"#,
        )
        .unwrap();
        let Message::Report(r) = m else {
            panic!("not a report")
        };
        assert_eq!(
            r.configuration.text,
            "type=\"it's\" n=1000 ok=false bad=null"
        );
        assert_eq!(
            r.configuration.params[1],
            ("n".into(), ConfValue::Number(1000.0))
        );
        assert_eq!(r.rate, 45686.44123456789);
        assert_eq!(r.time_text, "0.021888329");
        assert_eq!(r.time_s, 0.021888329);
    }

    #[test]
    fn internal_and_garbage() {
        assert_eq!(
            parse_message(br#"{"cmd":"NODE_HANDLE_ACK"}"#).unwrap(),
            Message::Other
        );
        assert!(parse_message(b"hello").is_err());
        assert!(parse_message(br#"{"type":"report","rate":1}"#).is_err());
        assert!(parse_message(br#"{"type":"report","conf":{"a":[1]},"rate":1}"#).is_err());
    }

    #[test]
    fn string_rates_parse_like_parse_float() {
        assert_eq!(parse_float_prefix("1234.5 req/s"), Some(1234.5));
        assert_eq!(parse_float_prefix("  -2e3x"), Some(-2000.0));
        assert_eq!(parse_float_prefix(".5"), Some(0.5));
        assert_eq!(parse_float_prefix("1e"), Some(1.0));
        assert_eq!(parse_float_prefix("Infinity"), Some(f64::INFINITY));
        assert_eq!(parse_float_prefix("req"), None);
        assert_eq!(parse_float_prefix("."), None);
    }
}
