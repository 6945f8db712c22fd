"""Fanorona (Fanoron-Tsivy) for Python, on the project's Rust engine.

- ``Game``: a game from the start or from a position in notation; legal steps and whole
  turns, playing, the outcome and its reason, the counters, perft; the network's input
  planes (``observation()``) and legal-action mask (``action_mask()``) as numpy arrays.
- ``VectorEnv``: many games stepped in Rust per call on every core, numpy arrays out.
- ``Player``: any player spec of the project (``"alphabeta:ms=50,eval=learned"``...).
- ``Tablebase``: exact results from endgame tables built by ``fanorona tablebase build``.
- ``fanorona.envs``: a PettingZoo ``AECEnv`` and a Gymnasium ``Env`` (install the
  ``envs`` extra).

Errors raise ``FanoronaError`` (a ``ValueError``) with the engine's message. The encoding
of planes and actions is the one the Rust trainer uses; docs/python.md describes it.
"""

from fanorona._fanorona import (
    ACTION_COUNT,
    BOARD_SHAPE,
    END_TURN_INDEX,
    INPUT_PLANES,
    START_FEN,
    Choice,
    FanoronaError,
    Game,
    Outcome,
    Player,
    Tablebase,
    VectorEnv,
    __version__,
    action_index,
    index_action,
    perft,
)

__all__ = [
    "ACTION_COUNT",
    "BOARD_SHAPE",
    "END_TURN_INDEX",
    "INPUT_PLANES",
    "START_FEN",
    "Choice",
    "FanoronaError",
    "Game",
    "Outcome",
    "Player",
    "Tablebase",
    "VectorEnv",
    "__version__",
    "action_index",
    "index_action",
    "perft",
]
