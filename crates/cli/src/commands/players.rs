//! Player specifications on the command line: parsed, checked against the registry of every
//! player kind (`fanorona_net::player_registry`: the classical kinds and `net:`) and built.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use fanorona_players::levels::TurnChooser;
use fanorona_players::{Player, PlayerSpec};

/// Parses a player spec such as `alphabeta:depth=4` and checks that a player can be made from
/// it (a model file is loaded once here), so that mistakes show up before any game starts.
pub fn parse_spec(text: &str) -> Result<PlayerSpec> {
    let spec: PlayerSpec = text.parse().with_context(|| format!("player {text:?}"))?;
    make_player(&spec, 0).with_context(|| format!("player {text:?}"))?;
    Ok(spec)
}

/// Makes the player `spec` describes, its random stream seeded from `stream` (see
/// [`PlayerSpec::stream_seed`]).
pub fn make_player(spec: &PlayerSpec, stream: u64) -> Result<Box<dyn Player>> {
    Ok(fanorona_net::player_registry().build(spec, stream)?)
}

/// The engine that plays against a person (`serve`, `play`): the classical players, or the
/// network when `--model` names an exported model.
pub fn engine_for(model: Option<&Path>) -> Result<Arc<dyn TurnChooser>> {
    fanorona_net::chooser_for(model).with_context(|| match model {
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
