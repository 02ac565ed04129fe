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
    code = ("import abcde, abcde.templates as t; "
            "print(abcde.__file__); print(t.template_dir()); "
            "r = abcde.impact({1: 'a', 2: 'a'}, {1: 'x', 2: 'y'}); "
            "print(r.overall['split_rate'])")
    env = {**os.environ, "PYTHONPATH": str(target)}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out[0].startswith(str(target)), out
    assert out[1] == str(target / "abcde" / "sql_templates"), out
    assert float(out[2]) == 0.5
