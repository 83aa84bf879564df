//! The fallback result format: what `common.js` prints on stdout when it has no IPC channel
//! (spec §2.6): `${name}${conf}: ${rate}` with `conf` = ` key=${JSON.stringify(value)}` per
//! key and `rate` = `String(rate)` with `,` grouping the digits of its integer part, e.g.
//! `assert/deepequal-buffer.js method="deepEqual" strict=0 len=100 n=20000: 773,200.4995493788`.
//!
//! There is no elapsed time in this format, so such samples carry `time` `NA`.

use crate::format::node_ipc::configuration_from_entries;
use crate::format::node_ipc::{Channel, Report};

/// Parses one stdout line; `None` when it is not a result line.
pub fn parse_result_line(line: &str) -> Option<Report> {
    parse_named_result_line(line).map(|(_, r)| r)
}

/// Like [`parse_result_line`], also returning the benchmark name (the text before the first
/// space, e.g. `assert/deepequal-buffer.js`); command benchmarks use it as the benchmark.
pub fn parse_named_result_line(line: &str) -> Option<(String, Report)> {
    let line = line.trim_end_matches(['\r', '\n']);
    let (head, rate_text) = line.rsplit_once(": ")?;
    let rate = parse_grouped_number(rate_text.trim())?;
    // The name runs to the first space; the rest is ` key=value` pairs.
    let (name, mut rest) = match head.find(' ') {
        Some(i) => (&head[..i], &head[i..]),
        None => (head, ""),
    };
    if name.is_empty() {
        return None;
    }
    let mut entries: Vec<(String, serde_json::Value)> = Vec::new();
    while !rest.is_empty() {
        rest = rest.strip_prefix(' ')?;
        let eq = rest.find('=')?;
        let key = &rest[..eq];
        if key.is_empty() || key.contains(' ') {
            return None;
        }
        let after = &rest[eq + 1..];
        let len = json_token_len(after)?;
        let value: serde_json::Value = serde_json::from_str(&after[..len]).ok()?;
        entries.push((key.to_owned(), value));
        rest = &after[len..];
    }
    let configuration = configuration_from_entries(&entries).ok()?;
    Some((
        name.to_owned(),
        Report {
            configuration,
            rate,
            time_text: "NA".to_owned(),
            time_s: f64::NAN,
            channel: Channel::Stdout,
        },
    ))
}

/// Length of the JSON scalar at the start of `s`: a double-quoted string (with escapes) or a
/// bare token up to the next space.
fn json_token_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.first() == Some(&b'"') {
        let mut i = 1;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                b'"' => return Some(i + 1),
                _ => i += 1,
            }
        }
        None
    } else {
        let len = s.find(' ').unwrap_or(s.len());
        (len > 0).then_some(len)
    }
}

/// Reads `String(rate)` with thousands separators: `1,234.5`, `NaN`, `Infinity`, `1e+21`.
fn parse_grouped_number(s: &str) -> Option<f64> {
    match s {
        "NaN" => return Some(f64::NAN),
        "Infinity" => return Some(f64::INFINITY),
        "-Infinity" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    let plain: String = s.chars().filter(|c| *c != ',').collect();
    if plain.is_empty()
        || !plain
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'+' | b'e' | b'E'))
    {
        return None;
    }
    plain.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::ConfValue;

    #[test]
    fn common_js_stdout_lines() {
        let r = parse_result_line(
            "assert/deepequal-buffer.js method=\"deepEqual\" strict=0 len=100 n=20000: 773,200.4995493788",
        )
        .unwrap();
        assert_eq!(
            r.configuration.text,
            "method='deepEqual' strict=0 len=100 n=20000"
        );
        assert_eq!(r.rate, 773200.4995493788);
        assert_eq!(r.channel, Channel::Stdout);
        let r = parse_result_line("a.js s=\"x y \\\"z\\\"\" b=true: 1e+21").unwrap();
        assert_eq!(
            r.configuration.params,
            vec![
                ("s".into(), ConfValue::String("x y \"z\"".into())),
                ("b".into(), ConfValue::Bool(true))
            ]
        );
        assert_eq!(r.rate, 1e21);
        let r = parse_result_line("a.js: 12").unwrap();
        assert_eq!(r.configuration.text, "");
    }

    #[test]
    fn other_lines_are_not_results() {
        for l in [
            "hello world",
            "",
            "warning: something: bad",
            "a.js n=: 1",
            ": 1",
        ] {
            assert!(parse_result_line(l).is_none(), "{l:?}");
        }
    }
}
