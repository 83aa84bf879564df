//! JavaScript value formatting, re-implemented from observed behaviour of Node:
//!
//! - [`js_number`]: `Number.prototype.toString()` (shortest round-trip digits, exponent form
//!   outside `1e-7 < |x| < 1e21`), used for the CSV `rate` column;
//! - [`inspect_string`], [`inspect_value`]: `util.inspect` of the primitives a benchmark
//!   configuration may hold, used for the CSV `configuration` column, which compare.js builds as
//!   space-joined `key=${util.inspect(value)}` (spec §1.3);
//! - [`configuration_text`]: that space-joined rendering.

use crate::sample::ConfValue;

/// Formats `x` exactly as JavaScript's `String(x)` / `Number#toString()` does:
/// `NaN`, `Infinity`, `-Infinity`, `0` for both zeros, plain decimals for
/// `1e-7 <= |x| < 1e21` and `d.ddde+NN` / `d.ddde-NN` otherwise, always with the shortest
/// digit string that reads back to the same double.
pub fn js_number(x: f64) -> String {
    let mut out = String::new();
    push_js_number(&mut out, x);
    out
}

/// Appends [`js_number`] of `x` to `out` (no allocation for the positional form of most
/// values: the digits come from zmij when [`shortest_positional`] vouches for them, else from
/// Rust's `{:e}`, see [`push_by_exponent_form`]).
pub fn push_js_number(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("NaN");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
    } else if x == 0.0 {
        out.push('0');
    } else if x < 0.0 {
        out.push('-');
        push_js_number(out, -x);
    } else {
        let mut buffer = zmij::Buffer::new();
        match shortest_positional(x, &mut buffer) {
            Some(text) => out.push_str(text),
            None => push_by_exponent_form(out, x),
        }
    }
}

/// [`push_js_number`] of a finite `x > 0` from Rust's `{:e}` (the shortest round-trip digits:
/// "1.2345e5", "1e21", "5e-324") laid out as JavaScript lays them out.
fn push_by_exponent_form(out: &mut String, x: f64) {
    use std::fmt::Write as _;
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (first, rest) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let k = (first.len() + rest.len()) as i32;
    let n = exp + 1; // position of the decimal point relative to the digit string
    if k <= n && n <= 21 {
        out.push_str(first);
        out.push_str(rest);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        // The digit string split after n digits (the first part holds one digit).
        let (int, frac) = rest.split_at(n as usize - 1);
        out.push_str(first);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(first);
        out.push_str(rest);
    } else {
        let e = n - 1;
        let sign = if e >= 0 { '+' } else { '-' };
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let _ = write!(out, "e{sign}{}", e.abs());
    }
}

/// JavaScript's `Number#toString` of `x` from zmij's shortest round-trip digits, when they
/// are certainly the digits of Rust's `{:e}` and JavaScript writes them positionally as zmij
/// does: `None` (the caller then uses `{:e}`) outside 2⁻¹⁰²² ≤ `x` < 2⁵⁰, for an `x` whose
/// exact decimal value has at most 18 significant digits, and for zmij's exponent form
/// (`x` < 10⁻⁵).
///
/// Both libraries give the shortest digits that read back to `x` and, of those, the closest
/// to `x`; they differ only on a tie between two equally close candidates (Rust rounds up,
/// zmij to even). A tie needs `x` to be exactly halfway between them, so `x`'s exact value
/// has one digit more than they (at most 18): excluded. A candidate on an end of `x`'s
/// rounding interval (where the libraries might treat the ends differently) needs `x` ≥
/// 2⁵² (below, the ends have 18 or more significant digits).
fn shortest_positional(x: f64, buffer: &mut zmij::Buffer) -> Option<&str> {
    if !(f64::MIN_POSITIVE..(1u64 << 50) as f64).contains(&x) {
        return None;
    }
    // x = m·2^e exactly, m odd.
    let bits = x.to_bits();
    let m = (bits & ((1 << 52) - 1)) | (1 << 52);
    let e = ((bits >> 52) & 0x7ff) as i32 - 1075;
    let zeros = m.trailing_zeros();
    let (m, e) = (m >> zeros, e + zeros as i32);
    // An integer, or x = m·5^-e / 10^-e with at most 18 significant digits (m·5^-e is odd,
    // so it has no trailing zeros).
    if e >= 0 || (-e <= 26 && u128::from(m) * 5u128.pow(e.unsigned_abs()) < 10u128.pow(18)) {
        return None;
    }
    let text = buffer.format_finite(x);
    if text.contains('e') {
        return None;
    }
    Some(text.strip_suffix(".0").unwrap_or(text))
}

