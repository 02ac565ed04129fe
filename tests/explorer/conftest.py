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
