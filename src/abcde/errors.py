"""Errors a user can act on: the CLI prints them without a traceback and exits 2."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class AbcdeError(Exception):
    """Base class of every error abcde raises on purpose."""

    exit_code = 1


class Shown(str):
    """An example already worded for display (printed without quotes)."""

    def __repr__(self) -> str:
        return str(self)


class InputError(AbcdeError):
    """Bad input: names the table, the column, the option, example ids and what to do.

    `option` is the parameter at fault by its Python name (`seed`); a message may say
    `{option}` where it names it, and the command line shows it as the user spelled it
    there (`--seed`, `abcde.cli._common.handle_errors` calls `spell`)."""

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        table: str | None = None,
        column: str | None = None,
        examples: Sequence[object] = (),
        hint: str | None = None,
        option: str | None = None,
    ) -> None:
        self.table, self.column, self.option = table, column, option
        self.examples = list(examples)
        self.hint = hint
        self.spelled = option
        parts = []
        where = ", ".join(
            p for p in (table and f"table {table}", column and f"column {column!r}") if p
        )
        parts.append(f"{where}: {message}" if where else message)
        if self.examples:
            shown = ", ".join(repr(e) for e in self.examples[:10])
            parts.append(f"examples: {shown}")
        if hint:
            parts.append(hint)
        self._text = "\n  ".join(parts)
        super().__init__(self._text)

    def spell(self, spelling: Mapping[str, str]) -> None:
        """Name the option as `spelling` maps its Python name (the CLI's flags)."""
        self.spelled = spelling.get(self.option or "", self.option)

    def __str__(self) -> str:
        return self._text.replace("{option}", str(self.spelled))


class ResourceError(AbcdeError):
    """The engine ran out of memory or disk: the message says which option gives it more
    (exit 2, like bad input: the user, not abcde, has to change something)."""

    exit_code = 2

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.hint = hint
        super().__init__(f"{message}\n  {hint}" if hint else message)


class TemplateError(AbcdeError):
    """A SQL template failed to render or to parse: a bug in abcde, never in the input."""


class EngineError(AbcdeError):
    """The engine refused a statement or is not available (e.g. an optional extra is missing)."""


class EngineUnavailable(EngineError):
    """The engine cannot be reached or started (an extra or Java missing, a server that
    does not answer): the user's to fix, so exit code 2, with what to install or check."""

    exit_code = 2


class WorkspaceBusy(InputError):
    """A workspace another process holds for longer than abcde waits (a DuckDB file)."""
