"""The exploration server reads its sample once, at start (ABCDE §4.1.1; docs/method.md
§13.2): requests query the rows read, on cursors of their own, and a sample file
replaced under the running server is read again, never answered from the rows of the
file it replaced."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import duckdb
import pytest
from starlette.testclient import TestClient
from structures import same

from abcde.explorer import groups as explore_module
from abcde.explorer.app import explore_app
from abcde.explorer.groups import explore
from abcde.server.app import allowed_hosts

TOKEN = "t" * 43
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every read of a sample by explore, as the sample it read."""
    seen: list[str] = []
    load = explore_module._load

    def spy(con: duckdb.DuckDBPyConnection, sample: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(str(sample))
        return load(con, sample, *args, **kwargs)

    monkeypatch.setattr(explore_module, "_load", spy)
    return seen


def client_of(sample: Path) -> TestClient:
    app = explore_app(sample, TOKEN, allowed_hosts("127.0.0.1", 8000))
    return TestClient(app, base_url="http://127.0.0.1:8000")


def q(**params: object) -> dict[str, object]:
    return {"token": TOKEN, **params}


def copy_sample(sample: Path, to: Path) -> Path:
    shutil.copy(sample, to)
    shutil.copy(f"{sample}.manifest.json", f"{to}.manifest.json")
    return to


def replace(path: Path, new: Path) -> None:
    """Swap `new` (and its manifest) in for `path` as an editor or a copy does: renamed
    over it, a new inode."""
    os.replace(f"{new}.manifest.json", f"{path}.manifest.json")
    os.replace(new, path)


def test_requests_reuse_the_sample_checked_at_start(item_sample: Path,
                                                    checks: list[str]) -> None:
    client = client_of(item_sample)
    assert len(checks) == 1  # at start: a bad sample stops the server there
    for params in (q(), q(group_by="country"), q(group_by=["provenance", "size_class"]),
                   q(col="country", op="=", val="US", metric="merge_rate")):
        assert client.get("/api/groups", params=params).status_code == 200
        assert client.get("/", params=params).status_code == 200
    assert len(checks) == 1, checks
    got = client.get("/api/groups", params=q(group_by="country", top="5")).json()
    same(got, explore(item_sample, "country", top=5))


def test_a_replaced_sample_is_checked_again(item_sample: Path, tmp_path: Path,
                                            checks: list[str]) -> None:
    from abcde.sampling.items import sample_items

    path = copy_sample(item_sample, tmp_path / "items.parquet")
    client = client_of(path)
    before = client.get("/api/groups", params=q(group_by="country")).json()
    same(before, explore(item_sample, "country"))
    # another sample, renamed over the one the server checked
    other = tmp_path / "other.parquet"
    sample_items(str(EXAMPLES / "base.csv"), str(EXAMPLES / "exp.csv"),
                 str(EXAMPLES / "weights.csv"), attributes=str(EXAMPLES / "attributes.csv"),
                 size=500, seed=7, out=str(other))
    want = explore(other, "country")
    assert want["sample_draws"] != before["sample_draws"]
    replace(path, other)
    del checks[:]
    got = client.get("/api/groups", params=q(group_by="country")).json()
    same(got, want)
    assert len(checks) == 1
    client.get("/api/groups", params=q(group_by="country"))
    assert len(checks) == 1  # checked once again, then reused


def damage(path: Path, select: Callable[[str], str]) -> None:
    """Rewrite `path` in place (the same inode) with the rows `select` makes of it."""
    tmp, source = path.with_suffix(".tmp.parquet"), f"read_parquet('{path}')"
    con = duckdb.connect()
    con.execute(f"COPY ({select(source)}) TO '{tmp}' (FORMAT PARQUET)")
    con.close()
    with path.open("r+b") as f:  # the same file, written over
        f.write(tmp.read_bytes())
        f.truncate()
    tmp.unlink()


def test_a_sample_damaged_under_the_server_is_refused_not_served(
        item_sample: Path, tmp_path: Path, checks: list[str]) -> None:
    path = copy_sample(item_sample, tmp_path / "items.parquet")
    good = path.read_bytes()
    client = client_of(path)
    assert client.get("/api/groups", params=q()).status_code == 200
    inode = path.stat().st_ino
    # one row's importance weight doubled
    damage(path, lambda src: "SELECT * REPLACE (CASE WHEN first_draw = 1 THEN "
                             "importance_weight * 2 ELSE importance_weight END "
                             f"AS importance_weight) FROM {src}")
    assert path.stat().st_ino == inode
    del checks[:]
    for _ in range(2):  # refused; the refusal is kept until the file changes again
        r = client.get("/api/groups", params=q(group_by="country"))
        assert r.status_code == 409, r.text
        error = r.json()["error"]
        assert f"the sample file {path} changed since the server started and is " \
               "refused" in error and "not as `abcde sample-items` wrote it" in error, error
        page = client.get("/", params=q(group_by="country"))
        assert page.status_code == 409 and 'class="error"' in page.text
        assert "changed since the server started" in page.text
    assert len(checks) == 1
    path.write_bytes(good)  # put back: served again
    r = client.get("/api/groups", params=q(group_by="country"))
    assert r.status_code == 200
    same(r.json(), explore(item_sample, "country"))


def test_a_deleted_sample_is_refused(item_sample: Path, tmp_path: Path) -> None:
    path = copy_sample(item_sample, tmp_path / "items.parquet")
    client = client_of(path)
    path.unlink()
    r = client.get("/api/groups", params=q())
    assert r.status_code == 409 and f"{path} is not as" in r.json()["error"]
    assert "it is missing" in r.json()["error"]


def test_queries_from_many_threads_equal_explore(item_sample: Path) -> None:
    from abcde.explorer.groups import CheckedSample

    checked = CheckedSample(item_sample)
    queries: list[dict[str, Any]] = [
        {"group_by": "country"}, {"group_by": ["provenance", "size_class"],
                                  "metric": "split_rate"},
        {"group_by": "size_class", "filters": [("country", "!=", "US")], "examples": 1},
        {"where": "jaccard_distance > 0.5", "group_by": "provenance"}] * 6
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda kw: checked.explore(**kw), queries))
    for kw, doc in zip(queries, got, strict=True):
        same(doc, explore(item_sample, **kw))
