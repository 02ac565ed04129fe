"""Atomic outputs: every file abcde writes goes under a temporary name beside its
target (TARGET.tmp-<pid>-<random>; a later run removes those of a process that no longer
runs) and is swapped in by rename only when the whole output is complete, so a run that
fails, is refused or is interrupted leaves what was there before as it was.

- :func:`output_dir`: a directory (a pair sample, `impact --out`, a dbt project). On
  success the entries of an existing target that the new output does not replace are
  carried into it (hard links, else copies) and the two directories are exchanged
  (Linux's renameat2(RENAME_EXCHANGE), else two renames). A target that cannot be
  renamed (it holds the working directory, a mount point, an unwritable parent) gets
  the temporary directory inside it, and the files are renamed in one by one, manifests
  last.
- :func:`output_files`: single files, each renamed over its target at the end.

Both refuse an unwritable target before any work and clean up on failure or Ctrl-C; the
renames run with SIGINT, SIGTERM and SIGHUP held (`deferred_signals`).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import re
import secrets
import shutil
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from abcde.errors import InputError

__all__ = ["OutputDir", "deferred_signals", "input_files", "output_dir", "output_files",
           "refuse_inputs", "slice_file_stems"]

_DEFERRED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                  if hasattr(signal, name))


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP until the block ends, then act on them as before
    (Ctrl-C raises KeyboardInterrupt, SIGTERM ends the process): the renames that commit
    an output are never cut in half. The handlers are replaced, not the signal mask: a
    signal delivered to another thread (DuckDB's workers) still reaches Python's handler
    in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def record(signum: int, frame: object) -> None:
        pending.append(signum)

    old: dict[int, Any] = {}
    for sig in _DEFERRED:
        previous = signal.getsignal(sig)
        if previous is None:  # a handler not set from Python: leave it alone
            continue
        try:
            signal.signal(sig, record)
        except (OSError, ValueError):
            continue
        old[sig] = previous
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(pending):
            handler = old[sig]
            if callable(handler):
                handler(sig, None)  # e.g. Python's default SIGINT handler: KeyboardInterrupt
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), sig)


def _reason(err: OSError) -> str:
    if isinstance(err, FileExistsError | NotADirectoryError):
        return "it or a parent is a file"
    if err.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if err.errno == errno.EROFS:
        return "the file system is read-only"
    if err.errno == errno.ENOSPC:
        return "no space left on the device"
    return err.strerror or str(err)


def _refuse(option: str, target: Path, err: OSError, what: str) -> InputError:
    return InputError(f"cannot write {option} {target}: {_reason(err)}",
                      hint=f"{option} names {what}; choose a place you can write to.")


def input_files(*sources: object) -> list[Path]:
    """The files among a run's inputs (those named by a path that exists as a file), for
    the `inputs` of `output_dir` and `output_files`: an output never replaces them. A
    DataFrame, a mapping or a table name is no file and is skipped."""
    return [Path(s) for s in sources if isinstance(s, str | Path) and Path(s).is_file()]


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _refuse_input(option: str, shown: Path, what: str) -> InputError:
    # --overwrite replaces an earlier output, never what the run reads: an input given
    # as --out (or one inside an --out directory under a name the output writes) would
    # be lost once the output is renamed over it
    return InputError(f"{option} {shown} is an input of this run: writing {what} there "
                      "would replace it; nothing was written",
                      hint=f"Give {option} another place.")


def refuse_inputs(targets: Iterable[str | Path], inputs: Iterable[Path], *,
                  option: str = "--out", what: str = "a file") -> None:
    """Refuse output files that are input files of the run (the same file, by any
    name: a link, another relative path)."""
    inputs = list(inputs)
    for t in targets:
        if any(_same_file(Path(t), i) for i in inputs):
            raise _refuse_input(option, Path(t), what)


def _make_parents(directory: Path) -> list[Path]:
    """Create `directory` and its missing parents; returns those created (deepest
    last), for removal if the run fails."""
    missing = []
    p = directory
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    created = []
    try:
        for d in reversed(missing):
            d.mkdir()
            created.append(d)
    except BaseException:
        _remove_dirs(created)
        raise
    return created


def _remove_dirs(created: Sequence[Path]) -> None:
    for d in reversed(created):
        with contextlib.suppress(OSError):
            d.rmdir()


def _temp_name(target: Path) -> Path:
    """TARGET.tmp-<pid>-<random> beside the target; the first made for a target removes
    those of processes that no longer run (killed before their clean-up)."""
    remove_orphans(target.parent, re.compile(re.escape(target.name) + r"[.]tmp-(\d+)-"))
    return target.with_name(f"{target.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")


def remove_orphans(parent: Path, pattern: re.Pattern[str]) -> None:
    """Remove the entries of `parent` whose name `pattern` matches at its start with the
    id of a process that no longer runs (group 1)."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(parent):
            m = pattern.match(entry.name)
            if m is None or _runs(int(m[1])):
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's: running
        return True
    return True


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2 RENAME_EXCHANGE); False when the
    system or file system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                   ctypes.c_uint]
    fn.restype = ctypes.c_int
    at_fdcwd, rename_exchange = -100, 2
    if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        shutil.copy2(src, dst, follow_symlinks=False)


