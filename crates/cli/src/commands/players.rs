//! Player specifications on the command line, and the one factory that turns a spec into a
//! player, whatever its kind.
//!
//! The classical kinds (`random`, `greedy`, `alphabeta`, `mcts`) come from the search crate;
//! the network player (`net:path=model.fnm,sims=200`) from the network crate.

use anyhow::{Context, Result, bail};
use fanorona_search::players::{ClassicalKind, Player, PlayerSpec};

/// Every player kind the command line knows, for error messages.
pub const KINDS: &str = "random, greedy, alphabeta, mcts, net";

/// Parses a player spec such as `alphabeta:depth=4` and checks that a player can be made from
/// it, so that mistakes show up before any game starts.
pub fn parse_spec(text: &str) -> Result<PlayerSpec> {
    let spec: PlayerSpec = text.parse().with_context(|| format!("player {text:?}"))?;
    make_player(&spec, 0).with_context(|| format!("player {text:?}"))?;
    Ok(spec)
}

/// Makes the player `spec` describes, its random stream seeded from `stream` (see
/// [`PlayerSpec::stream_seed`]).
pub fn make_player(spec: &PlayerSpec, stream: u64) -> Result<Box<dyn Player>> {
    match spec.kind() {
        "net" => Ok(Box::new(fanorona_net::net_player_from_spec(spec, stream)?)),
        kind if ClassicalKind::from_name(kind).is_some() => Ok(spec.build(stream)?),
        kind => bail!("unknown player kind `{kind}` (known: {KINDS})"),
    }
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
