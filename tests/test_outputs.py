"""abcde.outputs: a directory or file output replaces what was there only once it is
complete; a failure or Ctrl-C inside leaves the target byte for byte as it was, and no
temporary file behind."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from abcde import outputs
from abcde.errors import InputError
from abcde.outputs import deferred_signals, output_dir, output_files


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every entry under root: file contents, None for a directory."""
    return {str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes())
            for p in sorted(root.rglob("*"))}


def leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if ".tmp-" in p.name)


@pytest.fixture
def old(tmp_path: Path) -> Path:
    target = tmp_path / "out"
    (target / "sub").mkdir(parents=True)
    (target / "a.txt").write_text("old a")
    (target / "mine.txt").write_text("the user's")
    (target / "sub" / "s.txt").write_text("old s")
    return target


def test_new_directory_appears_only_when_complete(tmp_path: Path) -> None:
    target = tmp_path / "x" / "y" / "out"
    with output_dir(target) as od:
        assert od.path.parent == target.parent and not target.exists()
        (od.path / "f.txt").write_text("new")
        assert od.final(od.path / "f.txt") == target / "f.txt"
    assert snapshot(target) == {"f.txt": b"new"}
    assert leftovers(target.parent) == []


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt, InputError])
def test_a_failure_leaves_the_old_directory_untouched(old: Path, error: type) -> None:
    before = snapshot(old)
    with pytest.raises(error), output_dir(old, replaces=["a.txt", "sub/"]) as od:
        (od.path / "a.txt").write_text("new a")
        raise error("boom")
    assert snapshot(old) == before
    assert leftovers(old.parent) == []