def _carry(old: Path, new: Path, replaced: Callable[[str], bool], rel: str = "") -> None:
    """Bring the entries of `old` that the new output neither wrote nor replaces into
    `new` (hard links where possible: nothing is copied twice on one file system)."""
    for entry in sorted(os.scandir(old), key=lambda e: e.name):
        name = f"{rel}{entry.name}"
        if replaced(name):
            continue
        dst = new / entry.name
        if entry.is_dir(follow_symlinks=False):
            if dst.is_dir() and not dst.is_symlink():
                _carry(Path(entry.path), dst, replaced, f"{name}/")
            elif not os.path.lexists(dst):
                shutil.copytree(entry.path, dst, symlinks=True, copy_function=_link_or_copy)
        elif not os.path.lexists(dst):
            if entry.is_symlink():
                os.symlink(os.readlink(entry.path), dst)
            else:
                _link_or_copy(entry.path, str(dst))


def _matcher(replaces: Iterable[str]) -> Callable[[str], bool]:
    """'name' replaces that entry; 'dir/' a whole directory and everything in it."""
    names = {r.rstrip("/") for r in replaces}
    dirs = tuple(r if r.endswith("/") else f"{r}/" for r in replaces if r.endswith("/"))

    def replaced(rel: str) -> bool:
        return rel in names or rel.startswith(dirs)

    return replaced


def _holds_cwd(target: Path) -> bool:
    try:
        cwd = Path.cwd().resolve()
    except OSError:
        return False
    real = target.resolve()
    return cwd == real or real in cwd.parents


class OutputDir:
    """Where a command writes a directory output: `path` (temporary) now, `target` once
    the output is complete. `final(p)` is where a file written under `path` ends up —
    the name to record in manifests and results."""

    def __init__(self, target: Path, path: Path, inside: bool) -> None:
        self.target = target
        self.path = path
        self.inside = inside  # the temporary directory is inside the target (fallback)

    def final(self, p: str | Path) -> Path:
        return self.target / Path(p).relative_to(self.path)


@contextlib.contextmanager
def output_dir(target: str | Path, *, replaces: Iterable[str] = (), option: str = "--out",
               inputs: Iterable[Path] = ()) -> Iterator[OutputDir]:
    """A directory output written atomically (module docstring), as an `OutputDir`:
    write under `.path`, record `.final(path)`. `replaces`: entries of an existing
    target (relative paths, 'dir/' for a whole directory) that belong to the output
    being replaced, dropped even when the new output lacks them; every other entry it
    does not write is kept. `inputs` (`input_files`): an output that would replace or
    drop one of them is refused, leaving the target as it was. `option` names the target
    in messages."""
    inputs, replaced = list(inputs), _matcher(replaces)
    if str(target) == "-":  # the shell's name for stdout (report --out -), not a name
        raise InputError(f"{option} - would make a directory named '-': {option} names a "
                         "directory for several files, which cannot go to stdout",
                         hint=f"Name a directory ({option} ./- for one named '-').")
    given = Path(target)
    target = Path(os.path.realpath(given)) if given.is_symlink() else given
    if target.exists() and not target.is_dir():
        raise InputError(f"{option} {given} exists and is not a directory",
                         hint=f"{option} names a directory (created if missing).")
    # an input that the output replaces whatever it writes (an entry of `replaces`) is
    # refused before the work; one that a file of the output's would replace, at the commit
    _refuse_replaced_inputs(target, replaced, inputs, option)
    existed = target.exists()
    inside = existed and (
        _holds_cwd(target) or os.path.ismount(target)
        or not os.access(target.parent, os.W_OK | os.X_OK))
    created: list[Path] = []
    try:
        if inside:
            tmp = _temp_name(target / ".abcde")
        else:
            created = _make_parents(target.parent)
            tmp = _temp_name(target)
        tmp.mkdir()
    except OSError as err:
        _remove_dirs(created)
        raise _refuse(option, given, err, "a directory (created if missing)") from err
    out = OutputDir(target, tmp, inside)
    try:
        yield out
        _refuse_replaced_inputs(target, replaced, inputs, option, written=tmp)
        _commit_dir(out, replaced, existed, option)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_dirs(created)
        raise


def _manifests_last(path: Path) -> tuple[bool, str]:
    return (path.name.endswith("manifest.json"), str(path))


def _check_kinds(new: Path, old: Path, option: str, top: Path) -> None:
    """Refuse an output entry whose name the existing directory holds as the other kind
    (a file where a directory is, or the reverse): the commit would delete what the
    user keeps there."""
    for entry in os.scandir(new):
        there = old / entry.name
        if not os.path.lexists(there):
            continue
        is_dir = entry.is_dir(follow_symlinks=False)
        was_dir = there.is_dir() and not there.is_symlink()
        if is_dir and was_dir:
            _check_kinds(Path(entry.path), there, option, top)
        elif is_dir != was_dir:
            raise InputError(
                f"{option} {top}: {there.relative_to(top)} is "
                f"{'a directory' if was_dir else 'a file'} there, where this output writes "
                f"{'a directory' if is_dir else 'a file'}; nothing was written",
                hint=f"Move {there} away, or give {option} another directory.")


