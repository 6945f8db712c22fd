//! One key of a player kind, declared once: its name, what values it takes, its default and
//! what it means. Checking a value, the `expected ...` of an error message, the key tables of
//! `fanorona players` and of the docs all come from the declaration.

use std::fmt::Write as _;

/// What values a key takes, and its default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Takes {
    /// A whole number in `min..=max`.
    Whole {
        /// Smallest value.
        min: u64,
        /// Largest value.
        max: u64,
        /// The value when the key is not given (`None`: no value, see the key's help).
        default: Option<u64>,
    },
    /// A finite number in `min..=max`, or in `min < x <= max` when `above_min`.
    Number {
        /// Lower bound.
        min: f64,
        /// The lower bound itself is not allowed.
        above_min: bool,
        /// Upper bound.
        max: f64,
        /// The value when the key is not given.
        default: Option<f64>,
    },
    /// `on` or `off`.
    Switch {
        /// The value when the key is not given.
        default: bool,
    },
    /// One word of a fixed list.
    Word {
        /// The words allowed.
        choices: &'static [&'static str],
        /// The value when the key is not given (`None`: no value, see the key's help).
        default: Option<&'static str>,
    },
    /// Any text without `,` (a file name).
    Text {
        /// What it takes, short, for tables (`file`).
        short: &'static str,
        /// What the text names, for messages (`a model file`).
        what: &'static str,
    },
}

/// One key of a player kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Key {
    /// The key's name in specs (`depth`).
    pub name: &'static str,
    /// What it takes.
    pub takes: Takes,
    /// The kind cannot be built without it.
    pub required: bool,
    /// What it does, one line.
    pub help: &'static str,
}

impl Key {
    /// A whole-number key.
    pub const fn whole(
        name: &'static str,
        min: u64,
        max: u64,
        default: Option<u64>,
        help: &'static str,
    ) -> Key {
        Key {
            name,
            takes: Takes::Whole { min, max, default },
            required: false,
            help,
        }
    }

    /// A number key (`min..=max`).
    pub const fn number(
        name: &'static str,
        min: f64,
        max: f64,
        default: Option<f64>,
        help: &'static str,
    ) -> Key {
        Key::numeric(name, (min, false, max), default, help)
    }

    /// A number key that must be above `min` (`min < x <= max`).
    pub const fn above(
        name: &'static str,
        min: f64,
        max: f64,
        default: Option<f64>,
        help: &'static str,
    ) -> Key {
        Key::numeric(name, (min, true, max), default, help)
    }

    const fn numeric(
        name: &'static str,
        (min, above_min, max): (f64, bool, f64),
        default: Option<f64>,
        help: &'static str,
    ) -> Key {
        Key {
            name,
            takes: Takes::Number {
                min,
                above_min,
                max,
                default,
            },
            required: false,
            help,
        }
    }

    /// An `on`/`off` key.
    pub const fn switch(name: &'static str, default: bool, help: &'static str) -> Key {
        Key {
            name,
            takes: Takes::Switch { default },
            required: false,
            help,
        }
    }

