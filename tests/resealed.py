"""Tests that hand-make a sample's files (hostile values for the page, a slice the draws
lack) record them as abcde would have written them: abcde trusts its own files through
the manifest's digests and seal, and refuses them edited."""

from __future__ import annotations

import json
from pathlib import Path

from abcde.sample_files.layout import MANIFEST, digest, write_manifest


def reseal(directory: Path, *names: str) -> None:
    """The manifest of a pair sample in `directory` with the digests of its files
    `names` as they are now, sealed again (also after an edit of the manifest)."""
    manifest = json.loads((directory / MANIFEST).read_text())
    for name in names:
        manifest["digests"][name] = digest(directory / name,
                                           manifest["digests"][name]["rows"])
    write_manifest(directory / MANIFEST, manifest)