def _refuse_replaced_inputs(target: Path, replaced: Callable[[str], bool],
                            inputs: Sequence[Path], option: str,
                            written: Path | None = None) -> None:
    """Refuse an output that would drop (an entry `replaces` names) or, once `written`
    holds its files, replace (a file of the same name) an input file inside the target."""
    if not inputs or not target.is_dir():
        return
    top = target.resolve()
    for p in inputs:
        real = p.resolve()
        if top not in real.parents:
            continue
        rel = real.relative_to(top)
        if replaced(rel.as_posix()) or (written is not None and (written / rel).exists()):
            raise _refuse_input(option, target / rel, "the output")


def _commit_dir(out: OutputDir, replaced: Callable[[str], bool], existed: bool,
                option: str) -> None:
    tmp, target = out.path, out.target
    if existed and target.exists():
        _check_kinds(tmp, target, option, target)
    if out.inside:  # file by file, manifests last; then the replaced leftovers go
        files = sorted((p for p in tmp.rglob("*") if not p.is_dir()), key=_manifests_last)
        with deferred_signals():
            for p in files:
                dst = out.final(p)
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(p, dst)
            written = {str(p.relative_to(tmp)) for p in files}
            for entry in sorted(target.rglob("*"), reverse=True):
                rel = str(entry.relative_to(target))
                if entry == tmp or tmp in entry.parents or rel in written:
                    continue
                if replaced(rel):
                    if entry.is_dir() and not entry.is_symlink():
                        with contextlib.suppress(OSError):
                            entry.rmdir()  # empty once its replaced files are gone
                    else:
                        entry.unlink()
        shutil.rmtree(tmp, ignore_errors=True)
        return
    if existed and target.exists():
        _carry(target, tmp, replaced)
        shutil.copystat(target, tmp)
        with deferred_signals():
            if not _exchange(tmp, target):
                aside = _temp_name(target)
                os.rename(target, aside)
                try:
                    os.rename(tmp, target)
                except BaseException:
                    os.rename(aside, target)
                    raise
                os.rename(aside, tmp)  # the old output, deleted below
        shutil.rmtree(tmp, ignore_errors=True)
        return
    try:
        with deferred_signals():
            os.rename(tmp, target)
    except OSError as err:
        if err.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
        # another command created the target meanwhile: replace its output as any
        # earlier one, carrying what this output does not write
        _commit_dir(out, replaced, True, option)


@contextlib.contextmanager
def output_files(*targets: str | Path, option: str = "--out", what: str = "a file",
                 inputs: Iterable[Path] = ()) -> Iterator[list[Path]]:
    """Single files written atomically: one temporary path per target (beside it), each
    renamed over its target in the given order (a manifest last) with interrupts held,
    removed on failure. A target that is a directory, a device or one of `inputs`, or
    whose place cannot be written, is refused before any work."""
    # a symbolic link is written through: the file it names gets the new content
    paths = [Path(os.path.realpath(t)) if Path(t).is_symlink() else Path(t)
             for t in targets]
    for given, p in zip(targets, paths, strict=True):
        if p.is_dir():
            raise InputError(f"{option} {given} is a directory", hint=f"{option} names a file.")
        if p.exists() and not p.is_file():
            # renaming a new file over a device, pipe or socket would replace it
            raise InputError(f"{option} {given} is not a regular file (a device, pipe or "
                             "socket)", hint=f"{option} names a regular file; to see the "
                             "output without keeping it, leave out --out.")
    refuse_inputs(targets, inputs, option=option, what=what)
    temps: list[Path] = []
    created: list[Path] = []
    try:
        for p in paths:
            created += _make_parents(p.parent)
            tmp = _temp_name(p)
            tmp.touch(exist_ok=False)
            temps.append(tmp)
    except OSError as err:
        for t in temps:
            t.unlink(missing_ok=True)
        _remove_dirs(created)
        raise _refuse(option, p, err, what) from err
    try:
        yield temps
        with deferred_signals():
            for tmp, p in zip(temps, paths, strict=True):
                os.replace(tmp, p)
    except BaseException:
        for t in temps:
            t.unlink(missing_ok=True)
        _remove_dirs(created)
        raise


def slice_file_stems(slicings: Sequence[Sequence[str]]) -> list[str]:
    """One file name (without suffix) per slicing of `impact --out` and `evaluate --out`:
    slices_<columns>, with characters a file name cannot hold replaced by _, and _2, _3,
    ... after a name already taken (also by case: file systems that ignore case would
    merge them). Every other file they write is named without the prefix slices_."""
    used: set[str] = set()
    stems = []
    for slicing in slicings:
        stem = re.sub(r"[^\w.-]+", "_", "slices_" + "_".join(slicing))[:120]
        unique, k = stem, 1
        while unique.lower() in used:
            k += 1
            unique = f"{stem}_{k}"
        used.add(unique.lower())
        stems.append(unique)
    return stems
