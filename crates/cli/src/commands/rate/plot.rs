//! The Elo-over-training-time chart of a run: an SVG file, one point per checkpoint with its
//! 95% interval, and a dashed line for each panel player.

/// One checkpoint on the chart.
#[derive(Clone, Debug, PartialEq)]
pub struct CurvePoint {
    /// Minutes of training (the run's working time when the checkpoint was saved).
    pub minutes: f64,
    /// Its rating and 95% interval.
    pub elo: f64,
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
}

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 190.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;

/// The chart as SVG text. `references` are `(label, elo)` horizontal lines.
pub fn svg(title: &str, points: &[CurvePoint], references: &[(String, f64)]) -> String {
    let (x_max, y_min, y_max) = ranges(points, references);
    let x = |m: f64| LEFT + (WIDTH - LEFT - RIGHT) * m / x_max;
    let y = |e: f64| TOP + (HEIGHT - TOP - BOTTOM) * (y_max - e) / (y_max - y_min);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{LEFT}\" y=\"24\" font-size=\"15\">{}</text>\n",
        escape(title)
    );
    // Axes with ticks.
    let (plot_bottom, plot_right) = (HEIGHT - BOTTOM, WIDTH - RIGHT);
    out.push_str(&format!(
        "<path d=\"M{LEFT} {TOP} V{plot_bottom} H{plot_right}\" stroke=\"black\" fill=\"none\"/>\n"
    ));
    for tick in ticks(0.0, x_max) {
        out.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{tick}</text>\n",
            x(tick),
            plot_bottom + 18.0
        ));
    }
    for tick in ticks(y_min, y_max) {
        out.push_str(&format!(
            "<path d=\"M{LEFT} {0:.1} H{plot_right}\" stroke=\"#ddd\"/>\n\
             <text x=\"{1:.1}\" y=\"{2:.1}\" text-anchor=\"end\">{tick:+}</text>\n",
            y(tick),
            LEFT - 6.0,
            y(tick) + 4.0
        ));
    }
    out.push_str(&format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">training time (minutes)</text>\n\
         <text x=\"16\" y=\"{:.1}\" transform=\"rotate(-90 16 {:.1})\" text-anchor=\"middle\">Elo (anchor 0), 95% interval</text>\n",
        (LEFT + plot_right) / 2.0,
        HEIGHT - 12.0,
        (TOP + plot_bottom) / 2.0,
        (TOP + plot_bottom) / 2.0
    ));
    for (label, elo) in references {
        out.push_str(&format!(
            "<path d=\"M{LEFT} {0:.1} H{plot_right}\" stroke=\"#888\" stroke-dasharray=\"5 4\"/>\n\
             <text x=\"{1:.1}\" y=\"{2:.1}\" fill=\"#555\">{3} ({elo:+.0})</text>\n",
            y(*elo),
            plot_right + 6.0,
            y(*elo) + 4.0,
            escape(label)
        ));
    }
    let line: Vec<String> = points
        .iter()
        .map(|p| format!("{:.1},{:.1}", x(p.minutes), y(p.elo)))
        .collect();
    out.push_str(&format!(
        "<polyline points=\"{}\" stroke=\"#1f6fb4\" stroke-width=\"2\" fill=\"none\"/>\n",
        line.join(" ")
    ));
    for p in points {
        out.push_str(&format!(
            "<path d=\"M{0:.1} {1:.1} V{2:.1}\" stroke=\"#1f6fb4\"/>\n\
             <circle cx=\"{0:.1}\" cy=\"{3:.1}\" r=\"3.5\" fill=\"#1f6fb4\"/>\n",
            x(p.minutes),
            y(p.lower.max(y_min)),
            y(p.upper.min(y_max)),
            y(p.elo)
        ));
    }
    out.push_str("</svg>\n");
    out
}

/// The x range (from 0) and the y range, padded, covering every point and line.
fn ranges(points: &[CurvePoint], references: &[(String, f64)]) -> (f64, f64, f64) {
    let x_max = points
        .iter()
        .map(|p| p.minutes)
        .fold(1.0f64, f64::max)
        .max(1.0)
        * 1.05;
    let values = points
        .iter()
        .flat_map(|p| [p.lower, p.upper, p.elo])
        .chain(references.iter().map(|r| r.1))
        .filter(|v| v.is_finite());
    let (lo, hi) = values.fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = ((hi - lo) * 0.08).max(20.0);
    (x_max, lo - pad, hi + pad)
}

/// Round tick values in `[lo, hi]`: about six, at 1, 2 or 5 times a power of ten.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-9);
    let raw = span / 6.0;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power);
    let mut tick = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while tick <= hi + 1e-9 && out.len() < 20 {
        out.push((tick * 1e6).round() / 1e6);
        tick += step;
    }
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(
            ticks(0.0, 60.0),
            vec![0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
        );
        assert_eq!(
            ticks(-130.0, 420.0),
            vec![-100.0, 0.0, 100.0, 200.0, 300.0, 400.0]
        );
    }

    #[test]
    fn the_chart_has_a_point_per_checkpoint_and_a_line_per_reference() {
        let points = vec![
            CurvePoint {
                minutes: 10.0,
                elo: -200.0,
                lower: -260.0,
                upper: -140.0,
            },
            CurvePoint {
                minutes: 30.0,
                elo: 50.0,
                lower: 0.0,
                upper: 100.0,
            },
        ];
        let refs = vec![
            ("alphabeta:depth=3".to_string(), 120.0),
            ("a<b".to_string(), 0.0),
        ];
        let text = svg("run & test", &points, &refs);
        assert!(text.starts_with("<svg ") && text.ends_with("</svg>\n"));
        assert_eq!(text.matches("<circle").count(), 2);
        assert_eq!(text.matches("stroke-dasharray").count(), 2);
        assert!(text.contains("run &amp; test") && text.contains("a&lt;b"));
        assert!(!text.contains("NaN") && !text.contains("inf"));
    }
}
