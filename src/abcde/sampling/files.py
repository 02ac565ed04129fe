"""The output files of a sample: claiming the directory or file it goes to (never
replacing a sample unless asked, and then only once the new one is complete), the
digests its manifest records of every file, and their verification before a sample is
read (docs/method.md §7.9).

A pair sample directory holds :data:`SAMPLE_FILES`; it is written atomically
(`abcde.outputs.output_dir`): a refused, failed or interrupted run leaves the previous
sample as it was. manifest.json records each file's rows, bytes and sha256
(``digests``); `verify_sample_files` refuses a draws file that is missing, cut short,
changed or copied from another sample, and a draws file the manifest does not list.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from abcde.errors import InputError
from abcde.outputs import OutputDir, output_dir, output_files, refuse_inputs

# The files a pair sample directory holds (abcde.sampling.pairs, abcde.sampling.stratified),
# and the verdict log `abcde judge` adds (docs/method.md §12.2): a log left beside a new
# sample would name the old sample's pairs.
SAMPLE_FILES = ("questions.csv", "questions.jsonl", "draws.parquet", "draws.csv",
                "manifest.json", "verdicts.jsonl")
# The files `abcde estimate` reads, checked against the manifest's digests first.
DRAW_FILES = ("draws.parquet", "draws.csv")


def _judged(questions: Path) -> int:
    """How many rows of a questions file have a verdict (0 if unreadable)."""
    import csv

    try:
        with questions.open(newline="", encoding="utf-8-sig", errors="replace") as f:
            return sum(1 for row in csv.DictReader(f) if (row.get("verdict") or "").strip())
    except (OSError, csv.Error):
        return 0


def claim_directory(out: Path, overwrite: bool) -> None:
    """Refuse an `out` that already holds one of abcde's sample files (a judged
    questions.csv would be lost; a stale draws.parquet would be read beside a new
    draws.csv) unless `overwrite`. Nothing is removed here: `sample_output` replaces the
    old sample only when the new one is complete."""
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out} exists and is not a directory",
                         hint="--out names the directory of the sample (created if missing).")
    present = [name for name in SAMPLE_FILES if (out / name).exists()]
    if present and not overwrite:
        judged = _judged(out / "questions.csv")
        what = f" — its questions.csv holds {judged:,} verdict(s)" if judged else ""
        raise InputError(
            f"--out {out} already holds a sample ({', '.join(present)}){what}",
            hint="Choose a new directory (a larger --budget with the same seed extends this "
                 "sample, and `abcde estimate NEW --judgements OLD/questions.csv` carries "
                 "its verdicts over), or pass --overwrite to replace those files once the "
                 "new sample is complete (verdicts in them would then be lost).")


@contextlib.contextmanager
def sample_output(out: Path | None, overwrite: bool, inputs: Sequence[Path] = (),
                  ) -> Iterator[OutputDir | None]:
    """The directory a pair sample is written to: `claim_directory`, then
    `abcde.outputs.output_dir` (the sample files of a previous sample are replaced, other
    files are kept; `inputs`, the run's input files, never). None when there is no
    `out`."""
    if out is None:
        yield None
        return
    claim_directory(out, overwrite)
    with output_dir(out, replaces=SAMPLE_FILES, inputs=inputs) as od:
        yield od


def claim_file(paths: Sequence[Path], overwrite: bool) -> None:
    """Refuse to replace existing output files (an item sample and its manifest) unless
    `overwrite`; they are replaced only once the new ones are complete
    (`abcde.outputs.output_files`)."""
    present = [p for p in paths if p.exists()]
    if any(p.is_dir() for p in present):
        raise InputError(f"--out {next(p for p in present if p.is_dir())} is a directory",
                         hint="--out names the sample file (.parquet or .csv).")
    if present and not overwrite:
        raise InputError(f"{', '.join(map(str, present))} already exist(s)",
                         hint="Choose another --out, or pass --overwrite to replace them "
                              "once the new sample is complete.")


@contextlib.contextmanager
def file_output(paths: Sequence[Path] | None, overwrite: bool, inputs: Sequence[Path] = (),
                ) -> Iterator[list[Path] | None]:
    """Temporary paths for an item sample and its manifest (`claim_file`, then
    `abcde.outputs.output_files`: the manifest is renamed last). None without paths.
    `inputs`, the run's input files, are refused as targets even with `overwrite`
    (before `claim_file`, whose hint would suggest --overwrite)."""
    if paths is None:
        yield None
        return
    refuse_inputs(paths, inputs, what="the sample")
    claim_file(paths, overwrite)
    with output_files(*paths) as temps:
        yield temps


def digest(path: Path, rows: int) -> dict[str, Any]:
    """What the manifest records of a file: its rows, size and sha256."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return {"rows": int(rows), "bytes": path.stat().st_size, "sha256": h.hexdigest()}


def _rows(path: Path) -> int | None:
    """Rows of a draws file as read now (None when it cannot be read)."""
    import duckdb

    reader = "read_parquet" if path.suffix == ".parquet" else "read_csv"
    con = duckdb.connect()
    try:
        extra = "" if path.suffix == ".parquet" else ", header = true, all_varchar = true"
        return int(con.execute(f"SELECT COUNT(*) FROM {reader}(?{extra})",
                               [str(path)]).fetchone()[0])
    except (duckdb.Error, RuntimeError):
        return None
    finally:
        con.close()


_RESTORE = ("Restore the sample directory as `abcde sample-pairs` wrote it (the same "
            "inputs and seed give the same files again).")


def verify_sample_files(directory: Path, manifest: Mapping[str, Any]) -> list[str]:
    """Check the draws files of a pair sample against its manifest before they are read.

    Parameters
    ----------
    directory : Path
        The sample directory.
    manifest : mapping
        Its manifest.json.

    Returns
    -------
    list of str
        Notes for the report: a manifest written before digests were recorded (abcde
        0.1 without them) is accepted, with a note, once its draws' row count matches
        the manifest's count of drawn ordered pairs.

    Raises
    ------
    InputError
        Naming the file: a draws file whose sha256 or row count differs from the
        manifest's (cut short, edited, or copied from another sample), a draws file
        the manifest does not list, or no draws file where the manifest records some.

    References
    ----------
    docs/method.md §7.9.
    """
    digests = manifest.get("digests")
    if not isinstance(digests, Mapping):
        return _verify_old(directory, manifest)
    recorded = [n for n in DRAW_FILES if n in digests]
    for name in DRAW_FILES:
        path = directory / name
        if name not in digests:
            if path.exists():
                raise InputError(
                    f"{path} is not part of this sample: its manifest.json does not list it "
                    "(a file left from another sample?)",
                    hint="Remove it, or " + _RESTORE[0].lower() + _RESTORE[1:])
            continue
        if not path.exists():
            continue
        want = digests[name]
        got = digest(path, 0)
        if got["sha256"] == want.get("sha256"):
            continue
        rows = _rows(path)
        expected = int(want.get("rows", 0))
        if rows is None:
            what = "it cannot be read (cut short or damaged)"
        elif rows != expected:
            what = f"it has {rows:,} rows, the sample {expected:,}"
        else:
            what = (f"its content differs from what was written ({rows:,} rows as recorded): "
                    "it was edited, or copied from another sample")
        raise InputError(f"{path} does not match the sample's manifest.json: {what}",
                         hint=_RESTORE)
    if recorded and not any((directory / n).exists() for n in recorded):
        raise InputError(f"{directory}: the sample's draws are missing "
                         f"({' and '.join(recorded)})", hint=_RESTORE)
    return []


def _verify_old(directory: Path, manifest: Mapping[str, Any]) -> list[str]:
    """A manifest without digests: the draws' rows must still equal the ordered pairs
    it counts."""
    pairs = manifest.get("pairs")
    expected = pairs.get("ordered") if isinstance(pairs, Mapping) else None
    for name in DRAW_FILES:
        path = directory / name
        if not path.exists():
            continue
        rows = _rows(path)
        if rows is None:
            raise InputError(f"{path} cannot be read (cut short or damaged)", hint=_RESTORE)
        if expected is not None and rows != int(expected):
            raise InputError(f"{path} has {rows:,} rows but the sample's manifest.json "
                             f"counts {int(expected):,} drawn pairs: the file is cut short "
                             "or from another sample", hint=_RESTORE)
    return [f"{directory / 'manifest.json'} records no file digests (a sample written "
            "before abcde recorded them): its draws were checked by row count only. "
            "Sample again to get a fully verifiable sample."]
