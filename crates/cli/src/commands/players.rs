//! Players on the command line: specs parsed and checked against the registry of every player
//! kind (`fanorona_net::player_registry`: the classical kinds and `net:`), the endgame tables
//! they play with, and `fanorona players`, the list of every kind and key.

use crate::output::{say, say_raw};
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use fanorona_net::Backend;
use fanorona_players::tables::Tables;
use fanorona_session::levels::TurnChooser;
use fanorona_specs::{Registry, Settings};

/// Arguments of `fanorona players`.
#[derive(Args, Debug)]
pub struct PlayersArgs {
    /// Print the Markdown table of docs/players.md instead of text.
    #[arg(long)]
    pub markdown: bool,
}

/// Run `fanorona players`: every kind and key, from their declarations.
pub fn run(args: &PlayersArgs) -> Result<()> {
    let registry = fanorona_net::player_registry(Backend::default());
    if args.markdown {
        say_raw!("{}", registry.markdown_table())?;
    } else {
        say!(
            "A player is `kind` or `kind:key=value,key=value` (e.g. alphabeta:depth=4,tb=off).\n"
        )?;
        say_raw!("{}", registry.text_table())?;
    }
    Ok(())
}

/// Parses and checks a player spec such as `alphabeta:depth=4`, and loads what it names (a
/// model file, once), so that mistakes show up before any game starts.
pub fn parse_player(text: &str, registry: &Registry) -> Result<Settings> {
    let settings = registry.parse(text).with_context(|| {
        format!("player {text:?} (`fanorona players` lists every kind and key)")
    })?;
    registry.load(&settings)?;
    Ok(settings)
}

/// The engine that plays against a person (`serve`, `play`): the classical players, or the
/// network when `--model` names an exported model; both with `tables`.
pub fn engine_for(
    model: Option<&Path>,
    tables: Tables,
    backend: Backend,
) -> Result<Arc<dyn TurnChooser>> {
    fanorona_net::chooser_for(model, tables, backend).with_context(|| match model {
        Some(path) => format!("cannot load the model --model {}", path.display()),
        None => "cannot start the classical engine".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classical_kinds_parse_and_net_needs_a_model_file() {
        let registry = fanorona_net::player_registry(Backend::Native);
        assert!(parse_player("alphabeta:depth=2", &registry).is_ok());
        let err = format!(
            "{:#}",
            parse_player("net:path=no-such-model.fnm", &registry).unwrap_err()
        );
        assert!(err.contains("no-such-model.fnm"), "{err}");
        let err = format!("{:#}", parse_player("chess", &registry).unwrap_err());
        assert!(err.contains("unknown player kind `chess`"), "{err}");
        assert!(err.contains("net"), "{err}");
        let err = format!("{:#}", parse_player("mcts:sims=0", &registry).unwrap_err());
        assert!(err.contains("`sims`"), "{err}");
    }
}
