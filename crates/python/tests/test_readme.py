"""The README's Python examples run as written."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[3] / "README.md"


def python_blocks() -> list[str]:
    text = README.read_text()
    section = text.split("## Python", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_the_readme_examples_run():
    blocks = python_blocks()
    assert len(blocks) == 3
    spaces = []
    for block in blocks:
        namespace: dict = {}
        exec(compile(block, str(README), "exec"), namespace)  # noqa: S102 (the README's own code)
        spaces.append(namespace)
    assert spaces[0]["choice"].turn in spaces[0]["game"].legal_turns()
    # The learning loop's weights moved: games were won and learned from.
    assert abs(spaces[1]["w"]).sum() > 0
    assert spaces[2]["gym"].game.turn_number >= 1
