"""The installed wheel (not the source tree) finds its SQL templates."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_ships_templates_and_uses_them(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(dist), str(ROOT)], check=True)
    wheel = next(dist.glob("abcde-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    templates = sorted(n for n in names if n.startswith("abcde/sql_templates/"))
    source = sorted(str(p.relative_to(ROOT)).replace("sql_templates/", "abcde/sql_templates/", 1)
                    for p in (ROOT / "sql_templates").rglob("*.sql"))
    assert templates == source

    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(target), str(wheel)], check=True)
    # Run from an unrelated directory with only the installed copy importable first.
    code = ("import abcde, abcde.sql.templates as t; "
            "print(abcde.__file__); print(t.template_dir()); "
            "r = abcde.impact({1: 'a', 2: 'a'}, {1: 'x', 2: 'y'}); "
            "print(r.overall['split_rate'])")
    env = {**os.environ, "PYTHONPATH": str(target)}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out[0].startswith(str(target)), out
    assert out[1] == str(target / "abcde" / "sql_templates"), out
    assert float(out[2]) == 0.5


def test_public_api_resolves_and_impact_loads_lightly() -> None:
    """Every name of abcde.__all__ resolves (the lazy ones on first use, also after their
    module was imported directly), and `abcde impact` does not import numpy or the
    estimators: start-up time counts in the issue-2 speed target."""
    code = (
        "import sys, abcde, abcde.cli\n"
        "heavy = [m for m in ('numpy', 'abcde.quality.sample', 'abcde.quality.intervals',"
        " 'abcde.quality.metrics', 'abcde.evaluation.run', 'abcde.evaluation.uir',"
        " 'abcde.evaluation.uir_parametric', 'abcde.evaluation.scores',"
        " 'abcde.evaluation.compare', 'abcde.evaluation.text')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "import abcde.evaluation.run, abcde.quality.simulation, abcde.sampling.items\n"
        "for name in abcde.__all__:\n"
        "    value = getattr(abcde, name)\n"
        "    assert name == '__version__' or callable(value), (name, value)\n"
        "try:\n"
        "    abcde.no_such_name\n"
        "except AttributeError:\n"
        "    print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    assert out.strip() == "ok"


def test_python_dash_m_abcde_runs_the_cli(tmp_path: Path) -> None:
    """`python -m abcde` (and `python -m abcde.cli`) is the `abcde` command (for
    environments without the script on PATH): the same usage name, and a real command
    computes."""
    for module in ("abcde", "abcde.cli"):
        run = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                             text=True)
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith("Usage: abcde "), run.stdout
    (tmp_path / "b.csv").write_text("item_id,cluster_id\n1,a\n2,a\n")
    (tmp_path / "e.csv").write_text("item_id,cluster_id\n1,a\n2,b\n")
    run = subprocess.run([sys.executable, "-m", "abcde", "impact", str(tmp_path / "b.csv"),
                          str(tmp_path / "e.csv"), "--format", "json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert '"split_rate": 0.5' in run.stdout
