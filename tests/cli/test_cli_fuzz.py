"""A property-based fuzz of the CLI (issue 12): random clusterings written as CSV or
Parquet and then mutated (cut short, bytes garbled, rows duplicated, ids blanked,
columns dropped, weights spoiled, another encoding or delimiter, ...), random and
mutated judgement files (CSV/JSONL, spreadsheet encodings, mangled ids, unknown words,
contradictions, cut short), and random option values.

The property: the exit code is 0 or 2, never 1, and never a traceback or "internal
error"; exit 2 prints one "error:" message. With exit 0 the numbers equal an independent
computation on what the files say: the brute-force impact metrics of tests/reference.py
on the files as read here (Python's csv module, not abcde's reader), and for estimates
the same sample judged through a callable judge with the verdicts the file holds (no
file parsing at all). A file the reference reader finds invalid (a duplicate id, a NULL
id, a bad weight of an item of T, a contradiction, ...) must be refused."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from reference import impact_overall
from strategies import clusterings

from abcde.cli import main
from abcde.quality.estimate import estimate
from abcde.sampling.pairs import sample_pairs

# Few examples per case keep CI within its budget (~1 min on 2 cores); a deeper local run:
# ABCDE_FUZZ_EXAMPLES=200 ABCDE_FUZZ_RANDOM=1 pytest tests/cli/test_cli_fuzz.py
EXAMPLES = int(os.environ.get("ABCDE_FUZZ_EXAMPLES", "5"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    derandomize=not os.environ.get("ABCDE_FUZZ_RANDOM"),
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
WEIGHT_MIN, WEIGHT_MAX = 1e-100, 1e100


class Invalid(Exception):
    """The reference reader found the input invalid: abcde must refuse it."""


def invoke(args: list[str]) -> Any:
    result = CliRunner().invoke(main, [str(a) for a in args])
    out = result.output
    assert result.exit_code in (0, 2), (result.exit_code, out, result.exception)
    assert "Traceback" not in out and "internal error" not in out, out
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    if result.exit_code == 2:
        assert "error" in out.lower(), out
    return result


# --------------------------------------------------------------------------- #
# Inputs of `abcde impact`
# --------------------------------------------------------------------------- #

MUTATIONS = ("none", "crlf", "bom", "quoted", "extra_column", "shuffled", "semicolon",
             "truncate", "garble", "duplicate_row", "blank_id", "blank_cluster",
             "drop_column", "bad_weight", "empty", "header_only", "latin1",
             "damaged_parquet")


def csv_text(header: list[str], rows: list[list[Any]], delimiter: str = ",",
             quoting: int = csv.QUOTE_MINIMAL, terminator: str = "\n") -> str:
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delimiter, quoting=quoting, lineterminator=terminator)
    w.writerow(header)
    w.writerows(["" if v is None else v for v in r] for r in rows)
    return buf.getvalue()


@st.composite
def mutated_input(draw: Any, header: list[str], rows: list[list[Any]], role: str,
                  mutation: str = "none") -> dict:
    """One input file: its format, mutation and bytes."""
    fmt = "parquet" if mutation == "damaged_parquet" else \
        draw(st.sampled_from(["csv", "csv", "csv", "parquet"]))
    rows = [list(r) for r in rows]
    header = list(header)
    delimiter = ","
    if mutation == "shuffled":
        rows = draw(st.permutations(rows))
    elif mutation == "duplicate_row" and rows:
        k = draw(st.integers(0, len(rows) - 1))
        dup = list(rows[k])
        if len(dup) > 1 and draw(st.booleans()):
            dup[1] = f"{dup[1]}x" if role != "weights" else 2.5
        rows.insert(draw(st.integers(0, len(rows))), dup)
    elif mutation in ("blank_id", "blank_cluster") and rows:
        k = draw(st.integers(0, len(rows) - 1))
        col = 0 if mutation == "blank_id" else min(1, len(header) - 1)
        rows[k][col] = None
    elif mutation == "drop_column":
        col = draw(st.integers(0, len(header) - 1))
        header.pop(col)
        for r in rows:
            r.pop(col)
    elif mutation == "bad_weight" and role == "weights" and rows:
        k = draw(st.integers(0, len(rows) - 1))
        rows[k][1] = draw(st.sampled_from(["abc", "-1", "0", "nan", "inf", "1e200", "1e-200",
                                           None, " 2 "]))
    elif mutation == "extra_column":
        header.append("extra")
        for k, r in enumerate(rows):
            r.append(f"x{k % 3}")
    elif mutation == "header_only":
        rows = []
    elif mutation == "semicolon":
        delimiter = ";"
    if fmt == "parquet" and mutation not in ("truncate", "garble", "empty"):
        # damaged_parquet: bytes flipped at drawn places (header, pages, footer)
        damage = draw(st.lists(st.tuples(st.floats(0, 1), st.integers(1, 255)), min_size=1,
                               max_size=4)) if mutation == "damaged_parquet" else []
        return {"fmt": "parquet", "header": header, "rows": rows, "mutation": mutation,
                "damage": damage}
    text = csv_text(header, rows, delimiter,
                    csv.QUOTE_ALL if mutation == "quoted" else csv.QUOTE_MINIMAL,
                    "\r\n" if mutation == "crlf" else "\n")
    data = text.encode("latin-1" if mutation == "latin1" else "utf-8")
    if mutation == "bom":
        data = b"\xef\xbb\xbf" + data
    elif mutation == "empty":
        data = b""
    elif mutation == "truncate" and data:
        data = data[:draw(st.integers(0, len(data) - 1))]
    elif mutation == "garble" and data:
        at = draw(st.integers(0, len(data) - 1))
        junk = draw(st.binary(min_size=1, max_size=4).filter(
            lambda b: not set(b) & set(b'",;\t|\r\n')))
        data = data[:at] + junk + data[at + len(junk):]
    return {"fmt": "csv", "bytes": data, "mutation": mutation, "delimiter": delimiter}


def write_input(path: Path, spec: dict) -> Path:
    if spec["fmt"] == "parquet":
        path = path.with_suffix(".parquet")
        con = duckdb.connect()
        cols = spec["header"]
        if not spec["rows"]:
            con.execute("CREATE TABLE t AS SELECT " + ", ".join(
                f"NULL::VARCHAR AS \"{c}\"" for c in cols) + " WHERE false")
        else:
            con.execute("CREATE TABLE t (" + ", ".join(f'"{c}" VARCHAR' for c in cols) + ")")
            con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(cols))})",
                            [[None if v is None else str(v) for v in r] for r in spec["rows"]])
        if "weight" in cols:
            con.execute('ALTER TABLE t ALTER weight TYPE DOUBLE USING TRY_CAST(weight AS DOUBLE)')
        con.execute(f"COPY t TO '{path}' (FORMAT PARQUET)")
        con.close()
        data = bytearray(path.read_bytes())
        for where, xor in spec["damage"]:
            data[min(int(where * len(data)), len(data) - 1)] ^= xor
        path.write_bytes(bytes(data))
        return path
    path = path.with_suffix(".csv")
    path.write_bytes(spec["bytes"])
    return path


def read_reference(path: Path, spec: dict) -> tuple[list[str], list[list[Any]]]:
    """The file as read here, independently of abcde: (header, rows), None for NULL."""
    if spec["fmt"] == "parquet":
        try:
            cur = duckdb.connect().execute(f"SELECT * FROM read_parquet('{path}')")
        except duckdb.Error as err:
            raise Invalid(str(err)) from None
        return [d[0] for d in cur.description], [list(r) for r in cur.fetchall()]
    data = spec["bytes"]
    if not data.strip():
        raise Invalid("empty")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Invalid("not UTF-8") from None
    lines = list(csv.reader(io.StringIO(text, newline=""), delimiter=spec["delimiter"]))
    header, rows = lines[0], lines[1:]
    if any(len(r) != len(header) for r in rows):
        raise Invalid("ragged")
    return header, [[v if v != "" else None for v in r] for r in rows]


def as_mapping(header: list[str], rows: list[list[Any]], value: str) -> dict:
    if "item_id" not in header or value not in header:
        raise Invalid(f"no column {value}")
    a, b = header.index("item_id"), header.index(value)
    out = {}
    for r in rows:
        if r[a] is None:
            raise Invalid("NULL id")
        key = str(r[a])
        if key in out:
            raise Invalid("duplicate id")
        out[key] = r[b]
    if not out:
        raise Invalid("no rows")
    return out


def reference_impact(files: dict[str, tuple[Path, dict]]) -> dict[str, float]:
    """Brute-force overall metrics of the inputs as read here; Invalid if abcde must
    refuse them."""
    read = {k: read_reference(*v) for k, v in files.items()}
    types = {k: {type(r[h.index("item_id")]) for r in rows if "item_id" in h
                 and r[h.index("item_id")] is not None} for k, (h, rows) in read.items()}
    if len(set().union(*types.values())) > 1:
        raise Invalid("id types differ")
    base = as_mapping(*read["base"], "cluster_id")
    exp = as_mapping(*read["exp"], "cluster_id")
    t = [i for i in base if i in exp]
    if not t:
        raise Invalid("no common item")
    if any(base[i] is None or exp[i] is None for i in t):
        raise Invalid("NULL cluster id in T")
    raw = as_mapping(*read["weights"], "weight")
    weights = {}
    for i in set(base) | set(exp):  # a weight is needed for T; one given must be valid
        v = raw.get(i)
        if v is None and i not in t and i not in raw:
            continue
        try:
            w = float(v)
        except (TypeError, ValueError):
            raise Invalid(f"weight {v!r}") from None
        if not (math.isfinite(w) and WEIGHT_MIN <= w <= WEIGHT_MAX):
            raise Invalid(f"weight {w}")
        weights[i] = w
    for v in raw.values():  # a column with text in it is not a number column
        if v is not None and not isinstance(v, int | float):
            try:
                float(v)
            except ValueError:
                raise Invalid("text in the weight column") from None
            if v != v.strip():  # " 2 ": DuckDB types a CSV column by its values as written
                raise Invalid("spaces around a weight")
    return impact_overall(base, exp, weights)


@pytest.mark.parametrize("mutation", MUTATIONS)
@SETTINGS
@given(case=clusterings(min_items=1, max_items=10, string_ids=True, extra_items=True),
       data=st.data())
def test_impact_fuzz(tmp_path_factory: pytest.TempPathFactory, mutation: str, case: Any,
                     data: Any) -> None:
    """One input (drawn) gets `mutation`, the others are written as they are; every
    input is CSV or Parquet (drawn)."""
    d = tmp_path_factory.mktemp("fuzz")
    items = list(dict.fromkeys([*case.base, *case.exp]))
    target = data.draw(st.sampled_from(["base", "exp", "weights"]))
    if mutation == "bad_weight":
        target = "weights"

    def m(role: str) -> str:
        return mutation if role == target else "none"

    specs = {
        "base": data.draw(mutated_input(["item_id", "cluster_id"],
                                        [[i, f"c{c}"] for i, c in case.base.items()], "base",
                                        m("base"))),
        "exp": data.draw(mutated_input(["item_id", "cluster_id"],
                                       [[i, f"c{c}"] for i, c in case.exp.items()], "exp",
                                       m("exp"))),
        "weights": data.draw(mutated_input(["item_id", "weight"],
                                           [[i, repr(float(case.weight[i]))] for i in items],
                                           "weights", m("weights"))),
    }
    files = {k: (write_input(d / k, v), v) for k, v in specs.items()}
    result = invoke(["impact", "--base", files["base"][0], "--exp", files["exp"][0],
                     "--weights", files["weights"][0], "--format", "json"])
    event(f"exit {result.exit_code}")
    try:
        want = reference_impact(files)
    except Invalid as why:
        assert result.exit_code == 2, (f"accepted an input the reference refuses: {why}",
                                       {k: v["mutation"] for k, v in specs.items()})
        return
    if result.exit_code == 2:
        # refusals the reference reader does not model, only for damaged bytes: a file
        # DuckDB cannot parse or type, said so with the file's name
        assert mutation in ("garble", "truncate", "damaged_parquet"), result.output
        assert any(str(f[0].name) in result.output for f in files.values()), result.output
        return
    got = json.loads(result.output)["overall"]
    for k, v in want.items():
        assert got[k] == pytest.approx(v, rel=1e-9, abs=1e-12), k


# --------------------------------------------------------------------------- #
# Judgement files of `abcde estimate`
# --------------------------------------------------------------------------- #

WORDS = {"equivalent": ["equivalent", "Equivalent", "yes", "1", "same", " EQUIVALENT "],
         "not_equivalent": ["not_equivalent", "Not equivalent", "no", "0", "different",
                            "NOT-EQUIVALENT"],
         "unknown": ["unknown", "", "?", "skip", "cant_tell"]}
SYNONYMS = {w.strip().lower().replace(" ", "_").replace("-", "_"): v
            for v, ws in WORDS.items() for w in ws}


@pytest.fixture(scope="module")
def pair_sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    d = tmp_path_factory.mktemp("judged") / "round"
    base = {f"i{k}": k % 5 for k in range(40)}
    exp = {f"i{k}": (k % 5 if k % 3 else k % 4) for k in range(40)}
    weight = {f"i{k}": 1.0 + (k % 7) for k in range(40)}
    sample_pairs(base, exp, weight, population="jaccard", budget=25, seed=2, out=d)
    with (d / "questions.csv").open() as f:
        questions = list(csv.DictReader(f))
    return d, questions


JUDGEMENT_MUTATIONS = ("none", "drop_rows", "synonyms", "shuffle_columns",
                       "extra_column", "spaced_header", "item_keys", "duplicate_same",
                       "contradiction", "unknown_word", "sci_id", "other_sample",
                       "foreign_pair", "drop_verdict_column", "truncate", "garble",
                       "empty", "pair_id_only")


@st.composite
def judgement_file(draw: Any, questions: list[dict], mutation: str) -> dict:
    verdicts = {q["pair_id"]: draw(st.sampled_from(list(WORDS))) for q in questions}
    fmt = draw(st.sampled_from(["csv", "csv", "jsonl"]))
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "cp1252"])) \
        if fmt == "csv" else draw(st.sampled_from(["utf-8", "utf-8-sig"]))
    delimiter = draw(st.sampled_from([",", ";", "\t"]))
    cols = ["pair_id", "item_1", "item_2", "sample_id", "verdict"]
    rows = []
    for q in questions:
        word = verdicts[q["pair_id"]]
        spelled = draw(st.sampled_from(WORDS[word])) if mutation == "synonyms" else word
        rows.append({**{c: q[c] for c in cols}, "verdict": spelled})
    if mutation == "drop_rows":
        rows = [r for r in rows if draw(st.booleans())]
    elif mutation == "shuffle_columns":
        cols = draw(st.permutations(cols))
    elif mutation == "extra_column":
        cols = [*cols, "note"]
        for r in rows:
            r["note"] = "café; ok"
    elif mutation == "item_keys":
        cols = ["item_2", "item_1", "verdict"]
    elif mutation == "pair_id_only":
        cols = ["pair_id", "verdict"]
    elif mutation == "duplicate_same" and rows:
        rows.append(dict(rows[draw(st.integers(0, len(rows) - 1))]))
    elif mutation == "contradiction" and rows:
        k = draw(st.integers(0, len(rows) - 1))
        flip = "not_equivalent" if verdicts[rows[k]["pair_id"]] == "equivalent" \
            else "equivalent"
        rows.append({**rows[k], "verdict": flip})
    elif mutation == "unknown_word" and rows:
        rows[draw(st.integers(0, len(rows) - 1))]["verdict"] = "maybe"
    elif mutation == "sci_id" and rows:
        rows[draw(st.integers(0, len(rows) - 1))]["item_1"] = "9.00719925474102E+15"
    elif mutation == "other_sample" and rows:
        rows[draw(st.integers(0, len(rows) - 1))]["sample_id"] = "0123456789ab"
    elif mutation == "foreign_pair":
        rows.append({"pair_id": "999", "item_1": "i1", "item_2": "zz", "sample_id":
                     questions[0]["sample_id"], "verdict": "equivalent"})
    elif mutation == "drop_verdict_column":
        cols = [c for c in cols if c != "verdict"]
    if fmt == "jsonl":
        text = "".join(json.dumps({c: r[c] for c in cols}) + "\n" for r in rows)
    else:
        header = [f" {c} " for c in cols] if mutation == "spaced_header" else cols
        buf = io.StringIO()
        # Windows, Unix and old Mac (Excel's "CSV (Macintosh)") line endings
        ending = draw(st.sampled_from(["\r\n", "\n", "\r"]))
        w = csv.writer(buf, delimiter=delimiter, lineterminator=ending)
        w.writerow(header)
        w.writerows([r[c] for c in cols] for r in rows)
        text = buf.getvalue()
    data = text.encode(encoding)
    if mutation == "empty":
        data = b""
    elif mutation == "truncate" and data:
        data = data[:draw(st.integers(0, len(data) - 1))]
    elif mutation == "garble" and data:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + draw(st.binary(min_size=1, max_size=3)) + data[at + 3:]
    return {"bytes": data, "fmt": fmt, "encoding": encoding, "delimiter": delimiter,
            "mutation": mutation}


def reference_verdicts(spec: dict, questions: list[dict]) -> dict[frozenset, str]:
    """What the file says, read here without abcde: {item pair: verdict}; Invalid when
    abcde must refuse it."""
    if b"\x00" in spec["bytes"] and not spec["encoding"].startswith("utf-16"):
        raise Invalid("a zero byte: not a text file")
    try:
        text = spec["bytes"].decode(spec["encoding"])
    except UnicodeDecodeError:
        raise Invalid("encoding") from None
    text = text.lstrip("\ufeff")
    if spec["fmt"] == "jsonl":
        try:
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError:
            raise Invalid("JSON") from None
        if not all(isinstance(r, dict) for r in records):
            raise Invalid("not objects")
        records = [{k.strip(): v for k, v in r.items()} for r in records]
    else:
        lines = list(csv.reader(io.StringIO(text, newline=""), delimiter=spec["delimiter"]))
        if not lines:
            raise Invalid("empty")
        header = [h.strip() for h in lines[0]]
        if any(len(r) != len(header) for r in lines[1:]):
            raise Invalid("ragged")
        records = [dict(zip(header, r, strict=True)) for r in lines[1:]]
    if not records and spec["fmt"] == "jsonl":
        raise Invalid("no columns")
    by_id = {q["pair_id"]: frozenset((q["item_1"], q["item_2"])) for q in questions}
    sid = questions[0]["sample_id"]
    keys = set(records[0]) if records else set()
    if spec["fmt"] == "csv":
        keys = {h.strip() for h in lines[0]}
    if "verdict" not in keys or not ({"pair_id"} <= keys or {"item_1", "item_2"} <= keys):
        raise Invalid("columns")
    out: dict[frozenset, str] = {}
    for r in records:
        word = SYNONYMS.get(str(r.get("verdict") or "").strip().lower().replace(" ", "_")
                            .replace("-", "_"))
        if word is None:
            raise Invalid(f"word {r.get('verdict')!r}")
        if r.get("sample_id") not in (None, "", sid):
            raise Invalid("another sample")
        items = (frozenset((str(r["item_1"]).strip(), str(r["item_2"]).strip()))
                 if r.get("item_1") not in (None, "") else None)
        pid = str(r["pair_id"]).strip() if r.get("pair_id") not in (None, "") else None
        if pid is not None and items is None and not r.get("sample_id"):
            raise Invalid("pair_id without sample_id")
        if items is None and pid is None:
            raise Invalid("no pair")
        if pid is not None and (pid not in by_id or (items is not None and by_id[pid] != items)):
            raise Invalid("pair id")
        pair = items if items is not None else by_id[pid]
        if pair not in set(by_id.values()):
            raise Invalid("pair not in sample")
        old = out.get(pair)
        if old not in (None, "unknown") and word not in ("unknown", old):
            raise Invalid("contradiction")
        if old in (None, "unknown"):
            out[pair] = word
    if all(v == "unknown" for v in out.values()):
        raise Invalid("no known verdict: nothing to estimate from")
    return out


@pytest.mark.parametrize("mutation", JUDGEMENT_MUTATIONS)
@SETTINGS
@given(data=st.data())
def test_estimate_fuzz(pair_sample: tuple[Path, list[dict]], tmp_path_factory: Any,
                       mutation: str, data: Any) -> None:
    """A judgement file with random verdicts, format (CSV/JSONL), encoding and delimiter,
    then `mutation`."""
    sample_dir, questions = pair_sample
    spec = data.draw(judgement_file(questions, mutation))
    path = tmp_path_factory.mktemp("j") / f"judged.{spec['fmt']}"
    path.write_bytes(spec["bytes"])
    result = invoke(["estimate", sample_dir, "--judgements", path, "--format", "json"])
    event(f"exit {result.exit_code}")
    try:
        verdicts = reference_verdicts(spec, questions)
    except Invalid as why:
        assert result.exit_code == 2, (f"accepted a file the reference refuses: {why}",
                                       spec["mutation"], spec["bytes"][:300])
        return
    assert result.exit_code == 0, (spec["mutation"], spec["encoding"], result.output)
    want = estimate(sample_dir, judge=lambda i, j: verdicts.get(
        frozenset((str(i), str(j))), "unknown"))
    got = json.loads(result.output)
    for key in ("delta_precision", "good_split_distance", "bad_merge_distance",
                "affected_good_index"):
        assert got[key] == json.loads(json.dumps(want[key])), key


@pytest.fixture(scope="module")
def other_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Another sample of other inputs, whose files may be copied into the judged one."""
    d = tmp_path_factory.mktemp("other") / "round"
    base = {f"i{k}": k % 4 for k in range(30)}
    exp = {f"i{k}": k % 3 for k in range(30)}
    sample_pairs(base, exp, {i: 1.0 for i in base}, population="jaccard", budget=20, seed=5,
                 out=d)
    return d


