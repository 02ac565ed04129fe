"""From what `abcde report` is given (documents, files, a judged sample) to the page."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from abcde.errors import InputError
from abcde.inputs.records import load_json
from abcde.report.figures import (
    estimate_section,
    evaluate_section,
    impact_section,
    mixed_inputs,
    simulate_section,
)
from abcde.report.page import render
from abcde.report.plots import Section

Doc = Mapping[str, Any] | str | Path


def read_doc(value: Doc, option: str) -> tuple[Mapping[str, Any], str]:
    """A JSON document given as a mapping or a file; (document, where it came from)."""
    if isinstance(value, Mapping):
        return value, option
    path = Path(value)
    command = option.removeprefix("--")
    if path.is_dir():  # an --out directory holds tables, never the document
        sample = command == "estimate" and (path / "manifest.json").is_file()
        raise InputError(
            f"{option} {path} is " + ("a pair sample directory, not the JSON of `abcde "
                                      "estimate`" if sample else "a directory, not the JSON "
                                      f"file of `abcde {command}`"),
            hint=f"Give it as --sample {path}." if sample else f"Save the document with "
            f"`abcde {command} … --format json > {command}.json` and give {option} "
            f"{command}.json.")
    try:
        doc = load_json(path.read_bytes())
    except OSError as err:  # no such file, no permission
        raise InputError(f"{option} {path}: cannot read it ({err.strerror})") from None
    except ValueError as err:  # not text, not JSON, too large or nested too deep
        raise InputError(f"{option} {path} is not JSON ({str(err)[:200]})",
                         hint="Give the output of the command with --format json.") from None
    return doc, str(path)


#: the keys of each command's document, to name the command of a misplaced one
DOCUMENT_KEYS = {"impact": ("overall", "top_clusters", "slices"),
                 "estimate": ("delta_precision", "sample", "verdict"),
                 "evaluate": ("runs",), "simulate": ("metrics", "budgets", "replications")}


def _section(build: Callable[..., Section], value: Doc, option: str) -> Section:
    """`build`'s section of the document given to `option`; one its plots cannot read is
    refused whole."""
    doc, source = read_doc(value, option)
    command = option.removeprefix("--")
    try:
        return build(doc, source)
    except (LookupError, TypeError, ValueError, AttributeError, ArithmeticError):
        other = next((c for c, keys in DOCUMENT_KEYS.items() if c != command
                      and isinstance(doc, dict) and all(k in doc for k in keys)), None)
        raise InputError(f"{source} is not the JSON output of `abcde {command}` as abcde "
                         "writes it (cut short or edited?)", hint=(
                             f"It is the JSON output of `abcde {other}`: give it to "
                             f"--{other}." if other else f"Run `abcde {command} … --format "
                             "json` again and give its output.")) from None


def report_html(*, impact: Doc | None = None, estimate: Doc | None = None,
                sample: str | Path | None = None, judgements: str | Path | None = None,
                truth: str | Path | None = None, evaluate: Doc | None = None,
                simulate: Doc | None = None, title: str = "abcde report") -> str:
    """The report of whatever is given, as one self-contained HTML document
    (docs/method.md §13.1): the documents of ``abcde impact``, ``estimate``, ``evaluate``
    and ``simulate`` (mappings or JSON files), or a judged ``sample`` directory estimated
    here (with ``judgements`` or ``truth`` as ``abcde estimate`` takes them)."""
    if sample is not None and estimate is not None:
        raise InputError("give the judged sample either as --sample DIR or as --estimate "
                         "FILE, not both")
    if sample is None and (judgements is not None or truth is not None):
        raise InputError("--judgements and --truth go with --sample DIR")
    sections = []
    if impact is not None:
        sections.append(_section(impact_section, impact, "--impact"))
    if sample is not None:
        from abcde.quality.estimate import estimate as run_estimate
        from abcde.quality.estimate import load_sample

        doc = run_estimate(sample, judgements=judgements, truth=truth)
        inputs = load_sample(sample).manifest.get("inputs")
        sections.append(estimate_section(doc, str(sample), inputs))
    elif estimate is not None:
        sections.append(_section(estimate_section, estimate, "--estimate"))
    if evaluate is not None:
        sections.append(_section(evaluate_section, evaluate, "--evaluate"))
    if simulate is not None:
        sections.append(_section(simulate_section, simulate, "--simulate"))
    if not sections:
        raise InputError("nothing to report", hint="Give one or more of --impact, --sample, "
                         "--estimate, --evaluate and --simulate.")
    return render(sections, title, mixed_inputs(sections))
