//! The endgame tables the commands read: where they are, for which rules, and whether the
//! players use them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::Args;
use fanorona_engine::{DEFAULT_NO_PROGRESS_LIMIT, Rules};
use fanorona_players::tables::Tables;
use fanorona_tablebase::Tablebase;

/// The directory tables are read from and built into unless told otherwise.
pub const DEFAULT_DIR: &str = "tablebases";

/// The table directory and the rules the tables are for, shared by every subcommand.
#[derive(Args, Debug, Clone)]
pub struct TableDir {
    /// Directory of the table files.
    #[arg(long = "tablebases", value_name = "DIR", default_value = DEFAULT_DIR)]
    pub dir: PathBuf,
    /// The no-progress limit (turns without a capture) the tables are for.
    #[arg(long, value_name = "TURNS", default_value_t = DEFAULT_NO_PROGRESS_LIMIT)]
    pub no_progress_limit: u32,
}

impl TableDir {
    pub(crate) fn rules(&self) -> Rules {
        Rules {
            no_progress_limit: self.no_progress_limit,
        }
    }

    /// The tables for `probe`, `verify` and `check`, which report an unreadable distance file
    /// as their error (the warning players print would say it twice).
    pub(crate) fn open(&self) -> Result<Tablebase> {
        let tb = Tablebase::open(&self.dir, self.rules())
            .with_context(|| format!("reading the tables in {}", self.dir.display()))?
            .on_unreadable(std::sync::Arc::new(|_: &str| {}));
        if tb.classes().next().is_none() {
            bail!(
                "no tables in {} (build them with `fanorona tablebase build --stones 5 --out {}`)",
                self.dir.display(),
                self.dir.display()
            );
        }
        Ok(tb)
    }
}

/// Where the players' endgame tables come from (`pit`, `engine`, `serve`, `play`).
#[derive(Args, Debug, Clone, Default)]
pub struct TablesArgs {
    /// Endgame tables to play with (default: `tablebases/` when it holds tables; build them
    /// with `fanorona tablebase build --stones 5`).
    #[arg(long = "tablebases", value_name = "DIR")]
    pub tablebases: Option<PathBuf>,
    /// Play without endgame tables.
    #[arg(long, conflicts_with = "tablebases")]
    pub no_tablebases: bool,
}

impl TablesArgs {
    /// The tables for games under `rules`: those in `--tablebases DIR` (which must hold valid
    /// tables for these rules), or those in the default directory when it holds any (a problem
    /// there is reported and the players go on without tables), or none.
    pub fn load(&self, rules: Rules) -> Result<Tables> {
        self.load_with_hint(rules, false)
    }

    /// Like [`TablesArgs::load`]; with `hint`, says how to build tables when there are none.
    pub fn load_with_hint(&self, rules: Rules, hint: bool) -> Result<Tables> {
        if self.no_tablebases {
            return Ok(None);
        }
        match &self.tablebases {
            Some(dir) => {
                let tb = Tablebase::open(dir, rules)
                    .with_context(|| format!("--tablebases {}", dir.display()))?;
                if tb.classes().next().is_none() {
                    bail!(
                        "--tablebases {}: no tables there (build them with `fanorona tablebase build --stones 5 --out {}`)",
                        dir.display(),
                        dir.display()
                    );
                }
                announce(&tb, dir);
                Ok(Some(Arc::new(tb)))
            }
            None => match Tablebase::open(Path::new(DEFAULT_DIR), rules) {
                Ok(tb) if tb.classes().next().is_none() => {
                    if hint {
                        eprintln!(
                            "playing without endgame tables (`fanorona tablebase build --stones 5` builds them into {DEFAULT_DIR}/ in about 15 s)"
                        );
                    }
                    Ok(None)
                }
                Ok(tb) => {
                    announce(&tb, Path::new(DEFAULT_DIR));
                    Ok(Some(Arc::new(tb)))
                }
                Err(e) => {
                    eprintln!("warning: not using the endgame tables in {DEFAULT_DIR}/: {e}");
                    Ok(None)
                }
            },
        }
    }
}

fn announce(tb: &Tablebase, dir: &Path) {
    eprintln!(
        "endgame tables: every position with up to {} stones ({})",
        tb.max_stones(),
        dir.display()
    );
}
