"""An item sample file of `abcde sample-items --out FILE` and its manifest beside it,
``FILE.manifest.json``, sealed, with the file's sha256 (docs/method.md §7.3, §7.9)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from abcde.sample_files.layout import digest, read_manifest, verified, write_manifest


def manifest_path(sample: Path) -> Path:
    return sample.with_name(sample.name + ".manifest.json")


def write_item_manifest(out: Path, temps: list[Path], manifest: dict[str, Any],
                        rows: int) -> dict[str, str]:
    """The manifest of the sample just written to ``temps[0]`` (renamed to `out`), into
    ``temps[1]``; returns the files."""
    files = {"sample": str(out), "manifest": str(manifest_path(out))}
    manifest["files"] = files
    manifest["digests"] = {out.name: digest(temps[0], rows)}
    write_manifest(temps[1], manifest)
    return files


def trusted_item_sample(path: Path) -> dict[str, Any] | None:
    """The manifest of `path` when abcde wrote it (its sealed manifest beside it records
    its sha256), None without a manifest (a file of the user's own); refused when the
    manifest or the file is not as abcde wrote them (renaming both is fine)."""
    where = manifest_path(path)
    if not where.exists():
        return None
    manifest = read_manifest(where, "sample-items")
    verified(path, manifest, "sample-items", name=next(iter(manifest["digests"]), ""))
    return manifest
