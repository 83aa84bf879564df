//! Plots as SVG text, drawn with plotters' SVG backend (text is written as `<text>` with the
//! `sans-serif` family and XML-escaped by the backend, so no fonts are needed and names from
//! the input cannot inject markup).
//!
//! - [`box_plot`]: one comparison, a box per binary with every sample drawn as a point;
//! - [`density`]: Gaussian kernel density per binary, scaled to its peak (Silverman's bandwidth,
//!   [`crate::verdict::density`]), so two regimes show as two humps;
//! - [`drift`]: value against run order per binary;
//! - [`compare_r_box_plot`]: compare.R's `--plot` (all comparisons, boxes by benchmark filled
//!   by binary, names at 90°).
//!
//! Colours follow ggplot2's two-level default hue palette, which compare.R's plot uses:
//! new `#F8766D`, old `#00BFC4`. Box geometry is Tukey's (type-7 quartiles, whiskers to the
//! furthest sample within 1.5 IQR), as ggplot2's `geom_boxplot`.

use super::table::si;
use crate::compare::Comparison;
use crate::verdict::density::{bandwidth, kde, tukey_box};
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::fmt::Write as _;

/// Colour of the old binary (ggplot2 hue palette, second level).
pub const OLD_COLOR: RGBColor = RGBColor(0x00, 0xBF, 0xC4);
/// Colour of the new binary (ggplot2 hue palette, first level).
pub const NEW_COLOR: RGBColor = RGBColor(0xF8, 0x76, 0x6D);

/// Why a plot could not be drawn (the plotting backend's error, as text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot draw plot: {0}")]
pub struct PlotError(pub String);

fn err<E: std::fmt::Debug>(e: E) -> PlotError {
    PlotError(format!("{e:?}"))
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Largest magnitude an axis reaches ([`axis_range`]): values beyond it are drawn at the edge.
const AXIS_LIMIT: f64 = 1e300;

/// `c` with its values clamped to ±[`AXIS_LIMIT`] (a copy only when some finite value lies
/// beyond): plotters maps a value far outside its axis to a pixel past `i32` and overflows.
fn drawable(c: &Comparison) -> std::borrow::Cow<'_, Comparison> {
    let beyond = |v: &f64| v.is_finite() && v.abs() > AXIS_LIMIT;
    if !c.old.iter().chain(&c.new).any(beyond) {
        return std::borrow::Cow::Borrowed(c);
    }
    let mut d = c.clone();
    for v in d.old.iter_mut().chain(d.new.iter_mut()) {
        *v = if beyond(v) {
            v.clamp(-AXIS_LIMIT, AXIS_LIMIT)
        } else {
            *v
        };
    }
    std::borrow::Cow::Owned(d)
}

/// Value range of finite values with 5% padding (a constant or empty input gets a small
/// non-empty range), made drawable by [`axis_range`].
fn value_range<'a>(values: impl Iterator<Item = &'a f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        let v = v.clamp(-AXIS_LIMIT, AXIS_LIMIT);
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = if hi > lo {
        (hi - lo) * 0.05
    } else {
        (lo.abs() * 0.01).max(1e-9)
    };
    axis_range(lo - pad, hi + pad)
}

/// The range `lo..hi` as one plotters can divide into ticks: clamped to ±1.1·[`AXIS_LIMIT`]
/// (never infinite: extreme values padded or widened by a bandwidth overflow), and widened
/// about its middle to at least 10⁻⁹ of its largest magnitude and 10⁻²⁰⁰. A narrower range —
/// two subnormal values, `1e15` and `1e15 + 1` — has ticks closer than the values' precision,
/// and plotters' tick search (`compute_f64_key_points`) never ends on it. A range that is
/// already drawable is returned unchanged.
fn axis_range(lo: f64, hi: f64) -> (f64, f64) {
    let limit = AXIS_LIMIT * 1.1;
    let clamp = |v: f64, default: f64| {
        if v.is_nan() {
            default
        } else {
            v.clamp(-limit, limit)
        }
    };
    let (lo, hi) = (clamp(lo, -limit), clamp(hi, limit));
    let min_width = (lo.abs().max(hi.abs()) * 1e-9).max(1e-200);
    if hi - lo >= min_width {
        return (lo, hi);
    }
    let mid = lo / 2.0 + hi / 2.0;
    (mid - min_width, mid + min_width)
}

