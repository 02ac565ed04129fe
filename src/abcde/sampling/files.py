"""The output files of a sample: claiming the directory or file it goes to (never
overwriting a sample unless asked)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from abcde.errors import InputError

# The files a pair sample directory holds (abcde.sampling.pairs, abcde.sampling.stratified),
# and the verdict log `abcde judge` adds (docs/method.md §12.2): a log left beside a new
# sample would name the old sample's pairs.
SAMPLE_FILES = ("questions.csv", "questions.jsonl", "draws.parquet", "draws.csv",
                "manifest.json", "verdicts.jsonl")


def claim_directory(out: Path, overwrite: bool) -> None:
    """Make `out` ready for a pair sample: refuse a directory that already holds one of
    abcde's sample files (a stale draws.parquet would be read with a new draws.csv; a
    judged questions.csv would be lost) unless `overwrite`, which removes them first.
    Other files in the directory are left alone."""
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out} exists and is not a directory")
    present = [name for name in SAMPLE_FILES if (out / name).exists()]
    if present and not overwrite:
        raise InputError(f"--out {out} already holds a sample ({', '.join(present)})",
                         hint="Choose a new directory, or pass --overwrite to replace "
                              "those files (judged questions and verdicts there would be "
                              "lost).")
    for name in present:
        (out / name).unlink()
    out.mkdir(parents=True, exist_ok=True)


def claim_file(paths: Sequence[Path], overwrite: bool) -> None:
    """Refuse to replace existing output files (an item sample and its manifest) unless
    `overwrite`, which removes them first."""
    present = [p for p in paths if p.exists()]
    if any(p.is_dir() for p in present):
        raise InputError(f"{next(p for p in present if p.is_dir())} is a directory")
    if present and not overwrite:
        raise InputError(f"{', '.join(map(str, present))} already exist(s)",
                         hint="Choose another --out, or pass --overwrite.")
    for p in present:
        p.unlink()
    paths[0].parent.mkdir(parents=True, exist_ok=True)
