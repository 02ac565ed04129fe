"""A pair sample made in a warehouse (`abcde sql sample-pairs`, the dbt models), read for
`abcde estimate` and `abcde judge`: its tables exported as files into one directory, or
the tables themselves in a DuckDB database, PostgreSQL or Spark (docs/warehouse.md).

The script writes the manifest as a one-row table (`<prefix>pair_manifest`), the
per-slice pairweights (`pair_slices`), one row per stratum of a stratified sample
(`pair_sample_strata`), the draws (`pair_sample`) and the questions (`pair_questions`).
Its flat columns map to the manifest `abcde sample-pairs` writes (`manifest_from_rows`).
Exported files are named after the table without its prefix, .parquet or .csv, a file
or a directory of part files (Spark's `.write.parquet`, a wildcard `bq extract`).
abcde wrote no digest of these: what a wrong estimate would follow from is checked (input
that failed the script's checks, another design version, a table missing)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from abcde.engines.base import plain
from abcde.errors import InputError
from abcde.sample_files.manifest import (
    CLASS_KEYS,
    DESIGN_VERSION,
    PAIR_CLASSES,
    TOTAL_COLUMNS,
    population_entries,
    slice_order,
)
from abcde.sql.quoting import literal, table_ref

METRIC_KEYS = ("items", "weight", "affected_items", "affected_weight", "split_rate",
               "merge_rate", "jaccard_distance", "split_distance", "merge_distance",
               "jaccard_index", "affected_jaccard_index", "unaffected_jaccard_index")
SCALARS = ("abcde_version", "kind", "population", "alpha", "seed", "budget", "stream_draws",
           "draws", "sample_id", "stratified", "strata_allocation", "budget_filled",
           "judgeable_found", "fill_note")
QUESTIONS_HINT = ("Export the script's pair_questions table into the directory too, as "
                  "pair_questions.parquet or .csv, as the other tables (docs/warehouse.md, "
                  "step 4).")


def _pairs(row: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest's `pairs` from a manifest or stratum row."""
    out: dict[str, Any] = {k: int(row.get(f"pairs_{k}") or 0)
                           for k in ("ordered", "unordered", "judgeable")}
    out["by_class"] = {c: {"pairs": int(row.get(f"pairs_{c}_pairs") or 0),
                           "draws": int(row.get(f"pairs_{c}_draws") or 0)}
                       for c in PAIR_CLASSES}
    return out