/// Deterministic horizontal jitter in `[-0.5, 0.5)` for the i-th point (golden-ratio sequence).
fn jitter(i: usize) -> f64 {
    (i as f64 * 0.618_033_988_749_895).fract() - 0.5
}

fn draw_box(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    x: f64,
    half: f64,
    values: &[f64],
    color: RGBColor,
    points: bool,
) -> Result<(), PlotError> {
    let Some((lo, q1, med, q3, hi)) = tukey_box(values) else {
        return Ok(());
    };
    let line = ShapeStyle::from(&BLACK).stroke_width(1);
    chart
        .draw_series([
            Rectangle::new([(x - half, q1), (x + half, q3)], color.mix(0.55).filled()),
            Rectangle::new([(x - half, q1), (x + half, q3)], line),
        ])
        .map_err(err)?;
    chart
        .draw_series([
            PathElement::new(vec![(x - half, med), (x + half, med)], line.stroke_width(2)),
            PathElement::new(vec![(x, q3), (x, hi)], line),
            PathElement::new(vec![(x, q1), (x, lo)], line),
        ])
        .map_err(err)?;
    if !points {
        // Values beyond the whiskers, one dot each (as compare.R's ggplot box plot draws them;
        // the value axis is scaled to include them).
        chart
            .draw_series(
                values
                    .iter()
                    .filter(|v| v.is_finite() && (**v < lo || **v > hi))
                    .map(|v| Circle::new((x, *v), 2, BLACK.filled())),
            )
            .map_err(err)?;
        return Ok(());
    }
    // Every sample, jittered: filled, then outlined.
    for style in [color.mix(0.9).filled(), BLACK.stroke_width(1)] {
        chart
            .draw_series(
                values
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| v.is_finite())
                    .map(|(i, v)| Circle::new((x + jitter(i) * half * 1.4, *v), 2, style)),
            )
            .map_err(err)?;
    }
    Ok(())
}