SAMPLE_FILES = ("draws.parquet", "draws.csv", "manifest.json")


@pytest.mark.parametrize("name", SAMPLE_FILES)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get(
    "ABCDE_FUZZ_RANDOM"), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=st.sampled_from(["truncate", "garble", "delete", "swap", "append", "same"]),
       at=st.floats(0, 1), junk=st.binary(min_size=1, max_size=8))
def test_sample_files_fuzz(pair_sample: tuple[Path, list[dict]], other_sample: Path,
                           tmp_path_factory: Any, name: str, how: str, at: float,
                           junk: bytes) -> None:
    """A file of the judged sample cut short, garbled, deleted, copied from another
    sample or grown: `abcde estimate` refuses it naming the file (exit 2), or — draws.csv,
    the copy for people, which it does not read — gives the same numbers as the intact
    sample."""
    intact, questions = pair_sample
    judged = tmp_path_factory.mktemp("j") / "judged.csv"
    judged.write_text("pair_id,sample_id,verdict\n" + "".join(
        f"{q['pair_id']},{q['sample_id']},{('equivalent', 'not_equivalent')[k % 2]}\n"
        for k, q in enumerate(questions)))
    sample = tmp_path_factory.mktemp("s") / "round"
    shutil.copytree(intact, sample)
    path = sample / name
    data = path.read_bytes()
    k = min(int(at * len(data)), len(data) - 1)
    if how == "truncate":
        path.write_bytes(data[:k])
    elif how == "garble":
        path.write_bytes(data[:k] + junk + data[k + len(junk):])
    elif how == "delete":
        path.unlink()
    elif how == "swap":
        shutil.copyfile(other_sample / name, path)
    elif how == "append":
        path.write_bytes(data + junk)
    result = invoke(["estimate", sample, "--judgements", judged, "--format", "json"])
    changed = path.exists() and path.read_bytes() != data
    event(f"{how}: exit {result.exit_code}")
    if (changed or how == "delete") and name != "draws.csv":
        # another sample's manifest is whole: the draws it does not list are refused
        named = name if how != "swap" else "is not as `abcde sample-pairs` wrote it"
        assert result.exit_code == 2 and named in result.output, result.output
    want = invoke(["estimate", intact, "--judgements", judged, "--format", "json"])
    assert want.exit_code == 0, want.output
    if result.exit_code == 0:
        assert json.loads(result.output)["delta_precision"] == json.loads(
            want.output)["delta_precision"], (how, name)
    else:
        assert name in result.output or "manifest" in result.output, result.output


