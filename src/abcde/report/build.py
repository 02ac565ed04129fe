"""From what `abcde report` is given (documents, files, a judged sample) to the page."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from abcde.errors import InputError
from abcde.inputs.records import load_json
from abcde.report.figures import (
    Section,
    estimate_section,
    evaluate_section,
    impact_section,
    simulate_section,
)
from abcde.report.page import render

Doc = Mapping[str, Any] | str | Path


def read_doc(value: Doc, option: str) -> tuple[Mapping[str, Any], str]:
    """A JSON document given as a mapping or a file; (document, where it came from)."""
    if isinstance(value, Mapping):
        return value, option
    path = Path(value)
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{option} {path}: no such file") from None
    except IsADirectoryError:
        raise _directory(path, option) from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"{option} {path}: cannot read it ({err})") from None
    try:
        doc = load_json(text)
    except json.JSONDecodeError as err:
        raise InputError(f"{option} {path} is not JSON (line {err.lineno}: {err.msg})",
                         hint="Give the output of the command with --format json.") from None
    if not isinstance(doc, dict):
        raise InputError(f"{option} {path} holds a JSON {type(doc).__name__}, not the "
                         "document of an abcde command")
    return doc, str(path)


def _section(build: Callable[[Mapping[str, Any], str], Section], doc: Mapping[str, Any],
             source: str, command: str) -> Section:
    """`build`'s section of a command's document; a document the plots cannot read
    (cut short or edited: a key missing, null, of another type) is refused whole."""
    try:
        return build(doc, source)
    except InputError:
        raise
    except (LookupError, TypeError, ValueError, AttributeError, ArithmeticError):
        raise InputError(f"{source} is not the JSON output of `abcde {command}` as abcde "
                         "writes it (cut short or edited?)",
                         hint=f"Run `abcde {command} … --format json` again and give its "
                              "output.") from None


def _directory(path: Path, option: str) -> InputError:
    """The error for a directory given as a document: the `--out` directory of a command
    (or a pair sample) holds tables, never the JSON document the report reads; say which
    file to give."""
    command = option.removeprefix("--")
    if command == "estimate" and (path / "manifest.json").is_file():
        return InputError(f"{option} {path} is a pair sample directory, not the JSON of "
                          "`abcde estimate`", hint=f"Give it as --sample {path}.")
    tables = (f" (an `abcde {command} --out` directory holds tables, not that document)"
              if command in ("impact", "evaluate") else "")
    return InputError(f"{option} {path} is a directory, not the JSON file of `abcde "
                      f"{command}`{tables}",
                      hint=f"Save the document with `abcde {command} … --format json > "
                           f"{command}.json` and give {option} {command}.json.")


def report_html(*, impact: Doc | None = None, estimate: Doc | None = None,
                sample: str | Path | None = None, judgements: str | Path | None = None,
                truth: str | Path | None = None, evaluate: Doc | None = None,
                simulate: Doc | None = None, title: str = "abcde report") -> str:
    """The report of whatever is given, as one self-contained HTML document.

    Parameters
    ----------
    impact, estimate, evaluate, simulate : mapping, str or Path, optional
        The JSON documents of ``abcde impact``, ``abcde estimate``, ``abcde evaluate`` and
        ``abcde simulate`` (``--format json``), as mappings or files.
    sample : str or Path, optional
        A judged pair sample directory: estimated here with
        :func:`abcde.quality.estimate.estimate` (its verdicts.jsonl, or ``judgements``
        or ``truth``). Not together with ``estimate``.
    judgements, truth : str or Path, optional
        Passed to the estimate of ``sample``.
    title : str
        The page title.

    Returns
    -------
    str

    Raises
    ------
    InputError
        With nothing to report, or a document that is not what its option says.

    References
    ----------
    docs/method.md §13.
    """
    if sample is not None and estimate is not None:
        raise InputError("give the judged sample either as --sample DIR or as --estimate "
                         "FILE, not both")
    if sample is None and (judgements is not None or truth is not None):
        raise InputError("--judgements and --truth go with --sample DIR")
    sections: list[Section] = []
    if impact is not None:
        sections.append(_section(impact_section, *read_doc(impact, "--impact"), "impact"))
    if sample is not None:
        from abcde.quality.estimate import estimate as run_estimate

        doc = run_estimate(sample, judgements=judgements, truth=truth)
        sections.append(estimate_section(doc, str(sample)))
    elif estimate is not None:
        sections.append(_section(estimate_section, *read_doc(estimate, "--estimate"),
                                 "estimate"))
    if evaluate is not None:
        sections.append(_section(evaluate_section, *read_doc(evaluate, "--evaluate"),
                                 "evaluate"))
    if simulate is not None:
        sections.append(_section(simulate_section, *read_doc(simulate, "--simulate"),
                                 "simulate"))
    if not sections:
        raise InputError("nothing to report", hint="Give one or more of --impact, --sample, "
                         "--estimate, --evaluate and --simulate.")
    return render(sections, title)