/// The SVG text of a plot of `size` pixels (width, height): a white area that `draw` draws on.
fn svg(
    size: (u32, u32),
    draw: impl FnOnce(&Area<'_>) -> Result<(), PlotError>,
) -> Result<String, PlotError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        draw(&root)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Box plot of one comparison: a box per binary (old left, new right) with every sample as a
/// point. `unit` labels the value axis. Size in pixels.
///
/// # Errors
/// A plotting backend error (not expected when drawing into a string).
pub fn box_plot(c: &Comparison, unit: &str, size: (u32, u32)) -> Result<String, PlotError> {
    let c = &*drawable(c);
    svg(size, |root| {
        let (lo, hi) = value_range(c.old.iter().chain(&c.new));
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .caption("samples", ("sans-serif", 15))
            .x_label_area_size(25)
            .y_label_area_size(55)
            .build_cartesian_2d(-0.5f64..1.5f64, lo..hi)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(5)
            .x_label_formatter(&|x| {
                if x.abs() < 1e-9 {
                    "old".to_owned()
                } else if (x - 1.0).abs() < 1e-9 {
                    "new".to_owned()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| si(*y))
            .y_desc(unit)
            .draw()
            .map_err(err)?;
        draw_box(&mut chart, 0.0, 0.25, &c.old, OLD_COLOR, true)?;
        draw_box(&mut chart, 1.0, 0.25, &c.new, NEW_COLOR, true)?;
        Ok(())
    })
}

/// Density curves of both binaries on one axis (each scaled to its own peak), with a rug of
/// the samples; two regimes show as two humps. A side without spread is drawn as a vertical line at its value.
///
/// # Errors
/// A plotting backend error.
pub fn density(c: &Comparison, unit: &str, size: (u32, u32)) -> Result<String, PlotError> {
    let c = &*drawable(c);
    let all: Vec<f64> = c
        .old
        .iter()
        .chain(&c.new)
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    let h = [
        bandwidth(&c.old).unwrap_or(0.0),
        bandwidth(&c.new).unwrap_or(0.0),
    ]
    .into_iter()
    .fold(0.0, f64::max);
    let (lo, hi) = value_range(all.iter());
    let (lo, hi) = axis_range(lo - 2.0 * h, hi + 2.0 * h);
    const N: usize = 200;
    let grid: Vec<f64> = (0..N)
        .map(|i| lo + (hi - lo) * i as f64 / (N - 1) as f64)
        .collect();
    // Each curve is scaled to its own peak, so a narrow side cannot flatten the other's humps.
    let peak1 = |d: Vec<f64>| {
        let m = d.iter().copied().fold(0.0, f64::max);
        if m > 0.0 {
            d.into_iter().map(|v| v / m).collect()
        } else {
            d
        }
    };
    let curves = [
        (&c.old, OLD_COLOR, "old", kde(&c.old, &grid).map(peak1)),
        (&c.new, NEW_COLOR, "new", kde(&c.new, &grid).map(peak1)),
    ];
    let ymax = curves
        .iter()
        .filter_map(|(_, _, _, d)| d.as_ref())
        .flat_map(|d| d.iter().copied())
        .fold(0.0, f64::max);
    let ymax = if ymax > 0.0 { ymax * 1.1 } else { 1.0 };
    svg(size, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .caption("density", ("sans-serif", 15))
            .x_label_area_size(35)
            .y_label_area_size(20)
            .build_cartesian_2d(lo..hi, 0.0..ymax)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .y_labels(0)
            .x_labels(5)
            .x_label_formatter(&|x| si(*x))
            .x_desc(unit)
            .draw()
            .map_err(err)?;
        for (values, color, name, d) in &curves {
            let color = *color;
            match d {
                Some(d) => {
                    chart
                        .draw_series(
                            AreaSeries::new(
                                grid.iter().copied().zip(d.iter().copied()),
                                0.0,
                                color.mix(0.25),
                            )
                            .border_style(color.stroke_width(2)),
                        )
                        .map_err(err)?
                        .label(*name)
                        .legend(move |(x, y)| {
                            Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                        });
                }
                None => {
                    if let Some(v) = values.iter().find(|v| v.is_finite()) {
                        chart
                            .draw_series([PathElement::new(
                                vec![(*v, 0.0), (*v, ymax / 1.1)],
                                color.stroke_width(2),
                            )])
                            .map_err(err)?
                            .label(*name)
                            .legend(move |(x, y)| {
                                Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                            });
                    }
                }
            }
            let tick = ymax * 0.04;
            chart
                .draw_series(
                    values
                        .iter()
                        .filter(|v| v.is_finite())
                        .map(|v| PathElement::new(vec![(*v, 0.0), (*v, tick)], color)),
                )
                .map_err(err)?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(err)?;
        Ok(())
    })
}

/// Value against run order for both binaries (points joined by lines), to show drift.
///
/// # Errors
/// A plotting backend error.
pub fn drift(c: &Comparison, unit: &str, size: (u32, u32)) -> Result<String, PlotError> {
    let c = &*drawable(c);
    let (lo, hi) = value_range(c.old.iter().chain(&c.new));
    let max_run = c
        .old_runs
        .iter()
        .chain(&c.new_runs)
        .copied()
        .max()
        .unwrap_or(0) as f64;
    svg(size, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .caption("by run order", ("sans-serif", 15))
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d(-0.5..max_run + 0.5, lo..hi)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_labels(6)
            .x_label_formatter(&|x| format!("{}", x.round() as i64 + 1))
            .y_label_formatter(&|y| si(*y))
            .x_desc("run")
            .y_desc(unit)
            .draw()
            .map_err(err)?;
        for (values, runs, color, name) in [
            (&c.old, &c.old_runs, OLD_COLOR, "old"),
            (&c.new, &c.new_runs, NEW_COLOR, "new"),
        ] {
            let _ = name; // the legend is drawn below, outside the plot area
            let pts: Vec<(f64, f64)> = runs
                .iter()
                .zip(values)
                .filter(|(_, v)| v.is_finite())
                .map(|(r, v)| (f64::from(*r), *v))
                .collect();
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.mix(0.6)))
                .map_err(err)?;
            chart
                .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
                .map_err(err)?;
        }
        // The legend sits in the caption row, outside the plot area, so it never covers a
        // data point.
        let (w, _) = size;
        for (k, (name, color)) in [("old", OLD_COLOR), ("new", NEW_COLOR)].iter().enumerate() {
            let x = w as i32 - 110 + 50 * k as i32;
            root.draw(&Rectangle::new([(x, 8), (x + 12, 18)], color.filled()))
                .map_err(err)?;
            root.draw(&Text::new(
                *name,
                (x + 16, 7),
                ("sans-serif", 12).into_font(),
            ))
            .map_err(err)?;
        }
        Ok(())
    })
}

