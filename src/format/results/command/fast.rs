//! A fast path for the bulk of a command run's results file: the `ok` `command-job` lines in
//! exactly the shape benchdiff writes them (compact, keys in the order of
//! [`super::CommandJobRecord`]'s fields, no `error` or `stderr_tail`). [`parse`] reads such a
//! line straight into a [`CommandJobView`] with text borrowed from the line, and gives up
//! (`None`) at the first byte that differs from that shape; the caller then parses the line
//! with serde as before, so anything else — other key orders, whitespace, extra or missing
//! fields, other statuses, malformed or cut-off lines — behaves and is diagnosed exactly as
//! without the fast path.
//!
//! It only accepts what serde would accept, with the same values: numbers are checked against
//! JSON's grammar and converted by the standard library's correctly rounded parser (as
//! serde_json's `float_roundtrip` parser rounds; integers longer than 18 digits and exponents
//! beyond 3 digits are left to serde); strings with an escape are decoded by serde_json;
//! a string with a raw control character, non-empty `combination`/`params` lists aside (read
//! by serde_json in place), makes it give up. Tests check it against serde on the lines
//! benchdiff writes, on other lines, and through the whole loader.

use super::{CommandJobView, CommandSampleView, Few, MetricView};
use crate::format::results::JobStatus;
use crate::sample::{Better, Side};
use serde::de::IgnoredAny;
use std::borrow::Cow;

/// Reads an `ok` command-job line written by benchdiff; `None` when the line is not exactly in
/// that shape (the caller then parses it with serde).
pub fn parse(line: &str) -> Option<CommandJobView<'_>> {
    let mut c = Cursor {
        s: line,
        b: line.as_bytes(),
        i: 0,
    };
    c.lit("{\"type\":\"command-job\",\"position\":")?;
    let position = c.u32()?;
    c.lit(",\"benchmark\":")?;
    let benchmark = c.string()?;
    c.lit(",\"combination\":")?;
    let combination = if c.lit("[]").is_some() {
        Vec::new()
    } else {
        c.serde()?
    };
    c.lit(",\"side\":")?;
    let side = if c.lit("\"old\"").is_some() {
        Side::Old
    } else if c.lit("\"control\"").is_some() {
        Side::Control
    } else {
        c.lit("\"new\"")?;
        Side::New
    };
    c.lit(",\"run\":")?;
    let run = c.u32()?;
    c.lit(",\"warmup\":")?;
    let warmup = c.bool()?;
    c.lit(",\"argv\":")?;
    c.lit("[")?;
    if c.lit("]").is_none() {
        loop {
            c.skip_string()?;
            if c.lit("]").is_some() {
                break;
            }
            c.lit(",")?;
        }
    }
    c.lit(",\"status\":\"ok\",\"exit_code\":")?;
    let exit_code = c.number_or_null()?;
    c.lit(",\"signal\":")?;
    let signal = c.number_or_null()?;
    c.lit(",\"wall_s\":")?;
    c.number_or_null()?;
    c.lit(",\"user_s\":")?;
    c.number_or_null()?;
    c.lit(",\"sys_s\":")?;
    c.number_or_null()?;
    c.lit(",\"max_rss_bytes\":")?;
    c.number_or_null()?;
    // Absent in files written before job measurements were recorded once per job.
    let metrics = if c.lit(",\"metrics\":").is_some() {
        Some(c.few(Cursor::metric)?)
    } else {
        None
    };
    c.lit(",\"samples\":")?;
    let samples = c.few(|c| c.sample(&benchmark))?;
    c.lit("}")?;
    // serde_json accepts trailing whitespace only.
    if !c.b[c.i..]
        .iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        return None;
    }
    Some(CommandJobView {
        position,
        benchmark,
        combination,
        side,
        run,
        warmup,
        status: JobStatus::Ok,
        metrics,
        samples,
        samples_before: 0,
        _argv: IgnoredAny,
        _exit_code: exit_code,
        _signal: signal,
        _wall_s: IgnoredAny,
        _user_s: IgnoredAny,
        _sys_s: IgnoredAny,
        _max_rss_bytes: IgnoredAny,
    })
}

/// A position in the line being read, byte by byte (text is taken from the line only
/// between ASCII delimiters, so always at character boundaries).
struct Cursor<'a> {
    s: &'a str,
    /// The line's bytes.
    b: &'a [u8],
    /// Byte offset of the next byte to read (past the end when a line ends in a `\`).
    i: usize,
}