/// `util.inspect(x)` for a number: like [`js_number`] except that negative zero prints `-0`.
pub fn inspect_number(x: f64) -> String {
    if x == 0.0 && x.is_sign_negative() {
        "-0".to_owned()
    } else {
        js_number(x)
    }
}

/// Longest string `util.inspect` prints before truncating (`maxStringLength`), in UTF-16 units.
const MAX_STRING_LENGTH: usize = 10_000;
/// Strings longer than this (UTF-16 units) are split after each line break into
/// `'…\n' +\n  '…'` pieces (`breakLength` 80 minus 4).
const SPLIT_LENGTH: usize = 76;

/// `util.inspect(s)` for a string with default options:
///
/// - quotes: single quotes, unless the string contains `'` and no `"` (then double quotes), or
///   contains `'` and `"` but neither `` ` `` nor `${` (then backticks);
/// - escapes: `\b \t \n \f \r`, other C0 controls and `\x7F`–`\x9F` as `\xHH` (upper-case hex),
///   `\\`, and the single quote when single quotes are used;
/// - strings over 76 UTF-16 units are split after each `\n` into separately quoted pieces
///   joined with `" +\n  "`; strings over 10,000 units are cut with `... N more characters`.
pub fn inspect_string(s: &str) -> String {
    let units = utf16_len(s);
    let (body, trailer) = if units > MAX_STRING_LENGTH {
        let remaining = units - MAX_STRING_LENGTH;
        let (cut, half_pair) = cut_utf16(s, MAX_STRING_LENGTH);
        let plural = if remaining > 1 { "s" } else { "" };
        (
            (cut, half_pair),
            format!("... {remaining} more character{plural}"),
        )
    } else {
        ((s, None), String::new())
    };
    let (text, lone_high) = body;
    let len = units.min(MAX_STRING_LENGTH);
    let mut out = String::new();
    // (Node also requires more than 16 units, implied here.)
    if len > SPLIT_LENGTH {
        let mut pieces: Vec<&str> = text.split_inclusive('\n').collect();
        if pieces.is_empty() {
            pieces.push("");
        }
        let last = pieces.len() - 1;
        for (i, piece) in pieces.iter().enumerate() {
            if i > 0 {
                out.push_str(" +\n  ");
            }
            let high = if i == last { lone_high } else { None };
            out.push_str(&quote_escaped(piece, high));
        }
    } else {
        out.push_str(&quote_escaped(text, lone_high));
    }
    out.push_str(&trailer);
    out
}

/// `util.inspect` of one configuration value: numbers via [`inspect_number`], strings via
/// [`inspect_string`], booleans bare.
pub fn inspect_value(v: &ConfValue) -> String {
    match v {
        ConfValue::Number(x) => inspect_number(*x),
        ConfValue::String(s) => inspect_string(s),
        ConfValue::Bool(b) => b.to_string(),
    }
}

/// compare.js's configuration column: `key=value` joined by single spaces, in the given
/// (reported) key order. Values come already rendered (normally by [`inspect_value`]; a JSON
/// `null`, which a NaN parameter becomes on the IPC channel, renders as `null`).
pub fn configuration_text<'a, I>(params: I) -> String
where
    I: IntoIterator<Item = (&'a str, String)>,
{
    let mut s = String::new();
    for (i, (k, v)) in params.into_iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(k);
        s.push('=');
        s.push_str(&v);
    }
    s
}

fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// The prefix of `s` holding `limit` UTF-16 units; when the limit falls inside a surrogate
/// pair, the prefix stops before that character and its high surrogate is returned.
fn cut_utf16(s: &str, limit: usize) -> (&str, Option<u16>) {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        let w = c.len_utf16();
        if units + w > limit {
            if units < limit {
                let mut buf = [0u16; 2];
                c.encode_utf16(&mut buf);
                return (&s[..i], Some(buf[0]));
            }
            return (&s[..i], None);
        }
        units += w;
    }
    (s, None)
}

