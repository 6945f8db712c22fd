//! Player specifications on the command line: parsed, checked against the registry of every
//! player kind (`fanorona_net::player_registry`: the classical kinds and `net:`) and built.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::Args;
use fanorona_engine::Rules;
use fanorona_players::levels::TurnChooser;
use fanorona_players::tables::Tables;
use fanorona_players::{Player, PlayerSpec};
use fanorona_tablebase::Tablebase;

use super::tablebase::DEFAULT_DIR;

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

/// Parses a player spec such as `alphabeta:depth=4` and checks that a player can be made from
/// it (a model file is loaded once here), so that mistakes show up before any game starts.
pub fn parse_spec(text: &str) -> Result<PlayerSpec> {
    let spec: PlayerSpec = text.parse().with_context(|| format!("player {text:?}"))?;
    make_player(&spec, 0, &None).with_context(|| format!("player {text:?}"))?;
    Ok(spec)
}

/// Makes the player `spec` describes, its random stream seeded from `stream` (see
/// [`PlayerSpec::stream_seed`]), with `tables` unless its spec says `tb=off`.
pub fn make_player(spec: &PlayerSpec, stream: u64, tables: &Tables) -> Result<Box<dyn Player>> {
    Ok(fanorona_net::player_registry()
        .with_tables(tables.clone())
        .build(spec, stream)?)
}

/// The engine that plays against a person (`serve`, `play`): the classical players, or the
/// network when `--model` names an exported model; both with `tables`.
pub fn engine_for(model: Option<&Path>, tables: Tables) -> Result<Arc<dyn TurnChooser>> {
    fanorona_net::chooser_for(model, tables).with_context(|| match model {
        Some(path) => format!("cannot load the model --model {}", path.display()),
        None => "cannot start the classical engine".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classical_kinds_build_and_net_needs_a_model_file() {
        assert!(parse_spec("alphabeta:depth=2").is_ok());
        let err = format!(
            "{:#}",
            parse_spec("net:path=no-such-model.fnm").unwrap_err()
        );
        assert!(err.contains("no-such-model.fnm"), "{err}");
        let err = format!("{:#}", parse_spec("chess").unwrap_err());
        assert!(err.contains("unknown player kind `chess`"), "{err}");
        assert!(err.contains("net"), "{err}");
        let err = format!("{:#}", parse_spec("mcts:sims=0").unwrap_err());
        assert!(err.contains("`sims`"), "{err}");
    }
}