def manifest_from_rows(row: Mapping[str, Any], slices: Sequence[Mapping[str, Any]] = (),
                       strata: Sequence[Mapping[str, Any]] = (),
                       where: str = "the manifest table") -> dict[str, Any]:
    """The manifest of `abcde sample-pairs` from the script's manifest row, slices and
    strata: the class totals (`classes_<key>_<column>`) go through `population_entries`,
    so every derived entry is computed as for a sample drawn by `abcde sample-pairs`."""
    row = dict(row)
    if row.get("input_valid") is False:
        raise InputError(f"{where}: the sample was drawn from input that failed its checks "
                         "(input_valid is FALSE)", hint="Read the script's validation table, "
                         "fix the input and run the script again.")
    if row.get("design_version") != DESIGN_VERSION:
        raise InputError(f"{where}: not the manifest of a pair sample of design version "
                         f"{DESIGN_VERSION}", hint="Write the script again with this abcde "
                         "(`abcde sql sample-pairs`) and run it.")
    if row.get("stratified") and not strata:
        raise InputError(f"{where}: a stratified sample, but its strata table "
                         "(pair_sample_strata) is missing", hint="Export pair_sample_strata "
                         "too.")
    totals = {k: {c: float(row[f"classes_{k}_{c}"] or 0.0) for c in TOTAL_COLUMNS}
              for k in CLASS_KEYS}
    manifest: dict[str, Any] = {k: row[k] for k in SCALARS if k in row}
    manifest["alpha"] = float(row["alpha"])
    manifest["design"] = {"version": DESIGN_VERSION, "population": row["population"],
                          "alpha": manifest["alpha"]}
    manifest["pairs"] = _pairs(row)
    manifest.update(population_entries(
        totals, {k: row.get(f"exact_{k}") for k in ("delta_precision",
                                                    "affected_good_index", "u_self")},
        {k: row[k] for k in METRIC_KEYS if k in row}))
    manifest["fingerprint"] = {k[3:]: row[k] for k in row if k.startswith("fp_")}
    # each slicing's rows (in the table's order of slicings) in `slice_order`, each with
    # its own slicing's columns and the totals
    by_slicing: dict[str, list[dict[str, Any]]] = {}
    for r in slices:
        by_slicing.setdefault(str(r["slice_columns"]), []).append(dict(r))
    rows = [(r, cs.split(",")) for cs, of in by_slicing.items()
            for r in sorted(of, key=lambda r: slice_order([r[c] for c in cs.split(",")]))]
    every = {c for _, cs in rows for c in cs} | {"slice_columns", "input_valid"}
    manifest["slices"] = [{**{c: r[c] for c in cs},
                           **{k: v for k, v in r.items() if k not in every}}
                          for r, cs in rows]
    allocation = manifest.get("strata_allocation")
    if isinstance(allocation, str) and allocation not in ("proportional", "equal"):
        manifest["strata_allocation"] = float(allocation)
    if strata:
        manifest["stratified"] = True
        manifest["strata"] = [{
            "name": r["name"], "classes": str(r["classes"]).split(","),
            "budget": int(r["budget"]), "seed": int(r["seed"]), "q": float(r["q"]),
            "population_pairs": int(r["population_pairs"] or 0),
            "stream_draws": int(r.get("stream_draws") or 0),
            "draws": int(r.get("draws") or 0), "pairs": _pairs(r)}
            for r in sorted((dict(r) for r in strata),
                            key=lambda r: r["stratum_index"])]
    return manifest


def snowflake_renames(names: Sequence[str], marker: str,
                      keep: Sequence[str] = ()) -> dict[str, str]:
    """Upper-case column names of a table Snowflake unloaded (it stores an unquoted name
    as PAIR_ID) to the lower-case names the script wrote: only for a header with
    `marker` in upper case and not in lower case; names in `keep` (slice columns typed
    in upper case) and names whose lower case is also a column stay.

    Examples
    --------
    >>> snowflake_renames(["PAIR_ID", "ITEM_I", "Prov", "PROV"], "pair_id", keep=["PROV"])
    {'PAIR_ID': 'pair_id', 'ITEM_I': 'item_i'}
    """
    if marker in names or marker.upper() not in names:
        return {}
    present = set(names)
    return {n: n.lower() for n in names if n == n.upper() and n != n.lower()
            and n not in keep and n.lower() not in present}


def _renamed(rows: list[dict[str, Any]], marker: str,
             keep: Sequence[str] = ()) -> list[dict[str, Any]]:
    renames = snowflake_renames(list(rows[0]), marker, keep) if rows else {}
    return [{renames.get(k, k): v for k, v in r.items()} for r in rows] if renames else rows


def _draws(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "input_valid"} for r in rows]


def _drawn(manifest: Mapping[str, Any]) -> int:
    return sum(c["draws"] for c in manifest["pairs"]["by_class"].values())


def _find(directory: Path, table: str) -> Path | None:
    """`table`.parquet or .csv (a file or a directory of part files), or a directory
    `table` of part files."""
    for suffix in (".parquet", ".csv", ""):
        path = directory / f"{table}{suffix}"
        if path.exists() and (suffix or path.is_dir()):
            return path
    return None