/// compare.R's `--plot`: a box per benchmark and binary (filled by binary: old `#00BFC4`, new
/// `#F8766D`), value axis "rate of operations (higher is better)", benchmark names written at
/// 90° under the boxes, file and configuration on two lines. Width grows with the number of
/// comparisons.
///
/// # Errors
/// A plotting backend error.
pub fn compare_r_box_plot(comparisons: &[&Comparison], y_desc: &str) -> Result<String, PlotError> {
    let drawn: Vec<std::borrow::Cow<'_, Comparison>> =
        comparisons.iter().map(|c| drawable(c)).collect();
    let comparisons: Vec<&Comparison> = drawn.iter().map(|c| &**c).collect();
    let comparisons = comparisons.as_slice();
    let n = comparisons.len().max(1);
    let longest = comparisons
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(10);
    let label_px = (longest as u32 * 6).clamp(60, 600);
    let width = (120 + 50 * n as u32).max(500);
    let height = 420 + label_px;
    let (lo, hi) = value_range(comparisons.iter().flat_map(|c| c.old.iter().chain(&c.new)));
    svg((width, height), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(15)
            .x_label_area_size(label_px + 30)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5f64..n as f64 - 0.5, lo..hi)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_label_formatter(&|y| si(*y))
            .y_desc(y_desc)
            .x_desc("benchmark")
            .draw()
            .map_err(err)?;
        for (i, c) in comparisons.iter().enumerate() {
            let x = i as f64;
            draw_box(&mut chart, x - 0.2, 0.17, &c.old, OLD_COLOR, false)?;
            draw_box(&mut chart, x + 0.2, 0.17, &c.new, NEW_COLOR, false)?;
        }
        let style = ("sans-serif", 11)
            .into_font()
            .transform(FontTransform::Rotate90)
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (i, c) in comparisons.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(i as f64, lo));
            root.draw(&Text::new(c.name.clone(), (px, py + 6), style.clone()))
                .map_err(err)?;
        }
        // Legend: fill by binary.
        let (lx, ly) = (width as i32 - 110, 8);
        for (k, (name, color)) in [("old", OLD_COLOR), ("new", NEW_COLOR)].iter().enumerate() {
            let y = ly + 18 * k as i32;
            root.draw(&Rectangle::new(
                [(lx, y), (lx + 14, y + 12)],
                color.filled(),
            ))
            .map_err(err)?;
            root.draw(&Text::new(
                *name,
                (lx + 20, y),
                ("sans-serif", 12).into_font(),
            ))
            .map_err(err)?;
        }
        Ok(())
    })
}

