"""Spark through PySpark (`pip install 'abcde[spark]'`): an existing SparkSession from
Python, or a local one (`local[2]` by default) from the CLI.

Work tables go to a private database `abcde_work_<random>` (dropped on close); inputs
are temporary views. Settings of a local session: docs/method.md §11.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from abcde.engines.base import Engine, sql_type_of
from abcde.engines.files import write_rows
from abcde.errors import EngineError, InputError
from abcde.sql.dialects import Spark
from abcde.sql.quoting import ident, table_ref

try:
    from pyspark.errors import PySparkException
    from pyspark.sql import SparkSession
    from pyspark.sql import types as T
except ImportError as err:  # pragma: no cover - depends on the installed extras
    raise EngineError("the Spark engine needs PySpark: pip install 'abcde[spark]'") from err

_SPARK_TYPES = {"BIGINT": T.LongType(), "DOUBLE": T.DoubleType(), "VARCHAR": T.StringType(),
                "BOOLEAN": T.BooleanType()}


def local_session(master: str = "local[2]", warehouse: str | Path | None = None,
                  driver_memory: str = "2g") -> SparkSession:
    """A local SparkSession with the settings measured for abcde (docs/method.md §11)."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = (SparkSession.builder.master(master).appName("abcde")
               .config("spark.ui.enabled", "false")
               # abcde draws its own progress (abcde.progress): no console bars of Spark's
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.driver.memory", driver_memory)
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.sql.session.timeZone", "UTC"))
    if warehouse is not None:
        builder = builder.config("spark.sql.warehouse.dir", str(warehouse))
    try:
        session = builder.getOrCreate()
    except Exception as err:  # Java missing, port refused, ...
        raise EngineError(f"cannot start a local Spark session: {err}") from err
    session.sparkContext.setLogLevel("ERROR")
    return session


class SparkEngine(Engine):
    """Runs the pipeline's Spark SQL on `spark` (default: a new local session, stopped on
    close)."""

    dialect = Spark()
    reads_frames = True
    reads_tables = True

    def __init__(self, spark: SparkSession | None = None, master: str = "local[2]",
                 work_schema: str | None = None) -> None:
        self._own_session = spark is None
        self._warehouse: Path | None = None
        if spark is None:
            self._warehouse = Path(tempfile.mkdtemp(prefix="abcde_spark_"))
            spark = local_session(master, warehouse=self._warehouse)
        self.spark = spark
        self.work_schema = work_schema or f"abcde_work_{secrets.token_hex(4)}"
        self._views: list[str] = []
        self.execute(f"CREATE DATABASE IF NOT EXISTS {self._quote(self.work_schema)}")

    @staticmethod
    def _quote(name: str) -> str:
        return "`" + name.replace("`", "``") + "`"

    def execute(self, sql: str) -> None:
        try:
            self.spark.sql(sql)
        except PySparkException as err:
            raise EngineError(f"Spark refused a statement: {err}\n{sql}") from err

    def fetch(self, sql: str) -> list[dict[str, Any]]:
        try:
            return [row.asDict() for row in self.spark.sql(sql).collect()]
        except PySparkException as err:
            raise EngineError(f"Spark refused a query: {err}\n{sql}") from err

    def register_file(self, name: str, path: Path, fmt: str,
                      string_columns: Sequence[str] = ()) -> None:
        """A temporary view over the file; CSV types are inferred, except that
        `string_columns` are read as text (ids such as 007 stay distinct from 7)."""
        try:
            if fmt == "parquet":
                df = self.spark.read.parquet(str(path))
            elif fmt == "csv":
                reader = self.spark.read.option("header", "true")
                df = reader.option("inferSchema", "true").csv(str(path))
                if string_columns:
                    schema = T.StructType([
                        T.StructField(f.name, T.StringType() if f.name in string_columns
                                      else f.dataType, True) for f in df.schema.fields])
                    df = reader.schema(schema).csv(str(path))
            else:
                raise InputError(f"{path}: unsupported file format {fmt!r} (use CSV or "
                                 "Parquet)")
            df.createOrReplaceTempView(name)
        except PySparkException as err:
            raise EngineError(f"Spark cannot read {path}: {err}") from err
        self._views.append(name)

    def register_rows(self, name: str, columns: Sequence[str], rows: Sequence[tuple]) -> None:
        types = [sql_type_of(row[k] for row in rows) for k in range(len(columns))]
        schema = T.StructType([T.StructField(c, _SPARK_TYPES[t], True)
                               for c, t in zip(columns, types, strict=True)])
        try:
            self.spark.createDataFrame([tuple(r) for r in rows], schema
                                       ).createOrReplaceTempView(name)
        except PySparkException as err:
            raise EngineError(f"Spark refused the rows of {name}: {err}") from err
        self._views.append(name)

    def register_relation(self, name: str, obj: object) -> None:
        """A Spark DataFrame, as a temporary view."""
        if not hasattr(obj, "createOrReplaceTempView"):
            raise InputError(f"cannot read a {type(obj).__name__} on the Spark engine; "
                             "give a Spark DataFrame, a file or a table")
        obj.createOrReplaceTempView(name)  # type: ignore[attr-defined]
        self._views.append(name)

    def user_table(self, name: str) -> str:
        """A table or view of the session's catalog (`table`, `db.table`,
        `catalog.db.table`), read through a temporary view of abcde's own name: inside
        abcde's SQL the user's name could be one of its steps or CTEs (`cells`), which
        would be read instead. A name Spark cannot resolve is returned as is, for
        `table_exists` to report."""
        try:
            frame = self.spark.table(".".join(self._quote(p) for p in name.split(".")))
        except PySparkException:
            return table_ref(name)
        alias = f"abcde_table_{secrets.token_hex(4)}"
        frame.createOrReplaceTempView(alias)
        self._views.append(alias)
        return ident(alias)

    def columns(self, relation: str) -> list[tuple[str, str]]:
        try:
            return list(self.spark.sql(self.select_sql(relation)).dtypes)
        except PySparkException as err:
            raise EngineError(str(err)) from err

    def write(self, relation: str, path: Path, fmt: str, order_by: Sequence[str] = ()) -> None:
        """One file (collected through the driver: results are per cluster or slice)."""
        try:
            df = self.spark.sql(self.select_sql(relation, order_by))
            rows = [tuple(r) for r in df.collect()]
        except PySparkException as err:
            raise EngineError(f"Spark refused to read {relation}: {err}") from err
        write_rows(df.columns, rows, path, fmt)

    def close(self) -> None:
        try:
            self.execute(f"DROP DATABASE IF EXISTS {self._quote(self.work_schema)} CASCADE")
            for view in self._views:
                self.spark.catalog.dropTempView(view)
        finally:
            if self._own_session:
                self.spark.stop()
            if self._warehouse is not None:
                shutil.rmtree(self._warehouse, ignore_errors=True)


__all__ = ["SparkEngine", "local_session"]