    /// A key taking one word of `choices`.
    pub const fn word(
        name: &'static str,
        choices: &'static [&'static str],
        default: Option<&'static str>,
        help: &'static str,
    ) -> Key {
        Key {
            name,
            takes: Takes::Word { choices, default },
            required: false,
            help,
        }
    }

    /// A key taking a file name (`short` says so in tables, `what` in messages).
    pub const fn text(
        name: &'static str,
        short: &'static str,
        what: &'static str,
        help: &'static str,
    ) -> Key {
        Key {
            name,
            takes: Takes::Text { short, what },
            required: false,
            help,
        }
    }

    /// The same key, required.
    pub const fn required(mut self) -> Key {
        self.required = true;
        self
    }

    /// The same whole-number key with another default (a kind's own default for a shared key).
    pub const fn default_whole(mut self, value: u64) -> Key {
        if let Takes::Whole { min, max, .. } = self.takes {
            self.takes = Takes::Whole {
                min,
                max,
                default: Some(value),
            };
        }
        self
    }

    /// The same number key with another default.
    pub const fn default_number(mut self, value: f64) -> Key {
        if let Takes::Number {
            min,
            above_min,
            max,
            ..
        } = self.takes
        {
            self.takes = Takes::Number {
                min,
                above_min,
                max,
                default: Some(value),
            };
        }
        self
    }

    /// Whether `text` is a value this key takes.
    pub fn accepts(&self, text: &str) -> bool {
        match self.takes {
            Takes::Whole { min, max, .. } => {
                text.parse::<u64>().is_ok_and(|v| (min..=max).contains(&v))
            }
            Takes::Number {
                min,
                above_min,
                max,
                ..
            } => {
                // Players keep these as f32: the value must be finite as one too.
                text.parse::<f32>().is_ok_and(f32::is_finite)
                    && text
                        .parse::<f64>()
                        .is_ok_and(|v| v <= max && if above_min { v > min } else { v >= min })
            }
            Takes::Switch { .. } => matches!(text, "on" | "off"),
            Takes::Word { choices, .. } => choices.contains(&text),
            Takes::Text { .. } => !text.is_empty(),
        }
    }

    /// What a value must be, for an error message: `a whole number from 1 to 64`.
    pub fn expected(&self) -> String {
        match self.takes {
            Takes::Whole { min, max, .. } => {
                format!("a whole number from {min} to {}", number_text(max as f64))
            }
            Takes::Number {
                min,
                above_min,
                max,
                ..
            } => match (above_min, max.is_finite()) {
                (true, false) => format!("a number above {}", number_text(min)),
                (true, true) => format!(
                    "a number above {} and at most {}",
                    number_text(min),
                    number_text(max)
                ),
                (false, _) => format!("a number from {} to {}", number_text(min), number_text(max)),
            },
            Takes::Switch { .. } => "`on` or `off`".to_string(),
            Takes::Word { choices, .. } => one_of(choices),
            Takes::Text { what, .. } => what.to_string(),
        }
    }

    /// The default, as text (`None`: the key has no default value).
    pub fn default_text(&self) -> Option<String> {
        match self.takes {
            Takes::Whole { default, .. } => default.map(|d| d.to_string()),
            Takes::Number { default, .. } => default.map(number_text),
            Takes::Switch { default } => Some(if default { "on" } else { "off" }.to_string()),
            Takes::Word { default, .. } => default.map(str::to_string),
            Takes::Text { .. } => None,
        }
    }

    /// What it takes, short, for tables: `1-64`, `on/off`, `native/burn`, `file`.
    pub fn range_text(&self) -> String {
        match self.takes {
            Takes::Whole { min, max, .. } if max == u64::MAX => format!("{min}-2^64-1"),
            Takes::Whole { min, max, .. } => format!("{min}-{}", number_text(max as f64)),
            Takes::Number {
                min,
                above_min: true,
                max,
                ..
            } if !max.is_finite() => format!("> {}", number_text(min)),
            Takes::Number {
                min,
                above_min,
                max,
                ..
            } => format!(
                "{}{}-{}",
                if above_min { "> " } else { "" },
                number_text(min),
                number_text(max)
            ),
            Takes::Switch { .. } => "on/off".to_string(),
            Takes::Word { choices, .. } => choices.join("/"),
            Takes::Text { short, .. } => short.to_string(),
        }
    }
}

/// A number as people write it: `0.5`, `300`, `10000000`.
fn number_text(x: f64) -> String {
    if x == u64::MAX as f64 {
        "2^64-1".to_string()
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        let mut s = String::new();
        let _ = write!(s, "{x}");
        s
    }
}

/// `` `a` or `b` ``, `` `a`, `b` or `c` ``.
fn one_of(choices: &[&str]) -> String {
    let quoted: Vec<String> = choices.iter().map(|c| format!("`{c}`")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => "nothing".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_against_the_declaration() {
        let depth = Key::whole("depth", 1, 64, None, "");
        assert!(depth.accepts("1") && depth.accepts("64"));
        assert!(!depth.accepts("0") && !depth.accepts("65") && !depth.accepts("x"));
        assert_eq!(depth.expected(), "a whole number from 1 to 64");
        let mix = Key::number("mix", 0.0, 1.0, Some(0.0), "");
        assert!(mix.accepts("0") && mix.accepts("0.5") && mix.accepts("1"));
        assert!(!mix.accepts("1.01") && !mix.accepts("NaN") && !mix.accepts("-0.1"));
        let c = Key::above("c", 0.0, f64::INFINITY, Some(1.5), "");
        assert!(c.accepts("0.001") && !c.accepts("0") && !c.accepts("inf"));
        assert!(!c.accepts("1e39"), "finite as f64, not as f32");
        assert_eq!(c.expected(), "a number above 0");
        assert_eq!(c.default_text().as_deref(), Some("1.5"));
        let tb = Key::switch("tb", true, "");
        assert!(tb.accepts("off") && !tb.accepts("no"));
        assert_eq!(tb.default_text().as_deref(), Some("on"));
        let backend = Key::word("backend", &["native", "burn"], None, "");
        assert_eq!(backend.expected(), "`native` or `burn`");
        assert!(!backend.accepts("cuda"));
        assert_eq!(c.default_number(4.0).default_text().as_deref(), Some("4"));
        assert_eq!(
            Key::whole("seed", 0, u64::MAX, None, "").expected(),
            "a whole number from 0 to 2^64-1"
        );
    }
}
