"""Atomic outputs: every file abcde writes goes under a temporary name beside its target
(TARGET.tmp-<pid>-<random>; a later run removes those of a process that no longer runs)
and replaces the target only when the whole output is complete, with SIGINT, SIGTERM
and SIGHUP held: a run that fails, is refused or is interrupted leaves what was there.

`output_dir` carries the entries of an existing directory that the new output does not
replace into the new one and exchanges the two (Linux's renameat2, else two renames); a
target that cannot be renamed (it holds the working directory, a mount point, an
unwritable parent) gets its files renamed in one by one, manifests last. `output_files`
renames single files over their targets.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abcde.errors import InputError

_DEFERRED = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP")
                  if hasattr(signal, n))
_REASONS = {errno.EACCES: "permission denied", errno.EPERM: "permission denied",
            errno.EROFS: "the file system is read-only",
            errno.ENOSPC: "no space left on the device"}


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP until the block ends, then act on them: the renames
    committing an output are never cut in half. Handlers are replaced, not the signal
    mask, so a signal delivered to another thread (DuckDB's) still reaches Python's."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    old: dict[int, Any] = {}
    for sig in _DEFERRED:
        previous = signal.getsignal(sig)
        if previous is not None:  # None: a handler not set from Python, left alone
            with contextlib.suppress(OSError, ValueError):
                signal.signal(sig, lambda signum, _: pending.append(signum))
                old[sig] = previous
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(pending):
            if callable(old[sig]):
                old[sig](sig, None)  # Python's default SIGINT handler: KeyboardInterrupt
            elif old[sig] == signal.SIG_DFL:
                os.kill(os.getpid(), sig)


def _refuse(option: str, target: Path, err: OSError, what: str) -> InputError:
    reason = ("it or a parent is a file" if isinstance(err, FileExistsError | NotADirectoryError)
              else _REASONS.get(err.errno or 0, err.strerror or str(err)))
    return InputError(f"cannot write {option} {target}: {reason}",
                      hint=f"{option} names {what}; choose a place you can write to.")


def _an_input(option: str, shown: Path, what: str) -> InputError:
    return InputError(f"{option} {shown} is an input of this run: writing {what} there "
                      "would replace it; nothing was written", hint=f"Give {option} another place.")


def input_files(*sources: object) -> list[Path]:
    """The files among a run's inputs (paths of existing files): an output never
    replaces them. A DataFrame, a mapping or a table name is skipped."""
    return [Path(s) for s in sources if isinstance(s, str | Path) and Path(s).is_file()]


def refuse_inputs(targets: Iterable[str | Path], inputs: Iterable[Path], *,
                  option: str = "--out", what: str = "a file") -> None:
    """Refuse output files that are input files of the run, by any name."""
    inputs = list(inputs)
    for t in targets:
        for i in inputs:
            with contextlib.suppress(OSError):
                if os.path.samefile(t, i):
                    raise _an_input(option, Path(t), what)


def _make_parents(directory: Path) -> list[Path]:
    """Create `directory` and its missing parents; those created, deepest last."""
    created: list[Path] = []
    try:
        for d in reversed([p for p in (directory, *directory.parents) if not p.exists()]):
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
    """TARGET.tmp-<pid>-<random>, after removing those of processes no longer running."""
    remove_orphans(target.parent, re.compile(re.escape(target.name) + r"[.]tmp-(\d+)-"))
    return target.with_name(f"{target.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")


def remove_orphans(parent: Path, pattern: re.Pattern[str]) -> None:
    """Remove the entries of `parent` whose name `pattern` matches with the id of a
    process that no longer runs (group 1)."""
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
    except OSError:  # another user's
        pass
    return True


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (renameat2 RENAME_EXCHANGE); False where unsupported."""
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(-100, os.fsencode(a), -100, os.fsencode(b), 2) == 0:  # AT_FDCWD, RENAME_EXCHANGE
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
    `new` (hard links where possible)."""
    for entry in sorted(os.scandir(old), key=lambda e: e.name):
        name, dst = f"{rel}{entry.name}", new / entry.name
        if replaced(name):
            continue
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


@dataclass(frozen=True)
class OutputDir:
    """Where a command writes a directory output: `path` (temporary) now, `target` once
    complete; `final(p)` is where a file written under `path` ends up (for manifests)."""

    target: Path
    path: Path
    inside: bool  # the temporary directory is inside the target (files renamed one by one)

    def final(self, p: str | Path) -> Path:
        return self.target / Path(p).relative_to(self.path)


@contextlib.contextmanager
def output_dir(target: str | Path, *, replaces: Iterable[str] = (), option: str = "--out",
               inputs: Iterable[Path] = ()) -> Iterator[OutputDir]:
    """A directory output written atomically (module docstring): write under `.path`.
    `replaces`: entries of an existing target ('dir/' for a whole directory) belonging to
    the output replaced, dropped even when the new one lacks them; every other entry is
    kept. An output that would replace or drop one of `inputs` is refused."""
    inputs = list(inputs)
    names = {r.rstrip("/") for r in replaces}
    dirs = tuple(r for r in replaces if r.endswith("/"))

    def replaced(rel: str) -> bool:
        return rel in names or rel.startswith(dirs)

    if str(target) == "-":  # the shell's name for stdout (report --out -)
        raise InputError(f"{option} - would make a directory named '-': {option} names a "
                         "directory for several files, which cannot go to stdout",
                         hint=f"Name a directory ({option} ./- for one named '-').")
    given = Path(target)
    target = Path(os.path.realpath(given)) if given.is_symlink() else given
    if target.exists() and not target.is_dir():
        raise InputError(f"{option} {given} exists and is not a directory",
                         hint=f"{option} names a directory (created if missing).")
    _refuse_replaced_inputs(target, replaced, inputs, option)
    existed = target.exists()
    try:
        cwd: Path | None = Path.cwd().resolve()
    except OSError:
        cwd = None
    inside = existed and ((cwd is not None and (cwd == target.resolve() or target.resolve()
                                               in cwd.parents))
                          or os.path.ismount(target)
                          or not os.access(target.parent, os.W_OK | os.X_OK))
    created: list[Path] = []
    try:
        if not inside:
            created = _make_parents(target.parent)
        tmp = _temp_name(target / ".abcde" if inside else target)
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


def _check_kinds(new: Path, old: Path, option: str, top: Path) -> None:
    """Refuse an entry the existing directory holds as the other kind (a file where a
    directory is, or the reverse): the commit would delete what the user keeps there."""
    for entry in os.scandir(new):
        there = old / entry.name
        if not os.path.lexists(there):
            continue
        is_dir, was_dir = entry.is_dir(follow_symlinks=False), there.is_dir() \
            and not there.is_symlink()
        if is_dir and was_dir:
            _check_kinds(Path(entry.path), there, option, top)
        elif is_dir != was_dir:
            kind = ("a directory", "a file")
            raise InputError(f"{option} {top}: {there.relative_to(top)} is {kind[not was_dir]} "
                             f"there, where this output writes {kind[not is_dir]}; nothing "
                             "was written", hint=f"Move {there} away, or give {option} "
                             "another directory.")


def _refuse_replaced_inputs(target: Path, replaced: Callable[[str], bool],
                            inputs: Sequence[Path], option: str,
                            written: Path | None = None) -> None:
    """Refuse an output that would drop (an entry of `replaces`) or, once `written`
    holds its files, replace an input file inside the target."""
    if not inputs or not target.is_dir():
        return
    top = target.resolve()
    for p in inputs:
        real = p.resolve()
        if top in real.parents:
            rel = real.relative_to(top)
            if replaced(rel.as_posix()) or (written is not None and (written / rel).exists()):
                raise _an_input(option, target / rel, "the output")


def _commit_dir(out: OutputDir, replaced: Callable[[str], bool], existed: bool,
                option: str) -> None:
    tmp, target = out.path, out.target
    if existed and target.exists():
        _check_kinds(tmp, target, option, target)
    if out.inside:  # file by file, manifests last; then the replaced leftovers go
        files = sorted((p for p in tmp.rglob("*") if not p.is_dir()),
                       key=lambda p: (p.name.endswith("manifest.json"), str(p)))
        with deferred_signals():
            for p in files:
                out.final(p).parent.mkdir(parents=True, exist_ok=True)
                os.replace(p, out.final(p))
            written = {str(p.relative_to(tmp)) for p in files}
            for entry in sorted(target.rglob("*"), reverse=True):
                rel = str(entry.relative_to(target))
                if entry == tmp or tmp in entry.parents or rel in written or not replaced(rel):
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    with contextlib.suppress(OSError):
                        entry.rmdir()  # empty once its replaced files are gone
                else:
                    entry.unlink()
    elif existed and target.exists():
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
    else:
        try:
            with deferred_signals():
                os.rename(tmp, target)
            return
        except OSError as err:
            if err.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
        # another command created the target meanwhile: replace it as an earlier output
        _commit_dir(out, replaced, True, option)
    shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def output_files(*targets: str | Path, option: str = "--out", what: str = "a file",
                 inputs: Iterable[Path] = ()) -> Iterator[list[Path]]:
    """Single files written atomically: one temporary path per target (beside it), each
    renamed over its target in the given order (a manifest last). A target that is a
    directory, a device or one of `inputs`, or cannot be written, is refused first."""
    # a symbolic link is written through: the file it names gets the new content
    paths = [Path(os.path.realpath(t)) if Path(t).is_symlink() else Path(t) for t in targets]
    for given, p in zip(targets, paths, strict=True):
        if p.is_dir():
            raise InputError(f"{option} {given} is a directory", hint=f"{option} names a file.")
        if p.exists() and not p.is_file():  # renaming over a device or pipe replaces it
            raise InputError(f"{option} {given} is not a regular file (a device, pipe or "
                             "socket)", hint=f"{option} names a regular file; to see the "
                             "output without keeping it, leave out --out.")
    refuse_inputs(targets, inputs, option=option, what=what)
    temps: list[Path] = []
    created: list[Path] = []
    try:
        try:
            for p in paths:
                created += _make_parents(p.parent)
                temps.append(_temp_name(p))
                temps[-1].touch(exist_ok=False)
        except OSError as err:
            raise _refuse(option, p, err, what) from err
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
    slices_<columns>, characters a file name cannot hold replaced by _, and _2, _3, ...
    after a name already taken (also by case: some file systems ignore it)."""
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