def _read_file(path: Path | None) -> list[dict[str, Any]]:
    import duckdb

    if path is None:
        return []
    csv = path.suffix.lower() == ".csv" or (path.is_dir() and not any(path.glob("*.parquet")))
    where = str(path / ("*.csv" if csv else "*.parquet")) if path.is_dir() else str(path)
    if path.is_dir() and not any(path.glob("*.csv" if csv else "*.parquet")):
        raise InputError(f"{path} is a directory without .parquet or .csv part files")
    con = duckdb.connect()
    try:
        cur = con.execute(f"SELECT * FROM {'read_csv' if csv else 'read_parquet'}"
                          f"({literal(where)}{', header = true' if csv else ''})")
        names = [d[0] for d in cur.description]
        return [{k: plain(v) for k, v in zip(names, r, strict=True)} for r in cur.fetchall()]
    finally:
        con.close()


def is_exported(directory: Path) -> bool:
    """Whether `directory` holds an exported warehouse sample (a pair_manifest)."""
    return directory.is_dir() and _find(directory, "pair_manifest") is not None


def exported_manifest(directory: Path) -> Path | None:
    return _find(directory, "pair_manifest")


def _one(rows: list[dict[str, Any]], where: str) -> dict[str, Any]:
    if len(rows) != 1:
        raise InputError(f"{where}: a manifest has one row, not {len(rows)}")
    return rows[0]


def read_exported(directory: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Draw rows and manifest of a sample whose tables were exported into `directory`."""
    found = {t: _find(directory, t) for t in ("pair_manifest", "pair_sample", "pair_slices",
                                              "pair_sample_strata")}
    where = str(found["pair_manifest"])
    slices = _read_file(found["pair_slices"])
    # the slice columns as typed: a name Snowflake keeps in upper case stays so
    typed = sorted({c for r in slices for c in str(r.get("slice_columns", r.get(
        "SLICE_COLUMNS", ""))).split(",")})
    manifest = manifest_from_rows(
        _one(_renamed(_read_file(found["pair_manifest"]), "population"), where),
        _renamed(slices, "slice_columns", typed),
        _renamed(_read_file(found["pair_sample_strata"]), "stratum_index"), where)
    if found["pair_sample"] is None and _drawn(manifest):
        raise InputError(f"{directory} holds no pair_sample.parquet or .csv, though its "
                         f"manifest counts {_drawn(manifest)} draws",
                         hint="Export the script's pair_sample table there too.")
    draws = _renamed(_read_file(found["pair_sample"]), "pair_id", typed)
    return _draws(draws), manifest


def read_exported_questions(directory: Path) -> tuple[list[dict[str, Any]], Path]:
    """The rows of an exported sample's `pair_questions` table (what `abcde judge`
    serves), read as the other tables are, and the file they came from."""
    path = _find(directory, "pair_questions")
    if path is None:
        raise InputError(f"{directory} holds a warehouse sample without its questions: no "
                         "pair_questions.parquet or .csv", hint=QUESTIONS_HINT)
    return _renamed(_read_file(path), "pair_id"), path


def read_tables(prefix: str, schema: str | None = None, *, db: str | Path | None = None,
                engine: Any = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Draw rows and manifest of a sample held as tables `<schema>.<prefix>pair_*` of a
    DuckDB database `db` (opened read-only), else of an open `engine`."""
    own = None
    if db is not None:
        from abcde.engines.duckdb import DuckDBEngine

        engine = own = DuckDBEngine(db=db)
    named = f"{schema + '.' if schema else ''}{prefix}"

    def read(table: str, required: bool) -> list[dict[str, Any]]:
        try:
            name = engine.user_table(named + table)
        except InputError:  # an engine without a user database: its own tables
            name = table_ref(named + table)
        if engine.table_exists(name):
            return engine.fetch(engine.select_sql(name))
        if required:
            raise InputError(f"no table {named}{table}", hint="Give the --prefix (and "
                             "--schema) the script was written with.")
        return []

    try:
        row = _one(read("pair_manifest", True), f"{prefix}pair_manifest")
        stratified = bool(row.get("stratified"))
        manifest = manifest_from_rows(row, read("pair_slices", False),
                                      read("pair_sample_strata", stratified),
                                      f"{prefix}pair_manifest")
        return _draws(read("pair_sample", _drawn(manifest) > 0)), manifest
    finally:
        if own is not None:
            own.close()
