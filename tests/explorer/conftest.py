"""An item sample of the example data (`abcde sample-items`), made once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="session")
def item_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from abcde.sampling.items import sample_items

    out = tmp_path_factory.mktemp("explore") / "items.parquet"
    sample_items(str(EXAMPLES / "base.csv"), str(EXAMPLES / "exp.csv"),
                 str(EXAMPLES / "weights.csv"), attributes=str(EXAMPLES / "attributes.csv"),
                 size=3000, seed=2, out=str(out))
    return out


@pytest.fixture(scope="session")
def rlo_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sample of the examples whose every item id holds a RIGHT-TO-LEFT OVERRIDE
    (U+202E, which reverses the display of the text after it) after its "img_"."""
    from abcde.sampling.items import sample_items

    folder = tmp_path_factory.mktemp("rlo")
    for name in ("base", "exp", "weights", "attributes"):
        text = (EXAMPLES / f"{name}.csv").read_text()
        (folder / f"{name}.csv").write_text(text.replace("\nimg_", "\nimg_\u202e"))
    out = folder / "items.parquet"
    sample_items(*(str(folder / f"{n}.csv") for n in ("base", "exp", "weights")),
                 attributes=str(folder / "attributes.csv"), size=400, seed=2, out=str(out))
    return out
