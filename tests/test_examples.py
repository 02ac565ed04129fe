"""examples/README.md: `python examples/make_examples.py` is deterministic — it writes
the bundled files byte for byte — and its `--out` may name a directory to be made."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
FILES = ("base", "exp", "weights", "attributes", "truth", "ideal")


def test_make_examples_writes_the_bundled_files(tmp_path: Path) -> None:
    out = tmp_path / "new" / "examples"  # did not exist: the script raised FileNotFoundError
    subprocess.run([sys.executable, str(EXAMPLES / "make_examples.py"), "--out", str(out)],
                   check=True, capture_output=True)
    for name in FILES:
        assert (out / f"{name}.csv").read_bytes() == (EXAMPLES / f"{name}.csv").read_bytes(), name
