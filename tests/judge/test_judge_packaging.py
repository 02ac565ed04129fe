"""The wheel ships the judging page's templates and static files (and those of the
report and the exploration page), and the installed copy (not the source tree) serves
them."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "abcde" / "judge"


def test_wheel_ships_templates_and_static_files(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(dist), str(ROOT)], check=True)
    wheel = next(dist.glob("abcde*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {str(p.relative_to(ROOT / "src"))
               for package in (PACKAGE, PACKAGE.parent / "report", PACKAGE.parent / "explorer")
               for folder in ("templates", "static") if (package / folder).is_dir()
               for p in (package / folder).iterdir()}
    assert "abcde/report/templates/report.html" in shipped
    assert shipped and shipped <= names, shipped - names

    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(target), str(wheel)], check=True)
    code = ("import abcde.judge.app as a, abcde.server.app as s\n"
            "print(a.__file__)\n"
            "files = s.package_files('abcde.judge', a.STATIC_FILES)\n"
            "print(sorted(files))\n"
            "print(a.templates().get_template('pair.html').filename)\n")
    env = {**os.environ, "PYTHONPATH": str(target)}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, check=True,
                         capture_output=True, text=True).stdout.splitlines()
    assert out[0].startswith(str(target)), out
    assert out[1] == "['favicon.svg', 'judge.css', 'judge.js']"
    assert out[2].startswith(str(target)), out
