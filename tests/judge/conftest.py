"""Fixtures for `abcde judge`: a pair sample of the example data with image and link
attributes (thumbnails served on loopback by a tiny static server, so that nothing
leaves the machine), a judge played by the examples' ideal clustering and the real server
started as a subprocess. Headless Chromium (`browser_factory`) is in tests/conftest.py.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import hashlib
import http.server
import shutil
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from .judge_support import EXAMPLES, Server, ideal

# --------------------------------------------------------------------------- #
# The sample
# --------------------------------------------------------------------------- #

def _thumbnail(item: str, cluster: str) -> str:
    """An SVG standing for the item's picture: items of one ideal cluster share colour
    and shape, so equivalent pairs look alike in the screenshot."""
    h = hashlib.sha256(cluster.encode()).hexdigest()
    colour, other = f"#{h[:6]}", f"#{h[6:12]}"
    shape = (f'<circle cx="80" cy="58" r="{22 + int(h[12], 16) * 2}" fill="{other}"/>'
             if int(h[13], 16) % 2 else
             f'<rect x="45" y="25" width="70" height="{50 + int(h[12], 16)}" fill="{other}"/>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="160" height="120" '
            f'viewBox="0 0 160 120"><rect width="160" height="120" fill="{colour}"/>'
            f'{shape}<text x="6" y="114" font-family="sans-serif" font-size="11" '
            f'fill="#fff">{item}</text></svg>')


@pytest.fixture(scope="session")
def image_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A static HTTP server on 127.0.0.1 with one SVG thumbnail per example item; its
    base URL."""
    folder = tmp_path_factory.mktemp("thumbs")
    for item, cluster in ideal().items():
        (folder / f"{item}.svg").write_text(_thumbnail(item, cluster))

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def base_sample(image_server: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 40-pair jaccard sample of the examples, attributes plus `thumb` (an image URL)
    and `page` (a link). Never judged: tests copy it (`sample_dir`)."""
    from abcde.sampling.pairs import sample_pairs

    folder = tmp_path_factory.mktemp("judge_sample_src")
    attributes = folder / "attributes.csv"
    with (EXAMPLES / "attributes.csv").open(newline="") as src, \
            attributes.open("w", newline="") as dst:
        reader = csv.DictReader(src)
        writer = csv.DictWriter(dst, [*(reader.fieldnames or []), "thumb", "page"])
        writer.writeheader()
        for row in reader:
            item = row["item_id"]
            writer.writerow({**row, "thumb": f"{image_server}/{item}.svg",
                             "page": f"https://images.example/{item}"})
    out = folder / "sample"
    sample_pairs(str(EXAMPLES / "base.csv"), str(EXAMPLES / "exp.csv"),
                 str(EXAMPLES / "weights.csv"), attributes=str(attributes),
                 budget=40, seed=5, out=out)  # the default population: mixture
    return out


@pytest.fixture
def sample_dir(base_sample: Path, tmp_path: Path) -> Path:
    """A fresh copy of the sample for one test (tests write verdicts.jsonl)."""
    return Path(shutil.copytree(base_sample, tmp_path / "round"))


# --------------------------------------------------------------------------- #
# The real server
# --------------------------------------------------------------------------- #

@pytest.fixture
def servers() -> Iterator[list[Server]]:
    """Servers a test starts (`servers.append(start_server(...))`), all stopped at the
    end whatever happens."""
    started: list[Server] = []
    try:
        yield started
    finally:
        for s in started:
            with contextlib.suppress(Exception):
                s.stop(signal.SIGKILL)
