"""The BigQuery scripts of a judgement round executed on bqemulator (PyPI `bqemulator`:
BigQuery's REST API served over DuckDB, GoogleSQL translated by sqlglot): impact, then
sample-items, sample-pairs and sample-pairs --strata-allocation reusing its cells (their
first statement looks the cell tables up in the dataset's INFORMATION_SCHEMA.TABLES), and
evaluate — each script sent whole as one query job, a BigQuery multi-statement script —
give the numbers and samples of the CLI on DuckDB (tests/warehouse/emulated_round.py).
Beside GoogleSQL's analyzer (test_sql_scripts.py), not instead of it: the emulator runs
DuckDB, not BigQuery.

bqemulator lives in its own virtualenv (tests/warehouse/venvs.py; $ABCDE_BQEMULATOR_VENV):
it pins sqlglot < 30.12 where abcde needs ≥ 30.30. At start it loads DuckDB's spatial
extension, which DuckDB would download from outside PyPI: the virtualenv pins DuckDB to
the version of the PyPI wheel duckdb-extension-spatial and installs the extension from
that wheel, once, into <venv>/home/.duckdb (DuckDB's extension directory under HOME; the
runner runs with HOME there), so the emulator reaches no network. (numpy: the emulator's
built-in functions need it.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from emulated_round import check_round, round_job, run_job
from venvs import cached_venv

BQEMULATOR_PINS = ("bqemulator==1.4.0", "duckdb==1.5.5", "duckdb-extensions==1.5.5",
                   "duckdb-extension-spatial==1.5.5", "numpy>=1.26")
INSTALL_SPATIAL = ("import duckdb, duckdb_extensions; "
                   "duckdb_extensions.import_extension('spatial', con=duckdb.connect())")
RUNNER = Path(__file__).with_name("bqemulator_run.py")


@pytest.fixture(scope="session")
def bqemulator_venv() -> Path:
    return cached_venv("bqemulator-venv", "ABCDE_BQEMULATOR_VENV", BQEMULATOR_PINS,
                       then=[INSTALL_SPATIAL])


@pytest.mark.slow
def test_bigquery_scripts_run_on_bqemulator(bqemulator_venv: Path, tmp_path: Path) -> None:
    job = round_job("bigquery", "proj")
    check_round(run_job(bqemulator_venv / "bin" / "python", RUNNER, job, tmp_path,
                        env={"HOME": str(bqemulator_venv / "home")}))