/// 10^0 … 10^22: the powers of ten a double holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a str {
        self.s.get(self.i..).unwrap_or_default()
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// Skips `text` when the line continues with it. Inlined, so that the comparison with a
    /// literal of known length is a few loads instead of a call to `memcmp` (which was the
    /// single largest cost of the fast path).
    #[inline(always)]
    fn lit(&mut self, text: &str) -> Option<()> {
        let t = text.as_bytes();
        let end = self.i + t.len();
        (self.b.get(self.i..end)? == t).then(|| self.i = end)
    }

    fn bool(&mut self) -> Option<bool> {
        if self.lit("true").is_some() {
            Some(true)
        } else {
            self.lit("false").map(|()| false)
        }
    }

    /// Skips a JSON string; its byte range without the quotes, and whether it has an escape.
    /// `None` for a raw control character or a line ending inside it (serde_json rejects
    /// both; escapes are checked by the caller).
    #[inline(always)]
    fn skip_string(&mut self) -> Option<(usize, usize, bool)> {
        let (open, close, escaped) = self.scan_string()?;
        if escaped {
            // A bad escape makes serde reject the line: check it here as `string` does.
            serde_json::from_str::<IgnoredAny>(self.s.get(open - 1..=close)?).ok()?;
        }
        Some((open, close, escaped))
    }

    /// Moves past a JSON string: the positions of its content (after the opening quote, at the
    /// closing one) and whether it holds an escape (not checked here). `None` for a raw
    /// control character or a line ending inside it.
    #[inline(always)]
    fn scan_string(&mut self) -> Option<(usize, usize, bool)> {
        self.lit("\"")?;
        let open = self.i;
        let mut escaped = false;
        loop {
            match *self.b.get(self.i)? {
                b'"' => break,
                // The escaped byte is skipped too (it may be a quote); the caller has serde_json
                // check the escape.
                b'\\' => {
                    escaped = true;
                    self.i += 2;
                }
                0..=0x1f => return None,
                _ => self.i += 1,
            }
        }
        let close = self.i;
        self.i += 1;
        Some((open, close, escaped))
    }

    /// A JSON string: borrowed from the line without escapes, decoded by serde_json with them;
    /// `None` for a raw control character or a bad escape (serde_json rejects both).
    #[inline(always)]
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let (open, close, escaped) = self.scan_string()?;
        if escaped {
            serde_json::from_str::<String>(self.s.get(open - 1..=close)?)
                .ok()
                .map(Cow::Owned)
        } else {
            self.s.get(open..close).map(Cow::Borrowed)
        }
    }

    /// Skips ASCII digits; how many.
    #[inline(always)]
    fn digits(&mut self) -> usize {
        let from = self.i;
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.i - from
    }

    /// A number token by JSON's grammar (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`),
    /// and whether it is an integer (no fraction, no exponent). `None` for anything else, for
    /// an integer of more than 18 digits or an exponent of more than 3 digits (left to serde).
    #[inline(always)]
    fn number(&mut self) -> Option<(&'a str, bool)> {
        let (start, integer) = self.scan_number()?;
        Some((self.s.get(start..self.i)?, integer))
    }

    /// Moves past a number token ([`Cursor::number`]'s grammar and limits): where it started
    /// and whether it is an integer, `None` where [`Cursor::number`] gives `None`.
    #[inline(always)]
    fn scan_number(&mut self) -> Option<(usize, bool)> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek()? {
            b'0' => self.i += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            self.i += 1;
            integer = false;
            if self.digits() == 0 {
                return None;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integer = false;
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !(1..=3).contains(&self.digits()) {
                return None;
            }
        }
        (!integer || self.i - start <= 18).then_some((start, integer))
    }

    /// A number as serde_json reads it into an `f64` (finite: serde_json rejects a number out
    /// of range): the token of [`Cursor::number`], its value computed while it is scanned
    /// when a single correctly rounded operation gives it (Clinger's fast path: an integer of
    /// its digits of at most 2^53, times or over an exact power of ten up to 10^22), which is
    /// the value the standard library's parser gives; other tokens are parsed by the standard
    /// library.
    #[inline(always)]
    fn f64(&mut self) -> Option<f64> {
        let start = self.i;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.i += 1;
        }
        // The digits as an integer while it stays at most 2^53 (`big` past that).
        let mut mantissa: u64 = 0;
        let mut big = false;
        let mut scale: i32 = 0;
        let mut digit = |mantissa: &mut u64, d: u8| {
            if *mantissa >= 1 << 53 {
                big = true;
            } else {
                *mantissa = *mantissa * 10 + u64::from(d - b'0');
            }
        };
        match self.peek()? {
            b'0' => self.i += 1,
            b'1'..=b'9' => {
                while let Some(&d @ b'0'..=b'9') = self.b.get(self.i) {
                    digit(&mut mantissa, d);
                    self.i += 1;
                }
            }
            _ => return None,
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            self.i += 1;
            integer = false;
            let from = self.i;
            while let Some(&d @ b'0'..=b'9') = self.b.get(self.i) {
                digit(&mut mantissa, d);
                scale -= 1;
                self.i += 1;
            }
            if self.i == from {
                return None;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integer = false;
            self.i += 1;
            let negative_exponent = match self.peek() {
                Some(b'-') => {
                    self.i += 1;
                    true
                }
                Some(b'+') => {
                    self.i += 1;
                    false
                }
                _ => false,
            };
            let from = self.i;
            let mut exponent: i32 = 0;
            while let Some(&d @ b'0'..=b'9') = self.b.get(self.i) {
                exponent = exponent * 10 + i32::from(d - b'0');
                self.i += 1;
                if self.i - from > 3 {
                    return None;
                }
            }
            if self.i == from {
                return None;
            }
            scale += if negative_exponent {
                -exponent
            } else {
                exponent
            };
        }
        if integer && self.i - start > 18 {
            return None;
        }
        if !big && mantissa <= 1 << 53 && (-22..=22).contains(&scale) {
            let m = mantissa as f64;
            let value = if scale >= 0 {
                m * POW10[scale as usize]
            } else {
                m / POW10[scale.unsigned_abs() as usize]
            };
            return Some(if negative { -value } else { value });
        }
        let token = self.s.get(start..self.i)?;
        token.parse::<f64>().ok().filter(|x| x.is_finite())
    }

    /// Skips a number token ([`Cursor::number`]'s grammar and limits) whose value is not
    /// needed.
    #[inline(always)]
    fn skip_number(&mut self) -> Option<()> {
        self.scan_number().map(|_| ())
    }

    /// A non-negative integer that fits a `u32`.
    fn u32(&mut self) -> Option<u32> {
        match self.number()? {
            (token, true) => token.parse().ok(),
            _ => None,
        }
    }

    /// A number or `null` whose value is not needed, as serde reads an `Option<IgnoredAny>`.
    #[inline(always)]
    fn number_or_null(&mut self) -> Option<Option<IgnoredAny>> {
        if self.lit("null").is_some() {
            return Some(None);
        }
        self.skip_number().map(|()| Some(IgnoredAny))
    }

    /// `[item, item, …]` into a [`Few`].
    #[inline(always)]
    fn few<T: Default, const N: usize>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Option<T>,
    ) -> Option<Few<T, N>> {
        self.lit("[")?;
        let mut items = Few::default();
        if self.lit("]").is_some() {
            return Some(items);
        }
        loop {
            items.push(item(self)?);
            if self.lit("]").is_some() {
                return Some(items);
            }
            self.lit(",")?;
        }
    }

    /// One JSON value read by serde_json where the cursor is (a non-empty `combination` or
    /// `params` list: the same values as in the full parse).
    fn serde<T: serde::de::DeserializeOwned>(&mut self) -> Option<T> {
        let mut values = serde_json::Deserializer::from_str(self.rest()).into_iter::<T>();
        let value = values.next()?.ok()?;
        self.i += values.byte_offset();
        Some(value)
    }

    /// A sample: `{"name":…,"configuration":…,"params":…,"rate":…,"time_s":…,"source":…,
    /// "metrics":[…]}`, with `configuration`, `params`, `time_s` and `metrics` absent at their default (as
    /// benchdiff writes them now) or present (older files, and `"time_s":null`).
    fn sample(&mut self, benchmark: &Cow<'a, str>) -> Option<CommandSampleView<'a>> {
        self.lit("{\"name\":")?;
        let mut name = self.string()?;
        // The same text as the job's benchmark (as benchdiff writes it): the same bytes, so
        // that the thread taking the job reads one place of the line, not two.
        if name == *benchmark {
            name = benchmark.clone();
        }
        let configuration = if self.lit(",\"configuration\":").is_some() {
            self.string()?
        } else {
            Cow::Borrowed("")
        };
        let params = if self.lit(",\"params\":").is_none() || self.lit("[]").is_some() {
            Vec::new()
        } else {
            self.serde()?
        };
        self.lit(",\"rate\":")?;
        // As `super::super::de_f64` reads it: a number, `null` (NaN) or one of three strings.
        let rate = match self.peek()? {
            b'"' => match &*self.string()? {
                "NaN" => f64::NAN,
                "Infinity" => f64::INFINITY,
                "-Infinity" => f64::NEG_INFINITY,
                _ => return None,
            },
            b'n' => {
                self.lit("null")?;
                f64::NAN
            }
            _ => self.f64()?,
        };
        let time_s = if self.lit(",\"time_s\":").is_none() || self.lit("null").is_some() {
            None
        } else {
            Some(self.f64()?)
        };
        self.lit(",\"source\":")?;
        let source = known(self.string()?);
        let metrics = if self.lit(",\"metrics\":").is_some() {
            self.few(Cursor::metric)?
        } else {
            Few::default()
        };
        self.lit("}")?;
        Some(CommandSampleView {
            name,
            configuration,
            params,
            rate,
            time_s,
            metrics,
            source,
        })
    }

    /// A metric: `{"name":…,"unit":…,"better":"lower"|"higher","value":…}`.
    #[inline(always)]
    fn metric(&mut self) -> Option<MetricView<'a>> {
        self.lit("{\"name\":")?;
        let name = known(self.string()?);
        self.lit(",\"unit\":")?;
        let unit = known(self.string()?);
        self.lit(",\"better\":")?;
        let better = if self.lit("\"lower\"").is_some() {
            Better::Lower
        } else if self.lit("\"higher\"").is_some() {
            Better::Higher
        } else {
            match &*self.string()? {
                "lower" => Better::Lower,
                "higher" => Better::Higher,
                _ => return None,
            }
        };
        self.lit(",\"value\":")?;
        let value = self.f64()?;
        self.lit("}")?;
        Some(MetricView {
            name,
            unit,
            better,
            value,
        })
    }
}