fn quote_escaped(s: &str, lone_high: Option<u16>) -> String {
    let quote = if s.contains('\'') {
        if !s.contains('"') {
            '"'
        } else if !s.contains('`') && !s.contains("${") {
            '`'
        } else {
            '\''
        }
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            '\'' if quote == '\'' => out.push_str("\\'"),
            c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02X}", c as u32));
            }
            c => out.push(c),
        }
    }
    if let Some(h) = lone_high {
        out.push_str(&format!("\\u{h:x}"));
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The zmij route gives what the `{:e}` route gives, on every value it takes: rates and
    /// times as benchmarks give them, random bit patterns, values with short binary fractions
    /// (exact decimals of 17 or 18 digits: ties), every binade up to 2⁸⁰, and the edges.
    #[test]
    fn zmij_digits_are_the_exponent_form_digits() {
        let mut values = vec![
            1.0,
            1e21,
            1e20,
            123456789012345680000.0,
            1.5e-7,
            1e-6,
            0.000001234,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            3300414.994181368,
            0.1 + 0.2,
        ];
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..100_000 {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            let bits = s.wrapping_mul(0x2545_F491_4F6C_DD1D);
            values.push(f64::from_bits(bits).abs());
            values.push(
                (bits >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi((bits % 40) as i32 - 20),
            );
            values.push(1e9 / ((bits % 100_000_000) as f64 + 0.5));
            values.push((bits % 1_000_000_000_000) as f64 / 1024.0);
            values.push(f64::from_bits((bits >> 12) | (((bits % 80) + 1000) << 52)));
        }
        let (mut taken, mut plain) = (0, String::new());
        for v in values.into_iter().filter(|v| v.is_finite() && *v > 0.0) {
            let mut buffer = zmij::Buffer::new();
            if let Some(text) = shortest_positional(v, &mut buffer) {
                plain.clear();
                push_by_exponent_form(&mut plain, v);
                assert_eq!(text, plain, "{v:e}");
                taken += 1;
            }
        }
        assert!(taken > 100_000, "the zmij route took only {taken} values");
    }

    #[test]
    fn js_numbers_of_the_edges() {
        for (x, js) in [
            (0.0, "0"),
            (-0.0, "0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (-2.5, "-2.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1.5e-7, "1.5e-7"),
            (1e-6, "0.000001"),
            (5e-324, "5e-324"),
            (123.456, "123.456"),
            (0.1 + 0.2, "0.30000000000000004"),
        ] {
            assert_eq!(js_number(x), js, "{x:e}");
        }
    }

    #[test]
    fn numbers_like_javascript() {
        let cases = [
            (1e21, "1e+21"),
            (1e-7, "1e-7"),
            (123456789012345680000.0, "123456789012345680000"),
            (0.000001, "0.000001"),
            (-0.0, "0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (1.5e300, "1.5e+300"),
            (100000.0, "100000"),
            (3300414.994181368, "3300414.994181368"),
            (0.1 + 0.2, "0.30000000000000004"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (-2.5e-8, "-2.5e-8"),
            (12.0, "12"),
        ];
        for (x, want) in cases {
            assert_eq!(js_number(x), want, "{x:?}");
        }
        assert_eq!(inspect_number(-0.0), "-0");
    }

    #[test]
    fn strings_like_util_inspect() {
        let cases = [
            ("a", "'a'"),
            ("it's", "\"it's\""),
            ("say \"hi\" it's", "`say \"hi\" it's`"),
            ("a`b\"c'd", "'a`b\"c\\'d'"),
            ("a${b}`c\"d'", "'a${b}`c\"d\\''"),
            ("tab\there", "'tab\\there'"),
            ("\u{7f}\u{85}é", "'\\x7F\\x85é'"),
            ("q\nr", "'q\\nr'"),
            ("\u{b}\u{0}\\", "'\\x0B\\x00\\\\'"),
            ("", "''"),
        ];
        for (s, want) in cases {
            assert_eq!(inspect_string(s), want, "{s:?}");
        }
    }

    #[test]
    fn long_strings_split_and_truncate() {
        let s = format!("{}\ny", "x".repeat(75)); // 77 units: split
        assert_eq!(
            inspect_string(&s),
            format!("'{}\\n' +\n  'y'", "x".repeat(75))
        );
        let s = format!("{}\ny", "x".repeat(74)); // 76 units: one piece
        assert_eq!(inspect_string(&s), format!("'{}\\ny'", "x".repeat(74)));
        let s = "a".repeat(10_005);
        assert!(inspect_string(&s).ends_with("aaa'... 5 more characters"));
        let s = "a".repeat(10_001);
        assert!(inspect_string(&s).ends_with("'... 1 more character"));
    }

    #[test]
    fn configuration_joins_in_order() {
        let t = configuration_text([
            ("type", inspect_value(&ConfValue::String("string".into()))),
            ("n", inspect_value(&ConfValue::Number(100000.0))),
            ("ok", inspect_value(&ConfValue::Bool(true))),
        ]);
        assert_eq!(t, "type='string' n=100000 ok=true");
    }
}
