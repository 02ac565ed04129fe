"""A pair sample made in a warehouse (`abcde sql sample-pairs`, the dbt models), read back
for `abcde estimate`: its tables exported as files into one directory, or the tables
themselves in a DuckDB database, PostgreSQL or Spark.

The script writes the manifest as a one-row table (`<prefix>pair_manifest`), the
per-slice pairweights as `<prefix>pair_slices` and, for a stratified sample, one row per
stratum as `<prefix>pair_sample_strata`. Flat columns map to the manifest `abcde sample-pairs`
writes as JSON (`manifest_from_rows`): `totals_<k>`, `population_pairs_<k>`,
`pairs_<k>` and `pairs_<class>_<pairs|draws>` become the nested entries, the impact
metrics become `metrics`, `fp_*` the fingerprint; a slices row keeps the columns its
`slice_columns` names (several slicings share the table). Exported files are named after the
table without its prefix: `pair_manifest`, `pair_sample` (the draws), `pair_slices`,
`pair_sample_strata`, each .parquet or .csv, a file or a directory of part files (Spark's
`.write.parquet`, a wildcard `bq extract`); docs/warehouse.md shows the export
commands.
A sample whose `input_valid` is FALSE is refused."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from abcde.errors import InputError
from abcde.results import plain_row
from abcde.sql.quoting import literal, table_ref

TABLES = ("pair_manifest", "pair_sample", "pair_slices", "pair_sample_strata")
METRIC_KEYS = ("items", "weight", "affected_items", "affected_weight", "split_rate",
               "merge_rate", "jaccard_distance", "split_distance", "merge_distance",
               "jaccard_index", "affected_jaccard_index", "unaffected_jaccard_index")
SCALARS = ("abcde_version", "kind", "population", "alpha", "seed", "budget", "stream_draws",
           "draws", "sample_id", "stratified", "strata_allocation", "budget_filled",
           "judgeable_found", "fill_note")
EXACT_KEYS = ("delta_precision", "affected_good_index", "u_self")


def _pairs(row: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest's `pairs` (abcde.sampling.pairs.pair_counts) from a manifest or
    stratum row."""
    from abcde.sampling.pairs import PAIR_CLASSES

    out: dict[str, Any] = {k: int(row.get(f"pairs_{k}") or 0)
                           for k in ("ordered", "unordered", "judgeable")}
    out["by_class"] = {c: {"pairs": int(row.get(f"pairs_{c}_pairs") or 0),
                           "draws": int(row.get(f"pairs_{c}_draws") or 0)}
                       for c in PAIR_CLASSES}
    return out