/// `text` as a static string when it is the name or unit of a metric benchdiff measures for
/// every sample, else as it is. The thread that takes the jobs in order then reads these
/// from one small static table instead of from the lines (parsed on other cores: reading
/// their bytes again there was a quarter of that thread's time, mostly cache misses).
#[inline(always)]
fn known(text: Cow<'_, str>) -> Cow<'_, str> {
    let k: &'static str = match &*text {
        "wall" => "wall",
        "user" => "user",
        "sys" => "sys",
        "max_rss" => "max_rss",
        "s" => "s",
        "bytes" => "bytes",
        "" => "",
        "whole-process" => "whole-process",
        "node" => "node",
        "json" => "json",
        _ => return text,
    };
    Cow::Borrowed(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::result_lines::ReportedMetric;
    use crate::format::results::command::{CommandJobRecord, CommandSample};
    use crate::format::results::{OkJob, Record, load_from, load_streamed};
    use serde_json::json;

    /// Checks that the fast path and serde agree on `line`: when the fast path reads it,
    /// serde reads it too, to the same view (compared by their `Debug` text, so NaN equals
    /// NaN and -0 differs from 0). Returns whether the fast path read it.
    fn agree(line: &str) -> bool {
        let fast = parse(line);
        if let Some(f) = &fast {
            let full: CommandJobView<'_> = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("serde rejects what the fast path reads ({e}): {line}"));
            assert_eq!(format!("{f:?}"), format!("{full:?}"), "{line}");
        }
        fast.is_some()
    }

    fn metric(name: &str, unit: &str, value: f64) -> ReportedMetric {
        ReportedMetric {
            name: name.into(),
            unit: unit.into(),
            better: Better::Lower,
            value,
        }
    }

    fn sample(name: &str, configuration: &str, rate: f64, time_s: Option<f64>) -> CommandSample {
        CommandSample {
            name: name.into(),
            configuration: configuration.into(),
            params: Vec::new(),
            rate,
            time_s,
            source: "whole-process".into(),
            metrics: Vec::new(),
        }
    }

    /// The job's own measurements, as benchdiff records them once per job.
    fn process() -> Vec<ReportedMetric> {
        vec![
            metric("wall", "s", 0.0010026395436679254),
            metric("user", "s", 0.001),
            metric("sys", "s", 0.0),
            metric("max_rss", "bytes", 6623232.0),
        ]
    }

    fn job(benchmark: &str, samples: Vec<CommandSample>) -> CommandJobRecord {
        CommandJobRecord {
            position: 7,
            benchmark: benchmark.into(),
            combination: Vec::new(),
            side: Side::New,
            run: 3,
            warmup: false,
            argv: vec!["/bin/true".into(), "a \"b\"".into()],
            status: JobStatus::Ok,
            exit_code: Some(0),
            signal: None,
            wall_s: 0.0010026395436679254,
            user_s: 0.001,
            sys_s: 0.0,
            max_rss_bytes: 6623232,
            metrics: Some(process()),
            samples,
            samples_before: 0,
            error: None,
            stderr_tail: Vec::new(),
        }
    }

    /// The line benchdiff writes for `record`.
    fn line(record: CommandJobRecord) -> String {
        serde_json::to_string(&Record::CommandJob(record)).expect("serialises")
    }

    /// A job record that continues samples of earlier records (`samples_before`, written after
    /// `samples`) is left to serde, which reads the count; without it the fast path reads the
    /// record as before.
    #[test]
    fn a_record_continuing_split_samples_is_left_to_serde() {
        let mut j = job("b", vec![sample("b", "", 2.0, Some(0.5))]);
        assert!(agree(&line(j.clone())));
        j.samples_before = 3;
        let text = line(j);
        assert!(text.contains("\"samples\":[") && text.ends_with(",\"samples_before\":3}"));
        assert!(!agree(&text));
        let view: CommandJobView<'_> = serde_json::from_str(&text).expect("serde reads it");
        assert_eq!(view.samples_before, 3);
        assert_eq!(view.samples.len(), 1);
    }

    /// Jobs as benchdiff writes them are read by the fast path, to the values serde reads:
    /// escapes and non-ASCII text in names, parameters and combinations, rates that are
    /// integral, tiny, huge, negative zero, NaN or infinite, no time, warm-ups, several
    /// samples, no samples.
    #[test]
    fn lines_benchdiff_writes_are_read_as_serde_reads_them() {
        let mut with_params = sample("b", "n=1 s='x'", 12.5, Some(0.08));
        with_params.params = vec![
            ("n".into(), json!(1)),
            ("s".into(), json!("x \"y\"")),
            ("f".into(), json!(1.5e-7)),
            ("z".into(), serde_json::Value::Null),
            ("t".into(), json!(true)),
        ];
        let mut warmup = job("warm", Vec::new());
        warmup.warmup = true;
        let mut combined = job("c", vec![sample("c", "", 1.0, None)]);
        combined.combination = vec![("size".into(), "1 KiB".into()), ("é".into(), "\"".into())];
        combined.side = Side::Old;
        combined.exit_code = None;
        combined.signal = Some(9);
        combined.wall_s = f64::NAN;
        // A line's own metrics; a job under cachegrind (counters only); a file written before
        // job measurements were recorded once per job (every sample carries them first).
        let mut own = sample("j", "", 3.0, Some(0.5));
        own.metrics = vec![metric("allocs", "", 12.0), metric("peak", "MB/s", 1.5)];
        own.source = "json".into();
        let mut counters = job("cg", vec![sample("cg", "", f64::NAN, None)]);
        counters.metrics = Some(vec![metric("instructions", "", 123456789.0)]);
        let mut old = job("old", Vec::new());
        old.metrics = None;
        old.samples = (0..3)
            .map(|i| {
                let mut s = sample("old", "", 10.0 + f64::from(i), Some(0.1));
                s.metrics = process();
                s
            })
            .collect();
        // Older files also wrote empty configurations, parameter lists and unknown times.
        let old_line = line(old).replace(
            "{\"name\":\"old\",",
            "{\"name\":\"old\",\"configuration\":\"\",\"params\":[],",
        );
        let no_time = line(job("t", vec![sample("t", "", 1.0, None)])).replace(
            "{\"name\":\"t\",\"rate\":1.0,",
            "{\"name\":\"t\",\"configuration\":\"\",\"params\":[],\"rate\":1.0,\"time_s\":null,",
        );
        assert!(old_line.contains("\"params\":[]") && no_time.contains("null,\"source"));
        let lines = [
            line(job(
                "bench0",
                vec![sample("bench0", "", 997.3674051810591, Some(0.001))],
            )),
            line(job(
                "a\"b\\c\nd é \u{1}\u{7f}",
                vec![sample(
                    "a\"b\\c\nd é \u{1}\u{7f}",
                    "x='\\'' y=\"\"",
                    1e-7,
                    None,
                )],
            )),
            line(job(
                "rates",
                vec![
                    sample("rates", "", 6623232.0, Some(1e-9)),
                    sample("rates", "", 1.5e300, Some(0.0)),
                    sample("rates", "", -0.0, Some(-0.0)),
                    sample("rates", "", f64::NAN, None),
                    sample("rates", "", f64::INFINITY, None),
                    sample("rates", "", f64::NEG_INFINITY, None),
                    sample("other name", "", 5e-324, Some(f64::MAX)),
                ],
            )),
            line(job("p", vec![with_params])),
            line(warmup),
            line(combined),
            line(job("own", vec![own])),
            line(counters),
            old_line,
            no_time,
        ];
        for l in &lines {
            assert!(agree(l), "not read by the fast path: {l}");
        }
    }

    /// The `ok` command jobs of results files written by real runs (the repository's test
    /// data: combinations, parameters, program metrics) are read by the fast path, as serde
    /// reads them.
    #[test]
    fn real_results_files_are_read_by_the_fast_path() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/results");
        let mut read = 0;
        for file in ["cmd-run.jsonl", "cmd-lines.jsonl", "cmd-multi.jsonl"] {
            let text = std::fs::read_to_string(format!("{dir}/{file}")).expect("test data");
            for l in text
                .lines()
                .filter(|l| l.starts_with("{\"type\":\"command-job\""))
            {
                let ok = l.contains("\"status\":\"ok\"");
                assert_eq!(agree(l), ok, "{file}: {l}");
                read += usize::from(ok);
            }
        }
        assert_eq!(read, 20);
    }

    /// A [`Few`] reads as the vector of its items, in place up to its size and beyond it
    /// (a job with several samples, a sample with program metrics).
    #[test]
    fn few_reads_as_its_items() {
        for n in 0..12 {
            let mut few: Few<String, 4> = Few::default();
            let items: Vec<String> = (0..n).map(|i| format!("m{i}")).collect();
            for i in &items {
                few.push(i.clone());
            }
            assert_eq!(&*few, items.as_slice());
            assert_eq!(format!("{few:?}"), format!("{items:?}"));
            let json = serde_json::to_string(&items).expect("serialises");
            let read: Few<String, 4> = serde_json::from_str(&json).expect("reads");
            assert_eq!(&*read, items.as_slice());
        }
    }

    /// Numbers read by [`Cursor::f64`] (in one exact operation, or by the standard library)
    /// have the standard library's value (the value serde_json's `float_roundtrip` gives):
    /// random digit strings around 2^53, with fractions and exponents, signs and zeros.
    #[test]
    fn numbers_are_the_parsed_numbers() {
        let read = |token: &str| {
            let mut c = Cursor {
                s: token,
                b: token.as_bytes(),
                i: 0,
            };
            let x = c.f64();
            assert_eq!(c.i, token.len(), "{token}");
            x
        };
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..200_000u64 {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            let r = s.wrapping_mul(0x2545_F491_4F6C_DD1D);
            let digits = (r % 10u64.pow(1 + (i % 19) as u32)).to_string();
            let point = ((r >> 20) as usize % (digits.len() + 1)).max(1);
            let mut token = String::new();
            if r & 1 == 1 {
                token.push('-');
            }
            token.push_str(&digits[..point]);
            if point < digits.len() {
                token.push('.');
                token.push_str(&digits[point..]);
            }
            if r & 2 == 2 {
                token.push_str(&format!("e{}", (r >> 40) as i64 % 40 - 20));
            }
            if token.len() > 18 && !token.contains(['.', 'e']) {
                continue;
            }
            let std: f64 = token.parse().expect("a number");
            assert_eq!(
                read(&token).map(f64::to_bits),
                Some(std.to_bits()),
                "{token}"
            );
        }
        for (token, x) in [
            ("-0", -0.0),
            ("0.0", 0.0),
            ("9007199254740992", 9007199254740992.0),
            ("9007199254740993", 9007199254740992.0),
            ("1e23", 1e23),
            ("1E+2", 100.0),
            ("0.0010026395436679254", 0.0010026395436679254),
        ] {
            assert_eq!(
                read(token).map(f64::to_bits),
                Some(f64::to_bits(x)),
                "{token}"
            );
        }
        for token in [
            "1e400",
            "1e0400",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "123456789012345678901",
        ] {
            let mut c = Cursor {
                s: token,
                b: token.as_bytes(),
                i: 0,
            };
            let whole = c.f64().is_some() && c.i == token.len();
            assert!(!whole, "{token}");
        }
    }

    /// Lines written by hand in other forms: numbers in exponent and integer form are read as
    /// serde reads them; other shapes (whitespace, missing, extra or reordered fields, other
    /// statuses) are left to serde, and lines serde rejects (bad numbers, bad escapes, raw
    /// control characters, numbers out of range, cut short) are rejected.
    #[test]
    fn other_lines_agree_with_serde() {
        let base = line(job("b", vec![sample("b", "", 100.0, Some(0.01))]));
        let with = |from: &str, to: &str| {
            assert!(base.contains(from), "{from}");
            base.replacen(from, to, 1)
        };
        // Read by the fast path, to serde's values.
        for l in [
            with("\"rate\":100.0", "\"rate\":1E+2"),
            with("\"rate\":100.0", "\"rate\":100"),
            with("\"rate\":100.0", "\"rate\":2.5e-3"),
            with("\"rate\":100.0", "\"rate\":-7"),
            with("\"rate\":100.0", "\"rate\":-0"),
            with("\"rate\":100.0", "\"rate\":null"),
            with("\"rate\":100.0", "\"rate\":\"NaN\""),
            with("\"rate\":100.0", "\"rate\":123456789012345678"),
            with(
                "\"rate\":100.0",
                "\"rate\":0.1000000000000000055511151231257827",
            ),
            with("\"time_s\":0.01", "\"time_s\":1e-9"),
            with("\"time_s\":0.01", "\"time_s\":1e-400"),
            with("\"time_s\":0.01", "\"time_s\":2.4703282292062328e-324"),
            with("\"time_s\":0.01", "\"time_s\":1.7976931348623157e308"),
            with("\"value\":6623232.0", "\"value\":6.623232e6"),
            with("\"value\":0.001}", "\"value\":1e-3}"),
            with("\"name\":\"b\"", "\"name\":\"\\u0062\""),
            with("\"unit\":\"s\"", "\"unit\":\"\\u00e9\""),
            with("\"better\":\"lower\"", "\"better\":\"higher\""),
            format!("{base} \r\n"),
        ] {
            assert!(agree(&l), "not read by the fast path: {l}");
        }
        // Left to serde, which may read or reject them.
        for l in [
            with("{\"type\":\"command-job\",", "{ \"type\":\"command-job\","),
            with(",\"signal\":null", ""),
            with(",\"samples\"", ",\"extra\":1,\"samples\""),
            with("}]}", "}],\"error\":\"x\"}"),
            with("\"status\":\"ok\"", "\"status\":\"failed\""),
            with("\"side\":\"new\"", "\"side\":\"n\\u0065w\""),
            with("\"better\":\"lower\"", "\"better\":\"sideways\""),
            with("\"rate\":100.0", "\"rate\":01"),
            with("\"rate\":100.0", "\"rate\":1."),
            with("\"rate\":100.0", "\"rate\":.5"),
            with("\"rate\":100.0", "\"rate\":1e400"),
            with("\"rate\":100.0", "\"rate\":1e0400"),
            with("\"rate\":100.0", "\"rate\":12345678901234567890123"),
            with("\"rate\":100.0", "\"rate\":\"fast\""),
            with("\"position\":7", "\"position\":4294967296"),
            with("\"position\":7", "\"position\":7.0"),
            with("\"position\":7", "\"position\":-1"),
            with("\"name\":\"b\"", "\"name\":\"\\x\""),
            with("\"name\":\"b\"", "\"name\":\"\\ud800\""),
            with("\"name\":\"b\"", "\"name\":\"a\u{1}b\""),
            with("\"value\":6623232.0", "\"value\":null"),
            format!("{base}x"),
        ] {
            assert!(!agree(&l), "read by the fast path: {l}");
        }
        // Cut short anywhere (a killed run's last line): rejected.
        for end in 0..base.len() {
            assert!(!agree(&base[..end]), "read cut at {end}");
        }
        // Any one byte changed: the fast path reads it only where serde reads the same.
        for i in 0..base.len() {
            for b in [" ", "0", "9", "\"", "x", "\\", ",", "}", "]", "e", "-", "."] {
                let mut l = base.clone();
                l.replace_range(i..=i, b);
                agree(&l);
            }
        }
    }

    /// Through the loader: a file mixing lines of the fast path, lines left to serde (an extra
    /// field, a failed job), a malformed line and a last line cut short by a kill gives the
    /// samples and the warnings (naming the lines) of the loader without the fast path.
    #[test]
    fn loader_gives_the_same_samples_and_warnings() {
        let header = "{\"type\":\"command-run\",\"benchdiff\":\"0.1.0\",\"started_unix_s\":1.0,\
             \"targets\":[{\"side\":\"old\",\"label\":\"/bin/true\",\"argv\":[\"/bin/true\"]},\
             {\"side\":\"new\",\"label\":\"/bin/true\",\"argv\":[\"/bin/true\"]}],\
             \"benchmarks\":[{\"name\":\"b\",\"template\":\"\",\"params\":[],\"exclusions\":[]}],\
             \"runs\":2,\"warmup\":0,\"order\":\"node\",\"seed\":1,\"shell\":false,\
             \"timeout_s\":null,\"prepare\":null,\"setup\":null,\"cleanup\":null,\"cpus\":null,\
             \"jobs\":6}";
        let at = |position: u32, rate: f64| {
            let mut j = job("b", vec![sample("b", "", rate, Some(0.01))]);
            j.position = position;
            j.run = position / 2;
            j.side = if position.is_multiple_of(2) {
                Side::Old
            } else {
                Side::New
            };
            line(j)
        };
        let mut failed = job("b", Vec::new());
        failed.position = 4;
        failed.status = JobStatus::Failed;
        failed.exit_code = Some(1);
        let extra = at(2, 3.0).replacen(",\"samples\"", ",\"extra\":[1],\"samples\"", 1);
        let cut = at(5, 6.0);
        let text = [
            header.to_owned(),
            at(0, 1.0),
            at(1, 2.0),
            extra,
            "{\"type\":\"command-job\",\"position\":3,".to_owned(),
            line(failed),
            at(3, 4.0),
            cut[..cut.len() / 2].to_owned(),
        ]
        .join("\n");
        let mut rates = Vec::new();
        let streamed = load_streamed(text.as_bytes(), "r.jsonl", &mut |job| {
            if let OkJob::Command(j) = job {
                rates.extend(j.samples.iter().map(|s| s.rate));
            }
        })
        .expect("loads");
        assert_eq!(rates, [1.0, 2.0, 3.0, 4.0]);
        let full = load_from(text.as_bytes(), "r.jsonl").expect("loads");
        let full_rates: Vec<f64> = full
            .command_done
            .iter()
            .flat_map(|j| j.samples.iter().map(|s| s.rate))
            .collect();
        assert_eq!(full_rates, rates);
        assert_eq!(streamed.warnings, full.warnings);
        let lines: Vec<&str> = streamed
            .warnings
            .iter()
            .map(|w| w.split(':').next().unwrap_or(""))
            .collect();
        assert_eq!(lines, ["line 5", "line 8"], "{:?}", streamed.warnings);
        assert_eq!(streamed.command_failed.len(), 1);
        // With a failed job, the `ok` jobs kept for the failure summary are those of the
        // full loader (position, benchmark, combination, side, run, warm-up).
        let key = |l: &crate::format::results::Loaded| -> Vec<_> {
            l.command_done
                .iter()
                .map(|j| {
                    let c = j.combination.clone();
                    (j.position, j.benchmark.clone(), c, j.side, j.run, j.warmup)
                })
                .collect()
        };
        assert_eq!(key(&streamed), key(&full));
        assert_eq!(key(&streamed).len(), 4);
    }
}
