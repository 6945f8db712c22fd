//! Player specifications on the command line, and the one factory that turns a spec into a
//! player, whatever its kind.
//!
//! The classical kinds (`random`, `greedy`, `alphabeta`, `mcts`) come from the search crate.
//! The network player (`net:path=model.fnm,sims=200`) belongs to the network crate; until it is
//! wired in, [`make_player`] answers that it is not available. That is the place to add it.

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
        "net" => bail!(
            "player kind `net` (`{spec}`) is not available in this build yet; use one of random, greedy, alphabeta, mcts"
        ),
        kind if ClassicalKind::from_name(kind).is_some() => Ok(spec.build(stream)?),
        kind => bail!("unknown player kind `{kind}` (known: {KINDS})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classical_kinds_build_and_net_is_not_available_yet() {
        assert!(parse_spec("alphabeta:depth=2").is_ok());
        let err = format!("{:#}", parse_spec("net:path=model.fnm").unwrap_err());
        assert!(err.contains("not available in this build yet"), "{err}");
        let err = format!("{:#}", parse_spec("chess").unwrap_err());
        assert!(err.contains("unknown player kind `chess`"), "{err}");
        assert!(err.contains("net"), "{err}");
        let err = format!("{:#}", parse_spec("mcts:sims=0").unwrap_err());
        assert!(err.contains("`sims`"), "{err}");
    }
}
