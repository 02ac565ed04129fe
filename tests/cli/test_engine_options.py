"""The engine options of the command line (issue 16): options of another engine, or
contradicting ones, exit 2 naming them — before any engine starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from abcde.cli import main

EX = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(("options", "message"), [
    (["--spark-remote", "sc://h:1", "--spark-master", "local[1]"], "exclude each other"),
    (["--spark-remote", "http://h:1"], "not a Spark Connect URL"),
    (["--spark-conf", "no_equals_sign"], "is not KEY=VALUE"),
    (["--engine", "spark", "--dsn", "postgresql://x"], "--dsn is for --engine postgres"),
    (["--engine", "spark", "--threads", "2"], "are DuckDB options"),
    (["--engine", "postgres", "--dsn", "postgresql://x", "--spark-master", "local"],
     "are for --engine spark"),
])
def test_contradicting_engine_options_exit_2(options: list[str], message: str) -> None:
    args = ["impact", str(EX / "base.csv"), str(EX / "exp.csv"), *options]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert message in result.output