def test_a_failure_removes_the_parents_it_created(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), output_dir(tmp_path / "p" / "q" / "out"):
        raise RuntimeError
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("exchange", [True, False])
def test_success_replaces_what_it_writes_and_keeps_the_rest(
        old: Path, exchange: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries written replace the old ones, entries named in `replaces` go, every other
    entry is carried over (hard-linked, not copied) — with the atomic exchange and with
    the rename-aside fallback."""
    if not exchange:
        monkeypatch.setattr(outputs, "_exchange", lambda a, b: False)
    inode = (old / "mine.txt").stat().st_ino
    with output_dir(old, replaces=["sub/"]) as od:
        (od.path / "a.txt").write_text("new a")
        (od.path / "b.txt").write_text("new b")
    assert snapshot(old) == {"a.txt": b"new a", "b.txt": b"new b", "mine.txt": b"the user's"}
    assert (old / "mine.txt").stat().st_ino == inode
    assert leftovers(old.parent) == []


def test_the_working_directory_is_written_in_place(old: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A target that holds the working directory is never renamed (the shell would be
    left in a deleted directory): its files are renamed into place, the replaced ones
    removed, the others kept."""
    monkeypatch.chdir(old / "sub")
    with output_dir(old, replaces=["sub/s.txt", "gone.txt"]) as od:
        assert od.inside and od.path.parent == old
        (od.path / "a.txt").write_text("new a")
        (od.path / "manifest.json").write_text("{}")
    assert snapshot(old) == {"a.txt": b"new a", "manifest.json": b"{}",
                             "mine.txt": b"the user's", "sub": None}
    with pytest.raises(RuntimeError), output_dir(old) as od:
        (od.path / "a.txt").write_text("newer")
        raise RuntimeError
    assert (old / "a.txt").read_text() == "new a"
    assert [p.name for p in old.iterdir() if p.name.startswith(".abcde.tmp")] == []


@pytest.mark.parametrize("inside", [False, True])
def test_an_entry_of_the_other_kind_is_never_replaced(old: Path, inside: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A file the output writes where the old directory holds a directory of that name
    (with the user's files in it), or a directory where it holds a file: refused,
    nothing written — in both ways of committing."""
    if inside:
        monkeypatch.chdir(old)
    (old / "b.csv").mkdir()
    (old / "b.csv" / "keep.txt").write_text("the user's")
    before = snapshot(old)
    for name, make in (("b.csv", lambda p: p.write_text("new")), ("a.txt", Path.mkdir),
                       ("sub", lambda p: p.write_text("new"))):
        with pytest.raises(InputError, match=f"{name} is a .* there, where this output "
                                             "writes"), output_dir(old) as od:
            make(od.path / name)
        assert snapshot(old) == before
        assert leftovers(old.parent) == [] and not list(old.glob(".abcde.tmp*"))


def test_a_file_target_is_written_through_a_link_and_never_over_a_pipe(
        tmp_path: Path) -> None:
    """`--out link` writes the file the link names (the link stays); a FIFO (like a
    device) is refused before any work: renaming a file over it would replace it."""
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "r.html").write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(tmp_path / "real" / "r.html")
    with output_files(link) as (tmp,):
        tmp.write_text("new")
    assert link.is_symlink() and (tmp_path / "real" / "r.html").read_text() == "new"
    assert leftovers(tmp_path) == [] and leftovers(tmp_path / "real") == []
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"), output_files(fifo):
        pytest.fail("refused before the work")
    assert fifo.is_fifo()


def test_unwritable_places_are_refused_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="is not a directory"), output_dir(tmp_path / "file"):
        pytest.fail("entered")
    with pytest.raises(InputError, match="cannot write --out"), \
            output_dir(tmp_path / "file" / "sub"):
        pytest.fail("entered")
    with pytest.raises(InputError, match="cannot write --out /proc/"), \
            output_dir("/proc/abcde-test"):
        pytest.fail("entered")
    with pytest.raises(InputError, match="is a directory"), output_files(tmp_path):
        pytest.fail("entered")
    with pytest.raises(InputError, match="cannot write --out /proc/"), \
            output_files("/proc/abcde-test.parquet"):
        pytest.fail("entered")


def test_files_are_replaced_together_or_not_at_all(tmp_path: Path) -> None:
    a, m = tmp_path / "s.parquet", tmp_path / "s.parquet.manifest.json"
    a.write_text("old"), m.write_text("old m")
    with pytest.raises(KeyboardInterrupt), output_files(a, m) as (ta, tm):
        ta.write_text("new")
        raise KeyboardInterrupt
    assert (a.read_text(), m.read_text()) == ("old", "old m")
    with output_files(a, m) as (ta, tm):
        ta.write_text("new"), tm.write_text("new m")
    assert (a.read_text(), m.read_text()) == ("new", "new m")
    assert leftovers(tmp_path) == []


def test_signals_wait_for_the_commit() -> None:
    """SIGINT raised inside deferred_signals arrives after it, never in the middle."""
    done = []
    with pytest.raises(KeyboardInterrupt), deferred_signals():
        os.kill(os.getpid(), signal.SIGINT)
        done.append("renamed")
    assert done == ["renamed"]


@pytest.mark.parametrize("inside", [False, True])
def test_an_input_inside_the_directory_is_never_replaced(
        old: Path, inside: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """An input file the output would replace (a file of the same name written) or drop
    (named in `replaces`) is refused at the commit, the directory as it was; any other
    input there is kept as any other entry."""
    if inside:
        monkeypatch.chdir(old)  # the working directory is written in place
    before = snapshot(old)
    for replaces, name in (((), "a.txt"), (["sub/"], "other.txt")):
        with pytest.raises(InputError, match="is an input of this run"), \
                output_dir(old, replaces=replaces,
                           inputs=[old / "a.txt", old / "sub" / "s.txt"]) as od:
            (od.path / name).write_text("new")
        assert snapshot(old) == before
        assert leftovers(old.parent) == [] and leftovers(old) == []
    with output_dir(old, inputs=[old / "mine.txt"]) as od:
        (od.path / "a.txt").write_text("new a")
    assert snapshot(old)["a.txt"] == b"new a" and snapshot(old)["mine.txt"] == b"the user's"


def test_an_input_the_output_replaces_anyway_is_refused_before_the_work(old: Path) -> None:
    """An input that is an entry of `replaces` (an earlier output's file, read again as
    an input) would be dropped whatever the run writes: refused before the work (the
    body is not entered), not at the commit after it."""
    before = snapshot(old)
    for replaces in (["a.txt"], ["sub/"]):
        with pytest.raises(InputError, match="is an input of this run"), \
                output_dir(old, replaces=replaces, inputs=[old / "a.txt", old / "sub" / "s.txt"]):
            pytest.fail("entered")
        assert snapshot(old) == before and leftovers(old.parent) == []


def test_an_input_file_is_never_a_target(tmp_path: Path) -> None:
    """By any name (another path, a link), before any work."""
    data = tmp_path / "base.csv"
    data.write_text("item_id,cluster_id\n1,1\n")
    link = tmp_path / "link.csv"
    link.symlink_to(data)
    for target in (data, tmp_path / "." / "base.csv", link):
        with pytest.raises(InputError, match="is an input of this run"), \
                output_files(target, inputs=[link]):
            pytest.fail("entered")
    assert data.read_text() == "item_id,cluster_id\n1,1\n"
    assert leftovers(tmp_path) == []
