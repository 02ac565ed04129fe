"""`abcde impact --out`: '-' names stdout elsewhere in abcde (`report --out -`), but
impact's --out is a directory of tables, which cannot go to stdout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from abcde.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_out_dash_is_refused_and_makes_no_directory(tmp_path: Path, fmt: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["impact", str(EXAMPLES / "base.csv"),
                                       str(EXAMPLES / "exp.csv"), "--out", "-",
                                       "--format", fmt])
    assert result.exit_code == 2, result.output
    assert "--out - would make a directory named '-'" in result.output
    assert "use --format json" in result.output and "Traceback" not in result.output
    assert os.listdir(tmp_path) == []


def test_the_python_api_refuses_a_directory_named_dash_too(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           ) -> None:
    from abcde import impact
    from abcde.errors import InputError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="--out - would make a directory named '-'"):
        impact({1: 1, 2: 1}, {1: 1, 2: 2}, out="-")
    assert os.listdir(tmp_path) == []