# --------------------------------------------------------------------------- #
# Option values
# --------------------------------------------------------------------------- #

NAMES = st.text(alphabet=st.sampled_from(list('ab.."` \'_-{}%$;\u00e9\u2028\n0')),
                min_size=0, max_size=8)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(dialect=st.sampled_from(["duckdb", "bigquery", "snowflake", "spark", "postgres"]),
       base=NAMES, column=NAMES, slice_by=NAMES, prefix=NAMES,
       dbt=st.booleans())
def test_warehouse_names_fuzz(tmp_path_factory: Any, dialect: str, base: str, column: str,
                              slice_by: str, prefix: str, dbt: bool) -> None:
    """Any table, column, slice or prefix name: a script or project, or exit 2."""
    args = ["--dialect", dialect, "--base", base, "--exp", "s.e", "--item-col", column or "id",
            "--attributes", "s.a", "--slice-by", slice_by, "--prefix", prefix]
    if dialect == "bigquery" and not dbt:
        args += ["--schema", "p.d"]
    if dbt:
        invoke(["dbt", *args, "--out", tmp_path_factory.mktemp("dbt") / "p"])
    else:
        invoke(["sql", "impact", *args])


@settings(max_examples=25, deadline=None, derandomize=True)
@given(budgets=st.text(alphabet="0123,- .e", max_size=5),
       unknown=st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                         st.sampled_from([0.0, 0.5, 0.999, 1.0])),
       seed=st.integers(-3, 3), allocation=st.sampled_from(["", "equal", "0.5", "1", "x",
                                                            "-0.2", "proportional"]))
def test_simulate_options_fuzz(pair_world: dict[str, str], budgets: str, unknown: float,
                               seed: int, allocation: str) -> None:
    args = ["simulate", pair_world["base"], pair_world["exp"], "--truth", pair_world["base"],
            "--budgets", budgets, "--replications", "1", "--unknown-share", repr(unknown),
            "--seed", str(seed)]
    invoke(args + (["--strata-allocation", allocation] if allocation else []))


@pytest.fixture(scope="module")
def pair_world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("sim")
    (d / "b.csv").write_text("item_id,cluster_id\n" + "".join(
        f"i{k},{k % 4}\n" for k in range(30)))
    (d / "e.csv").write_text("item_id,cluster_id\n" + "".join(
        f"i{k},{k % 3}\n" for k in range(30)))
    return {"base": str(d / "b.csv"), "exp": str(d / "e.csv")}
