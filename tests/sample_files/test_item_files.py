"""The item sample CSV of `abcde sample-items --out items.csv` is safe to open in a
spreadsheet (no text cell starts as a formula) and explores as the same sample does in
Parquet, which is not neutralised: the same numbers, the same example ids."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner

from abcde.cli import main
from abcde.sampling.items import sample_items

HOSTILE = '=HYPERLINK("http://x.example","open")'
IDS = [f"{HOSTILE}{k}" if k % 3 == 0 else f"i{k}" for k in range(40)]
BASE = {i: k // 4 for k, i in enumerate(IDS)}
EXP = {i: (k // 8 if k < 20 else k // 4 + 100) for k, i in enumerate(IDS)}
GROUP = {i: {"group": ("-a", "b")[k % 2]} for k, i in enumerate(IDS)}


def _explore(out: Path) -> dict:
    sample_items(BASE, EXP, attributes=GROUP, size=200, seed=3, out=out)
    got = CliRunner().invoke(main, ["explore", str(out), "--group-by", "group",
                                    "--format", "json", "--examples", "50"])
    assert got.exit_code == 0, got.output
    return json.loads(got.stdout)


def test_items_csv_is_neutralised_and_explores_as_its_parquet(tmp_path: Path) -> None:
    want = _explore(tmp_path / "items.parquet")
    got = _explore(tmp_path / "items.csv")
    with (tmp_path / "items.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert f"'{HOSTILE}0" in {r["item_id"] for r in rows}
    assert not [v for r in rows for v in (r["item_id"], r["group"])
                if v.startswith(("=", "+", "-", "@"))]
    assert {r["group"] for r in rows} == {"'-a", "b"}
    assert got["groups"] == want["groups"]
    assert any(str(e).startswith(HOSTILE) for g in got["groups"] for e in g["examples"])
