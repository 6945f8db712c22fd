//! The docs say what the code does: the README's quick commands run as written, the key table
//! of docs/players.md is the one the declarations give, `pit`'s sample report has the lines
//! `pit` prints, and the crate table of docs/architecture.md names each crate's dependencies.

use std::path::{Path, PathBuf};
use std::process::Command;

use fanorona_testkit::TempDir;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The text between `<!-- name:start -->` and `<!-- name:end -->`.
fn between<'a>(text: &'a str, name: &str) -> &'a str {
    let start = format!("<!-- {name}:start -->\n");
    let end = format!("<!-- {name}:end -->");
    let a = text.find(&start).unwrap_or_else(|| panic!("no {start}")) + start.len();
    let b = text[a..].find(&end).unwrap_or_else(|| panic!("no {end}")) + a;
    &text[a..b]
}

fn fanorona(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

/// Splits a shell line into words, honouring double quotes.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

#[test]
fn the_readme_quick_commands_run_as_written() {
    let readme = read("README.md");
    let block = between(&readme, "cheap-commands");
    let dir = TempDir::new("readme");
    let configs = root().join("configs");
    std::fs::create_dir(dir.join("configs")).unwrap();
    for entry in std::fs::read_dir(&configs).unwrap().flatten() {
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dir.join("configs").join(entry.file_name())).unwrap();
        }
    }
    let mut ran = 0;
    for line in block.lines() {
        let Some(command) = line.strip_prefix("$F ") else {
            assert!(
                line.starts_with("```") || line.starts_with("F=") || line.is_empty(),
                "an unexpected line in the README's quick commands: {line}"
            );
            continue;
        };
        let args = words(command);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = fanorona(&args, dir.path());
        assert!(
            out.status.success(),
            "README: `fanorona {command}` failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 5, "the README's quick commands were not found");
}

#[test]
fn the_key_table_of_the_docs_is_the_declared_one() {
    let out = fanorona(&["players", "--markdown"], &root());
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    let docs = read("docs/players.md");
    assert_eq!(
        between(&docs, "players-table"),
        table,
        "docs/players.md's key table differs from `fanorona players --markdown`: paste its output there"
    );
    // The text form lists the same keys.
    let text = fanorona(&["players"], &root());
    let text = String::from_utf8(text.stdout).unwrap();
    for kind in ["random:", "greedy:", "alphabeta:", "mcts:", "net:"] {
        assert!(
            text.contains(kind),
            "{kind} missing from `fanorona players`"
        );
    }
}

/// A report line's label: the text before its first digit or sign.
fn label(line: &str) -> &str {
    let end = line
        .find(|c: char| c.is_ascii_digit() || c == '+' || c == '-')
        .unwrap_or(line.len());
    line[..end].trim()
}

#[test]
fn the_sample_pit_report_has_the_lines_pit_prints() {
    let docs = read("docs/players.md");
    let sample = between(&docs, "pit-sample");
    let sample: Vec<&str> = sample
        .lines()
        .filter(|l| !l.starts_with("```") && !l.starts_with('$'))
        .collect();
    let out = fanorona(
        &[
            "pit",
            "alphabeta:depth=2",
            "greedy",
            "--games",
            "20",
            "--seed",
            "1",
            "--no-tablebases",
        ],
        &root(),
    );
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let printed: Vec<&str> = text.lines().collect();
    let labels = |lines: &[&str]| {
        lines
            .iter()
            .map(|l| label(l).to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        labels(&sample),
        labels(&printed),
        "docs/players.md's sample pit report is not what pit prints:\n{text}"
    );
    // Depth-limited players on a fixed seed: the counts are the same too.
    assert_eq!(sample[..4], printed[..4], "{text}");
}

/// Each crate's `fanorona-*` dependencies from its manifest.
fn manifest_dependencies(krate: &str) -> Vec<String> {
    let text = read(&format!("crates/{krate}/Cargo.toml"));
    let mut deps = Vec::new();
    let mut in_deps = false;
    for line in text.lines() {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
        } else if in_deps && let Some(name) = line.strip_prefix("fanorona-") {
            deps.push(name.split(' ').next().unwrap_or_default().to_string());
        }
    }
    deps.sort();
    deps
}

#[test]
fn the_crate_table_names_each_crates_dependencies() {
    let docs = read("docs/architecture.md");
    let mut rows = 0;
    let mut seen: Vec<String> = Vec::new();
    for line in docs.lines() {
        let Some(rest) = line.strip_prefix("| `crates/") else {
            continue;
        };
        let krate = rest.split('`').next().unwrap();
        let deps_column = line
            .trim_end_matches('|')
            .rsplit('|')
            .next()
            .unwrap()
            .trim();
        let mut listed: Vec<String> = if deps_column == "-" {
            Vec::new()
        } else if deps_column.starts_with("every crate") {
            continue;
        } else {
            deps_column.split(", ").map(str::to_string).collect()
        };
        listed.sort();
        assert_eq!(
            listed,
            manifest_dependencies(krate),
            "docs/architecture.md: the dependencies of crates/{krate}"
        );
        for dep in &listed {
            assert!(
                seen.contains(dep),
                "crates/{krate} depends on {dep}, listed after it"
            );
        }
        seen.push(krate.to_string());
        rows += 1;
    }
    assert!(rows >= 12, "the crate table was not found");
}
