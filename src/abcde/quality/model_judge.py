"""A model judge run as a command: the sample's pairs as JSON lines on its stdin, its
verdicts as JSON lines on its stdout, batch by batch, appended to the sample's
``model_verdicts.jsonl`` (never to the humans' verdicts.jsonl), so an interrupted run
resumes where it stopped (docs/method.md §8.15; ABCDE App. B)."""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from abcde.errors import InputError
from abcde.quality.estimate import load_sample
from abcde.quality.ppi import MODEL_LOG, model_value, read_model_verdicts
from abcde.sample_files.pairs import MODEL_QUESTIONS, read_questions


def run_model_judge(sample: Any, command: str, *, batch: int = 100,
                    progress: Callable[[int, int], None] | None = None) -> Path:
    """Ask ``command`` (split like a shell line, run without a shell) for the verdicts of
    the sample directory's pairs not yet in its MODEL_LOG: each line in is
    {"pair_id", "item_1", "item_2"} (a model round's: its model_questions.jsonl rows, with
    the items' attributes), each line out {"pair_id", "verdict" or
    "probability"}. ``progress(done, total)`` after each batch. Returns the log's path."""
    s = load_sample(sample)
    if s.directory is None:
        raise InputError("the model judge needs a sample directory", option="sample")
    log = s.directory / MODEL_LOG
    done = read_model_verdicts(log, {}) if log.exists() else {}
    if s.manifest.get("humans"):  # a model round: every pair with its items' attributes
        asked = read_questions(s.directory, s.manifest, MODEL_QUESTIONS)
    else:
        asked = [{"pair_id": p, "item_1": str(i), "item_2": str(j)}
                 for p, (i, j) in s.pairs.by_id.items() if p not in s.pairs.self_ids]
    todo = [q for q in asked if str(q["pair_id"]) not in done]
    total = len(todo) + len(done)
    for start in range(0, len(todo), batch):
        chunk = todo[start:start + batch]
        lines = "".join(json.dumps(q, default=str) + "\n" for q in chunk)
        answers = _ask(command, lines)
        wanted = {str(q["pair_id"]) for q in chunk}
        missing = sorted(wanted - set(answers))
        if missing:
            raise InputError(f"the model command ({{option}}) answered no verdict for pairs "
                             f"{', '.join(missing[:5])}", option="command")
        with log.open("a", encoding="utf-8") as out:  # one batch at a time: resumable
            out.writelines(json.dumps({"pair_id": p, "probability": answers[p]}) + "\n"
                           for p in sorted(wanted))
        if progress is not None:
            progress(len(done) + start + len(chunk), total)
    return log


def _ask(command: str, lines: str) -> dict[str, float]:
    """One batch through the command: pair id → P(equivalent)."""
    try:
        run = subprocess.run(shlex.split(command), input=lines, capture_output=True,
                             text=True, check=False)
    except OSError as err:
        raise InputError(f"the model command ({{option}}) cannot start: {err}",
                         option="command") from None
    if run.returncode != 0:
        raise InputError(f"the model command ({{option}}) exited with {run.returncode}: "
                         f"{run.stderr.strip()[-300:]}", option="command")
    answers: dict[str, float] = {}
    for n, line in enumerate(run.stdout.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            pid = str(row["pair_id"])
            raw = row["probability"] if "probability" in row else row["verdict"]
        except (ValueError, KeyError, TypeError):
            raise InputError(f"the model command ({{option}}): output line {n} is not a JSON "
                             f"object with pair_id and verdict or probability: {line[:120]!r}",
                             option="command") from None
        answers[pid] = model_value(raw, f"the model command's output line {n}")
    return answers
