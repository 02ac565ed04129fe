"""A pair sample directory (docs/method.md §7.6, §7.9): draws.parquet (what `abcde
estimate` reads), questions.jsonl (what `abcde judge` reads), draws.csv and
questions.csv (for people: `layout.neutralised`), and manifest.json, sealed and
written last, with every file's sha256."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from abcde.engines.base import Engine
from abcde.engines.files import write_rows
from abcde.inputs.records import load_json
from abcde.outputs import OutputDir
from abcde.sample_files.layout import (
    MANIFEST,
    digest,
    neutralised,
    read_manifest,
    verified,
    write_manifest,
)

DRAW_COLUMNS = ("pair_id", "item_i", "item_j", "pair_class", "label", "draw_count",
                "first_draw", "u_over_w", "base_cluster_i", "exp_cluster_i",
                "base_cluster_j", "exp_cluster_j")
QUESTION_COLUMNS = ("pair_id", "item_1", "item_2", "sample_id", "verdict")
HUMAN_COLUMN = "human_probability"
"""A model round's draws' column of π for the humans' pairs (empty: the model's alone)."""
MODEL_QUESTIONS = "model_questions"
"""A model round's every pair with both items' attributes (`abcde model-judge` reads it)."""


def with_sample_id(questions: Sequence[dict[str, Any]], sid: str) -> list[dict[str, Any]]:
    """Questions with the sample's id just before the verdict: a judgement file names
    the sample its pair ids belong to."""
    return [{**{k: v for k, v in q.items() if k != "verdict"}, "sample_id": sid,
             "verdict": q.get("verdict")} for q in questions]


def write_pair_sample(out: OutputDir, draws: Sequence[Mapping[str, Any]],
                      questions: Sequence[Mapping[str, Any]], manifest: dict[str, Any], *,
                      engine: Engine | None = None, relation: str | None = None,
                      draw_columns: Sequence[str] = DRAW_COLUMNS,
                      model_questions: Sequence[Mapping[str, Any]] | None = None
                      ) -> dict[str, str]:
    """Every file of a pair sample into `out.path`, rows in (pair_id, first_draw) order
    (the same sample gives the same bytes): draws.parquet from `relation` on `engine`
    (which keeps the id types) or from the rows, and none for an empty sample; a model
    round's `model_questions` (every pair, for `abcde model-judge`); the manifest, with
    the files' final paths and digests, last. Returns the files."""
    files: dict[str, str] = {}
    written: list[tuple[Path, int]] = []
    draw_cols = list(draws[0]) if draws else list(draw_columns)
    question_cols = list(questions[0]) if questions else list(QUESTION_COLUMNS)
    if draws:
        path = out.path / "draws.parquet"
        if engine is not None and relation is not None:
            engine.write(relation, path, "parquet", order_by=("pair_id", "first_draw"))
        else:
            write_rows(draw_cols, [tuple(r.get(c) for c in draw_cols) for r in draws],
                       path, "parquet")
        written.append((path, len(draws)))
    for name, rows, cols in (("draws", draws, draw_cols),
                             ("questions", questions, question_cols)):
        path = out.path / f"{name}.csv"
        write_rows(cols, [tuple(neutralised(r.get(c)) for c in cols) for r in rows],
                   path, "csv")
        written.append((path, len(rows)))
    for name, rows in (("questions", questions), (MODEL_QUESTIONS, model_questions)):
        if rows is None:
            continue
        path = out.path / f"{name}.jsonl"
        cols = [c for c in question_cols if rows is questions or c not in ("sample_id",
                                                                            "verdict")]
        with path.open("w", encoding="utf-8") as f:
            for q in rows:
                f.write(json.dumps({c: q.get(c) for c in cols}, default=str) + "\n")
        written.append((path, len(rows)))
    for path, _ in written:
        files[path.name.replace(".", "_")] = str(out.final(path))
    files["manifest"] = str(out.final(out.path / MANIFEST))
    manifest["files"] = files
    manifest["digests"] = {p.name: digest(p, rows) for p, rows in written}
    write_manifest(out.path / MANIFEST, manifest)
    return files


def read_pair_manifest(directory: Path) -> dict[str, Any]:
    return read_manifest(directory / MANIFEST, "sample-pairs")


def read_draws(directory: Path, manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The draw rows of draws.parquet, verified; none for an empty sample."""
    import duckdb

    if "draws.parquet" not in manifest["digests"]:
        return []
    path = verified(directory / "draws.parquet", manifest, "sample-pairs")
    con = duckdb.connect()
    try:
        rel = con.execute("SELECT * FROM read_parquet(?)", [str(path)])
        names = [d[0] for d in rel.description]
        return [dict(zip(names, row, strict=True)) for row in rel.fetchall()]
    finally:
        con.close()


def read_questions(directory: Path, manifest: Mapping[str, Any],
                   name: str = "questions") -> list[dict[str, Any]]:
    """The question rows of questions.jsonl (or a model round's model_questions.jsonl),
    verified."""
    path = verified(directory / f"{name}.jsonl", manifest, "sample-pairs")
    with path.open(encoding="utf-8") as f:
        return [load_json(line) for line in f if line.strip()]