/// Why PNG output cannot be made by this build: `None` with the `png` cargo feature (resvg),
/// otherwise the message that names the feature.
pub const PNG_UNAVAILABLE: Option<&str> = if cfg!(feature = "png") {
    None
} else {
    Some("benchdiff was built without the png feature: cargo install benchdiff --features png")
};

/// The font embedded for PNG output (DejaVu Sans; see assets/fonts/README.md), so rasterised
/// text looks the same on every machine and no system font is needed.
#[cfg(feature = "png")]
const PNG_FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Rasterises an SVG plot (as drawn by this module) to PNG bytes at its own pixel size, with
/// the embedded DejaVu Sans as the sans-serif font (resvg/usvg).
///
/// # Errors
/// [`PlotError`] when the SVG cannot be parsed, has no area, or PNG encoding fails.
#[cfg(feature = "png")]
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, PlotError> {
    let mut opt = resvg::usvg::Options::default();
    {
        let db = opt.fontdb_mut();
        db.load_font_data(PNG_FONT.to_vec());
        db.set_sans_serif_family("DejaVu Sans");
        db.set_serif_family("DejaVu Sans");
        db.set_monospace_family("DejaVu Sans");
    }
    opt.font_family = "DejaVu Sans".to_owned();
    let tree = resvg::usvg::Tree::from_str(svg, &opt).map_err(err)?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| PlotError("empty plot".to_owned()))?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(err)
}

/// [`svg_to_png`] of a build without the `png` cargo feature.
///
/// # Errors
/// Always: a [`PlotError`] with [`PNG_UNAVAILABLE`]'s message.
#[cfg(not(feature = "png"))]
pub fn svg_to_png(_svg: &str) -> Result<Vec<u8>, PlotError> {
    Err(PlotError(PNG_UNAVAILABLE.unwrap_or_default().to_owned()))
}

/// Size of a [`strip_plot`], pixels (width, height).
pub const STRIP_SIZE: (u32, u32) = (380, 70);

/// Appends `v` (a pixel coordinate) rounded to a tenth, without exponent or trailing zeros
/// (`12.3`, `40`, `-0.5`): the plots' coordinates need no more, and formatting them this way
/// costs a fraction of `{}` on an `f64`.
fn push_tenths(out: &mut String, v: f64) {
    let t = (v * 10.0).round();
    let t = if t.is_finite() {
        t.clamp(-1e9, 1e9) as i64
    } else {
        0
    };
    if t < 0 {
        out.push('-');
    }
    let a = t.unsigned_abs();
    let (whole, frac) = (a / 10, a % 10);
    let mut digits = [0u8; 20];
    let mut n = 0;
    let mut w = whole;
    loop {
        digits[n] = b'0' + (w % 10) as u8;
        n += 1;
        w /= 10;
        if w == 0 {
            break;
        }
    }
    for d in digits[..n].iter().rev() {
        out.push(char::from(*d));
    }
    if frac != 0 {
        out.push('.');
        out.push(char::from(b'0' + frac as u8));
    }
}

/// Appends `pre`, then the point `(x, y)` as [`push_tenths`] writes each, space-separated.
fn push_xy(out: &mut String, pre: &str, x: f64, y: f64) {
    out.push_str(pre);
    push_tenths(out, x);
    out.push(' ');
    push_tenths(out, y);
}

