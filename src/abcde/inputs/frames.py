"""Small in-memory tables given to the Python API — judgements, a truth, per-case scores
— as columns of Python values. Large ones (clusterings, weights, attributes) are read by
the engine instead (`abcde.inputs.sources`), samples as numpy arrays
(`abcde.quality.sample`).
"""

from __future__ import annotations

from typing import Any

from abcde.errors import InputError


def table_columns(table: Any, where: str) -> dict[str, list[Any]] | None:
    """The columns of a pandas or polars DataFrame or an Arrow table, by name, as lists of
    the Python values it holds (the caller decides what a missing value means); None for
    anything else. A repeated column name is refused."""
    if hasattr(table, "to_pydict") and hasattr(table, "column_names"):  # pyarrow.Table
        names = [str(c) for c in table.column_names]
    elif hasattr(table, "columns") and hasattr(table, "to_numpy") \
            and hasattr(table, "__getitem__") and not isinstance(table, dict):  # pandas, polars
        names = [str(c) for c in table.columns]
    else:
        return None
    if len(set(names)) < len(names):
        repeated = sorted({n for n in names if names.count(n) > 1})
        raise InputError(f"{where}: the column name(s) {', '.join(map(repr, repeated))} are "
                         f"repeated (columns: {names})",
                         hint="Give each column its own name (e.g. df.columns = [...]).")
    if hasattr(table, "to_pydict"):
        return {str(c): list(v) for c, v in table.to_pydict().items()}
    return {str(c): list(table[c].to_list() if hasattr(table[c], "to_list")
                         else table[c].tolist()) for c in table.columns}
