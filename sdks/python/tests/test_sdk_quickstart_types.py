"""The quickstarts type-check (issue 29): every ```python block of the SDK's README, docs/sdks/python.md and the root
README (blocks fenced ```python signature are call signatures, not code) passes `mypy --strict` against the svc package
installed in this environment, as a user's program would. A type error fails the block's test, naming the page's line."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = ["sdks/python/README.md", "docs/sdks/python.md", "README.md"]
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    """The page's line of the block's first line of code."""
    body: str

    @property
    def file_name(self) -> str:
        return f"{re.sub(r'[^A-Za-z0-9]', '_', self.page)}_line_{self.line}.py"


def code_blocks() -> list[Block]:
    blocks = []
    for page in PAGES:
        text = (ROOT / page).read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            lang, *tags = m.group(1).split() or [""]
            if lang == "python" and "signature" not in tags:
                blocks.append(Block(page, text.count("\n", 0, m.start()) + 2, m.group(2)))
    return blocks


BLOCKS = code_blocks()


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    folder = tmp_path_factory.mktemp("quickstarts")
    for block in BLOCKS:
        (folder / block.file_name).write_text(block.body, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--show-column-numbers", "--no-error-summary",
         *(str(folder / b.file_name) for b in BLOCKS)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


def test_the_readme_quickstart_is_among_the_checked_blocks() -> None:
    assert any(b.page == "sdks/python/README.md" and "import svc" in b.body for b in BLOCKS)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.page}:{b.line}" for b in BLOCKS])
def test_block_passes_mypy_strict(block: Block, mypy_run: subprocess.CompletedProcess[str]) -> None:
    # mypy reports `path:line:column: error: ...`; the page's line is the block's first line plus the file's line - 1.
    errors = [re.sub(r"^\S*?:(\d+):", lambda m: f"{block.page}:{block.line + int(m.group(1)) - 1}:", line)
              for line in mypy_run.stdout.splitlines() if line.split(":", 1)[0].endswith(block.file_name)]
    assert errors == []


def test_mypy_found_no_error_outside_the_blocks(mypy_run: subprocess.CompletedProcess[str]) -> None:
    assert mypy_run.returncode == 0, mypy_run.stdout + mypy_run.stderr