/// A compact strip plot of one comparison, appended to `out` as one `<svg>` element of
/// [`STRIP_SIZE`] pixels, written by hand (no plotting backend) so that a page can carry tens
/// of thousands of them: the value axis runs horizontally over both sides' finite values (5%
/// padding, its ends and middle labelled with [`si`] and `unit`); old (top, `#00BFC4`) and
/// new (bottom, `#F8766D`) each get a Tukey box ([`tukey_box`]: quartiles, median, whiskers
/// to the furthest sample within 1.5 IQR) and every sample as a dot, jittered vertically
/// (dots falling on the same pixel are drawn once). Coordinates are written to a tenth of a
/// pixel. Text from the input (`unit`) is XML-escaped.
pub fn strip_plot(c: &Comparison, unit: &str, out: &mut String) {
    let c = &*drawable(c);
    let (w, h) = STRIP_SIZE;
    let (x0, x1) = (36.0f64, f64::from(w) - 12.0);
    let (lo, hi) = value_range(c.old.iter().chain(&c.new));
    let px = |v: f64| x0 + (v - lo) / (hi - lo) * (x1 - x0);
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} \
         {h}\" font-family=\"sans-serif\" font-size=\"10\"><rect width=\"100%\" height=\"100%\" \
         fill=\"#fff\"/>",
    );
    let mut seen: rustc_hash::FxHashSet<(i32, i32)> = rustc_hash::FxHashSet::default();
    for (values, color, label, cy) in [
        (&c.old, "#00BFC4", "old", 15.0f64),
        (&c.new, "#F8766D", "new", 37.0f64),
    ] {
        out.push_str("<text x=\"4\" y=\"");
        push_tenths(out, cy + 3.5);
        out.push_str("\">");
        out.push_str(label);
        out.push_str("</text>");
        let Some((wl, q1, med, q3, wh)) = tukey_box(values) else {
            continue;
        };
        // Whiskers, box, median.
        push_xy(out, "<path stroke=\"#000\" fill=\"none\" d=\"M", px(wl), cy);
        out.push('H');
        push_tenths(out, px(q1));
        push_xy(out, "M", px(q3), cy);
        out.push('H');
        push_tenths(out, px(wh));
        out.push_str("\"/><rect fill=\"");
        out.push_str(color);
        out.push_str("\" fill-opacity=\".45\" stroke=\"#000\" x=\"");
        push_tenths(out, px(q1));
        out.push_str("\" y=\"");
        push_tenths(out, cy - 7.0);
        out.push_str("\" width=\"");
        push_tenths(out, (px(q3) - px(q1)).max(0.5));
        let median = "\" height=\"14\"/><path stroke=\"#000\" stroke-width=\"2\" d=\"M";
        push_xy(out, median, px(med), cy - 7.0);
        out.push_str("v14\"/>");
        // Every sample as a round dot: one path of zero-length segments with round caps.
        out.push_str("<path stroke=\"");
        out.push_str(color);
        out.push_str(
            "\" stroke-opacity=\".85\" stroke-width=\"3.5\" stroke-linecap=\"round\" d=\"",
        );
        seen.clear();
        for (i, v) in values.iter().enumerate().filter(|(_, v)| v.is_finite()) {
            let (x, y) = (px(*v), cy + jitter(i) * 12.0);
            if !seen.insert(((x * 2.0) as i32, (y * 2.0) as i32)) {
                continue;
            }
            push_xy(out, "M", x, y);
            out.push_str("h0");
        }
        out.push_str("\"/>");
    }
    // Value axis with three labels.
    let ay = 51.0;
    push_xy(out, "<path stroke=\"#888\" d=\"M", x0, ay);
    out.push('H');
    push_tenths(out, x1);
    for t in [x0, (x0 + x1) / 2.0, x1] {
        push_xy(out, "M", t, ay);
        out.push_str("v3");
    }
    out.push_str("\"/>");
    for (t, anchor) in [(x0, "start"), ((x0 + x1) / 2.0, "middle"), (x1, "end")] {
        let v = lo + (t - x0) / (x1 - x0) * (hi - lo);
        out.push_str("<text text-anchor=\"");
        out.push_str(anchor);
        out.push_str("\" x=\"");
        push_tenths(out, t);
        out.push_str("\" y=\"");
        push_tenths(out, ay + 13.0);
        out.push_str("\">");
        super::html::escape_into(out, &si(v));
        if anchor == "end" && !unit.is_empty() {
            out.push(' ');
            super::html::escape_into(out, unit);
        }
        out.push_str("</text>");
    }
    out.push_str("</svg>");
}