def manifest_from_rows(row: Mapping[str, Any], slices: Sequence[Mapping[str, Any]] = (),
                       strata: Sequence[Mapping[str, Any]] = (),
                       where: str = "the manifest table") -> dict[str, Any]:
    """The manifest of `abcde sample-pairs` from the script's one-row manifest table, its
    slices and strata tables: the per-class totals (`classes_<key>_<column>`) go through
    the engines' own `population_entries`, so that every derived entry (Kish sizes,
    judgeable pairs, Σu, Σw) is computed as for a sample drawn by `abcde sample-pairs`."""
    from abcde.sampling.pairs import (
        CLASS_KEYS,
        DESIGN_VERSION,
        TOTAL_COLUMNS,
        population_entries,
        slice_order,
    )

    row = plain_row(dict(row))
    if row.get("input_valid") is False:
        raise InputError(f"{where}: the sample was drawn from input that failed its checks "
                         "(input_valid is FALSE)", hint="Read the script's validation table, "
                         "fix the input and run the script again.")
    if row.get("population") not in ("mixture", "abcde", "jaccard"):
        raise InputError(f"{where}: not a pair-sample manifest (no population)")
    if row.get("design_version") != DESIGN_VERSION:
        raise InputError(f"{where}: a sample of design version {row.get('design_version')!r}, "
                         f"not {DESIGN_VERSION}", hint="Write the script again with this "
                         "abcde (`abcde sql sample-pairs`) and run it.")
    missing = [f"classes_{k}_{c}" for k in CLASS_KEYS for c in TOTAL_COLUMNS
               if f"classes_{k}_{c}" not in row]
    if missing:
        raise InputError(f"{where}: lacks the columns {', '.join(missing[:3])}"
                         + (", …" if len(missing) > 3 else ""))
    totals = {k: {c: float(row[f"classes_{k}_{c}"] or 0.0) for c in TOTAL_COLUMNS}
              for k in CLASS_KEYS}
    self_parts = {k: row.get(f"exact_{k}") for k in EXACT_KEYS}
    overall = {k: row[k] for k in METRIC_KEYS if k in row}
    manifest: dict[str, Any] = {k: row[k] for k in SCALARS if k in row}
    manifest["design"] = {"version": DESIGN_VERSION, "population": row["population"],
                          "alpha": float(row["alpha"])}
    manifest["alpha"] = float(row["alpha"])
    manifest["pairs"] = _pairs(row)
    manifest.update(population_entries(totals, self_parts, overall))
    manifest["fingerprint"] = {k[3:]: row[k] for k in row if k.startswith("fp_")}
    # a row keeps its own slicing's columns and the totals, not the other slicings'
    # each slicing's rows (in the order the table holds the slicings) in `slice_order`
    by_slicing: dict[str, list[dict[str, Any]]] = {}
    for r in slices:
        by_slicing.setdefault(str(r["slice_columns"]), []).append(plain_row(dict(r)))
    rows = [r for cs, of in by_slicing.items()
            for r in sorted(of, key=lambda r: slice_order([r[c] for c in cs.split(",")]))]
    named = [str(r["slice_columns"]).split(",") for r in rows]
    every = {c for cs in named for c in cs} | {"slice_columns", "input_valid"}
    manifest["slices"] = [{**{c: r[c] for c in cs},
                           **{k: v for k, v in r.items() if k not in every}}
                          for r, cs in zip(rows, named, strict=True)]
    if row.get("stratified") and not strata:
        raise InputError(f"{where}: a stratified sample, but its strata table "
                         "(pair_sample_strata) is missing", hint="Export pair_sample_strata "
                         "too.")
    allocation = manifest.get("strata_allocation")
    if isinstance(allocation, str) and allocation not in ("proportional", "equal"):
        manifest["strata_allocation"] = float(allocation)
    if strata:
        manifest["stratified"] = True
        manifest["strata"] = []
        for r in sorted((plain_row(dict(r)) for r in strata), key=lambda r: r["stratum_index"]):
            manifest["strata"].append({
                "name": r["name"], "classes": str(r["classes"]).split(","),
                "budget": int(r["budget"]), "seed": int(r["seed"]), "q": float(r["q"]),
                "population_pairs": int(r["population_pairs"] or 0),
                "stream_draws": int(r.get("stream_draws") or 0),
                "draws": int(r.get("draws") or 0), "pairs": _pairs(r)})
    return manifest


def snowflake_renames(names: Sequence[str], marker: str,
                      keep: Sequence[str] = ()) -> dict[str, str]:
    """Upper-case column names of a table Snowflake unloaded, to the lower-case names the
    script wrote: Snowflake stores an unquoted name (`pair_id`) as PAIR_ID, and its COPY
    INTO writes that name into the file's header. Only for a header with `marker` in upper
    case and not in lower case (a file abcde's own commands wrote is never renamed);
    names in `keep` (slice columns typed in upper case, which Snowflake keeps as typed)
    and names whose lower case is also a column stay.

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
    """`rows` with `snowflake_renames` applied to their keys."""
    if not rows:
        return rows
    renames = snowflake_renames(list(rows[0]), marker, keep)
    if not renames:
        return rows
    return [{renames.get(k, k): v for k, v in r.items()} for r in rows]


def _draw_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in dict(r).items() if k != "input_valid"} for r in rows]


def _read_file(path: Path) -> list[dict[str, Any]]:
    import duckdb

    csv = path.suffix.lower() == ".csv" or (path.is_dir() and not any(path.glob("*.parquet")))
    reader = "read_csv" if csv else "read_parquet"
    extra = ", header = true" if csv else ""
    # a directory of part files: what spark.table(...).write and wildcard exports write
    where = str(path / ("*.csv" if csv else "*.parquet")) if path.is_dir() else str(path)
    if path.is_dir() and not any(path.glob("*.csv" if csv else "*.parquet")):
        raise InputError(f"{path} is a directory without .parquet or .csv part files")
    con = duckdb.connect()
    try:
        cur = con.execute(f"SELECT * FROM {reader}({literal(where)}{extra})")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    finally:
        con.close()


def _find(directory: Path, table: str) -> Path | None:
    """`table`.parquet or .csv: a file, or a directory of part files; or a directory
    named `table` holding part files."""
    for suffix in (".parquet", ".csv", ""):
        path = directory / f"{table}{suffix}"
        if path.exists() and (suffix or path.is_dir()):
            return path
    return None


def is_exported(directory: Path) -> bool:
    """Whether `directory` holds an exported warehouse sample (a pair_manifest file)."""
    return directory.is_dir() and _find(directory, "pair_manifest") is not None


def exported_manifest(directory: Path) -> Path | None:
    """The exported pair_manifest of `directory` (a file, or a directory of part files)."""
    return _find(directory, "pair_manifest")


def read_exported(directory: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Draw rows and manifest of a sample whose tables were exported into `directory`."""
    found = {t: _find(directory, t) for t in TABLES}
    if found["pair_manifest"] is None:
        raise InputError(f"{directory} holds no pair_manifest.parquet or .csv")
    # a Snowflake unload names the columns in upper case (see snowflake_renames)
    manifest_rows = _renamed(_read_file(found["pair_manifest"]),  # type: ignore[arg-type]
                             "population")
    if len(manifest_rows) != 1:
        raise InputError(f"{found['pair_manifest']}: a manifest has one row, not "
                         f"{len(manifest_rows)}")
    slices = _read_file(found["pair_slices"]) if found["pair_slices"] else []
    # the slice columns as typed: a name Snowflake keeps in upper case stays so
    typed = sorted({c for r in slices for c in str(r.get("slice_columns", r.get(
        "SLICE_COLUMNS", ""))).split(",")})
    slices = _renamed(slices, "slice_columns", typed)
    strata = _renamed(_read_file(found["pair_sample_strata"]), "stratum_index") \
        if found["pair_sample_strata"] else []
    manifest = manifest_from_rows(manifest_rows[0], slices, strata,
                                  str(found["pair_manifest"]))
    if found["pair_sample"] is None and _drawn(manifest):
        raise InputError(f"{directory} holds no pair_sample.parquet or .csv, though its "
                         f"manifest counts {_drawn(manifest)} draws",
                         hint="Export the script's pair_sample table there too.")
    draws = _renamed(_read_file(found["pair_sample"]), "pair_id", typed) \
        if found["pair_sample"] else []
    return _draw_rows(draws), manifest


