"""The Snowflake scripts of a judgement round executed on fakesnow (PyPI `fakesnow`, an
in-process Snowflake emulator that translates Snowflake SQL to DuckDB): impact, then
sample-items, sample-pairs and sample-pairs --strata-allocation reusing its cells, and
evaluate — each script run whole, as abcde writes it — give the numbers and samples of
the CLI on DuckDB (tests/warehouse/emulated_round.py). Beside the static checks (re-parse,
the trap test), not instead of them: fakesnow runs DuckDB, not Snowflake, so it catches
what its translation also catches (unknown functions, types, names, quoting, the
statements' order), not Snowflake's own semantics.

fakesnow lives in its own virtualenv (tests/warehouse/venvs.py; $ABCDE_FAKESNOW_VENV): it
pins sqlglot ~=30.22 where abcde needs ≥ 30.30, and imports only with
snowflake-connector-python < 4."""

from __future__ import annotations

from pathlib import Path

import pytest
from emulated_round import check_round, round_job, run_job
from venvs import cached_venv

FAKESNOW_PINS = ("fakesnow==0.12.1", "snowflake-connector-python<4")
RUNNER = Path(__file__).with_name("fakesnow_run.py")


@pytest.fixture(scope="session")
def fakesnow_python() -> Path:
    return cached_venv("fakesnow-venv", "ABCDE_FAKESNOW_VENV", FAKESNOW_PINS) / "bin" / "python"


@pytest.mark.slow
def test_snowflake_scripts_run_on_fakesnow(fakesnow_python: Path, tmp_path: Path) -> None:
    # fakesnow makes a fakesnow_bucket_* directory in TMPDIR that it never removes
    check_round(run_job(fakesnow_python, RUNNER, round_job("snowflake", "db"), tmp_path))
