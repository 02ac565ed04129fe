"""Regenerate the golden SQL of `abcde sql impact`: one file per dialect per
materialised pipeline step, tests/golden/<dialect>/<NN>_<step>.sql, for the spec below.
Run `make golden` (or `.venv/bin/python tests/golden/regenerate.py`) after changing a
template or abcde.dialects, and review the diff: it shows what each warehouse will run.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from abcde.dialects import DIALECTS
from abcde.inputs import Columns
from abcde.scripts import ScriptSpec, step_statements

GOLDEN = Path(__file__).resolve().parent

SPEC = ScriptSpec(base="proj.ds.base", exp="proj.ds.exp", weights="proj.ds.weights",
                  attributes="proj.ds.attributes",
                  slice_by=[["provenance"], ["provenance", "size_class"]],
                  columns=Columns("item_id", "cluster_id", "weight"), prefix="abcde_",
                  schema="proj.ds")


def golden_files() -> dict[Path, str]:
    """Relative path -> SQL text, for every dialect and step."""
    out = {}
    for dialect in DIALECTS:
        for k, (step, sql) in enumerate(step_statements(SPEC, dialect), start=1):
            out[Path(dialect) / f"{k:02d}_{step}.sql"] = sql
    return out


def main() -> int:
    for dialect in DIALECTS:
        shutil.rmtree(GOLDEN / dialect, ignore_errors=True)
    for rel, text in golden_files().items():
        path = GOLDEN / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    print(f"wrote {len(golden_files())} files under {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