QUESTIONS_HINT = ("Export the script's pair_questions table into the directory too, as "
                  "pair_questions.parquet or .csv, as the other tables (docs/warehouse.md, "
                  "step 4).")


def read_exported_questions(directory: Path) -> tuple[list[tuple[int, dict[str, Any]]], Path]:
    """The rows of an exported sample's `pair_questions` table (what `abcde judge` serves),
    numbered from 1, Snowflake's upper-case names read as the script's, and the file or
    directory they came from. Read by the reader of the other exported tables, so that
    ids are typed as in `pair_sample`."""
    path = _find(directory, "pair_questions")
    if path is None:
        raise InputError(f"{directory} holds a warehouse sample without its questions: no "
                         "pair_questions.parquet or .csv (the pairs to judge, with both "
                         "items' attributes)", hint=QUESTIONS_HINT)
    rows = _renamed(_read_file(path), "pair_id")
    return [(k, r) for k, r in enumerate(rows, start=1)], path


def _drawn(manifest: Mapping[str, Any]) -> int:
    """The draws a manifest counts: its sample's table must be there when they are not
    0 (read as no draws, the estimate was that of an empty sample)."""
    return sum(c["draws"] for c in manifest["pairs"]["by_class"].values())


def read_tables(prefix: str, schema: str | None = None, *, db: str | Path | None = None,
                engine: Any = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Draw rows and manifest of a sample held as tables `<schema>.<prefix>pair_*` of a
    DuckDB database `db` (opened read-only) or of an open `engine` (PostgreSQL, Spark)."""
    if (db is None) == (engine is None):
        raise InputError("give exactly one of a database file and an engine")
    own = None
    if db is not None:
        from abcde.engines.duckdb import DuckDBEngine

        if not Path(db).exists():
            raise InputError(f"--db {db} does not exist")
        engine = own = DuckDBEngine(db=db)
    try:
        def read(table: str, required: bool) -> list[dict[str, Any]]:
            full = f"{schema}.{prefix}{table}" if schema else f"{prefix}{table}"
            try:
                name = engine.user_table(full)
            except InputError:  # an engine without a user database: its own tables
                name = table_ref(full)
            if name is None or not engine.table_exists(name):
                if required:
                    raise InputError(f"no table {schema + '.' if schema else ''}{prefix}"
                                     f"{table}", hint="Give the --prefix (and --schema) "
                                     "the script was written with.")
                return []
            return engine.fetch(engine.select_sql(name))

        manifest_rows = read("pair_manifest", True)
        if len(manifest_rows) != 1:
            raise InputError(f"{prefix}pair_manifest: a manifest has one row, not "
                             f"{len(manifest_rows)}")
        stratified = bool(plain_row(dict(manifest_rows[0])).get("stratified"))
        manifest = manifest_from_rows(manifest_rows[0], read("pair_slices", False),
                                      read("pair_sample_strata", stratified)
                                      if stratified else [],
                                      f"{prefix}pair_manifest")
        return _draw_rows(read("pair_sample", _drawn(manifest) > 0)), manifest
    finally:
        if own is not None:
            own.close()
