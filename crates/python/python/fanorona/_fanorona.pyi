"""Type stubs of the native module (crates/python/src)."""

from typing import Any

import numpy as np
import numpy.typing as npt

__version__: str
START_FEN: str
ACTION_COUNT: int  # 1081: 45 points x 8 directions x 3 kinds, and END_TURN_INDEX
END_TURN_INDEX: int  # 1080
INPUT_PLANES: int  # 16
BOARD_SHAPE: tuple[int, int]  # (5, 9): rows 1 to 5, files a to i

class FanoronaError(ValueError):
    """Bad input to the engine; the message says what and where."""

class Outcome:
    """The result of a finished game."""

    @property
    def winner(self) -> str | None:
        """`"white"`, `"black"`, or None for a draw."""
    @property
    def reason(self) -> str:
        """`"all-captured"`, `"no-legal-move"`, `"repetition"` or `"no-progress"`."""
    @property
    def score(self) -> str:
        """`"1-0"`, `"0-1"` or `"1/2-1/2"`."""

class Game:
    """A game: the position, its history (for repetitions) and its rules."""

    def __init__(self, fen: str | None = None, *, no_progress_limit: int = 50) -> None: ...
    @property
    def fen(self) -> str:
        """The position in notation (a capture chain in progress is not shown)."""
    @property
    def side_to_move(self) -> str: ...
    @property
    def player(self) -> int:
        """0 when White is to move, 1 when Black is."""
    @property
    def in_chain(self) -> bool: ...
    @property
    def no_progress(self) -> int:
        """Turns since the last capture."""
    @property
    def no_progress_limit(self) -> int: ...
    @property
    def repetitions(self) -> int: ...
    @property
    def turn_number(self) -> int: ...
    @property
    def stones(self) -> tuple[int, int]:
        """(white, black)."""
    @property
    def outcome(self) -> Outcome | None: ...
    @property
    def is_over(self) -> bool: ...
    def legal_actions(self) -> list[int]:
        """Legal step-level actions as policy indices."""
    def legal_steps(self) -> list[str]:
        """Legal step-level actions in notation (`"d2e3a"`, `"end"`)."""
    def legal_turns(self) -> list[str]:
        """Legal whole turns in notation, at a turn start."""
    def step(self, action: int | str) -> None:
        """Plays one step: a policy index or a step in notation."""
    def play_turn(self, turn: str) -> None:
        """Plays a whole turn in notation."""
    def observation(self) -> npt.NDArray[np.float32]:
        """The network's input planes, float32[16, 5, 9], from the mover's side."""
    def action_mask(self) -> npt.NDArray[np.bool_]:
        """The legal actions as bool[1081]."""
    def board(self) -> str: ...
    def perft(self, depth: int) -> int: ...
    def copy(self) -> Game: ...
    def __copy__(self) -> Game: ...
    def __deepcopy__(self, memo: Any) -> Game: ...

class VectorEnv:
    """Many games stepped together in Rust, numpy arrays in and out."""

    def __init__(
        self, num_envs: int, *, seed: int = 0, no_progress_limit: int = 50, threads: int | None = None
    ) -> None: ...
    @property
    def num_envs(self) -> int: ...
    def __len__(self) -> int: ...
    def reset(self, *, seed: int | None = None) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Starts every game again; returns (obs, info)."""
    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """Plays actions[i] in game i; returns (obs, rewards, terminated, truncated, info)."""
    def sample_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action of every game."""
    def game(self, index: int) -> Game: ...

class Choice:
    """What a player chose."""

    turn: str
    actions: list[int]
    score: str | None
    depth: int | None
    nodes: int
    seconds: float

class Player:
    """A player from a spec (`"alphabeta:ms=200,eval=learned"`); `fanorona players` lists them."""

    def __init__(
        self, spec: str, *, tablebases: str | None = None, seed: int = 0, no_progress_limit: int = 50
    ) -> None: ...
    @property
    def name(self) -> str: ...
    def choose(self, game: Game) -> Choice: ...
    def new_game(self) -> None: ...

class Tablebase:
    """Endgame tables on disk."""

    def __init__(self, dir: str, *, no_progress_limit: int = 50) -> None: ...
    @property
    def max_stones(self) -> int: ...
    def probe(self, position: Game | str) -> tuple[str, int] | None:
        """(wdl, turns to the next capture) for the side to move, or None when not covered."""

def perft(fen: str, depth: int) -> int: ...
def action_index(step: str, side: str) -> int: ...
def index_action(index: int, side: str) -> str: ...
