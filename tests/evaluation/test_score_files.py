"""abcde.evaluation.scores: the per-case score files (CSV, JSONL) and the long table's
pivot (docs/method.md §9.1), with every refusal naming the file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from uir_table3 import M, long_rows, table3

from abcde.cli import main
from abcde.errors import InputError
from abcde.evaluation.scores import pivot_scores, read_scores
from abcde.evaluation.uir import uir_matrix

# -------------------------------------------------------------- read_scores


def test_read_scores_csv_and_jsonl(tmp_path: Path) -> None:
    a, b = table3()
    rows = long_rows(A=a, B=b)
    csv_path = tmp_path / "scores.csv"
    csv_path.write_text(
        "system,case,metric,value,note\n" + "".join(f"{s},{t},{m},{v},x\n" for s, t, m, v in rows)
    )
    jsonl_path = tmp_path / "scores.jsonl"
    jsonl_path.write_text(
        "".join(
            json.dumps({"system": s, "case": t, "metric": m, "value": v}) + "\n"
            for s, t, m, v in rows
        )
        + "\n"
    )
    for path in (csv_path, jsonl_path):
        read = read_scores(path)
        assert len(read) == len(rows)
        assert read[0] == ("A", "1", "precision", 0.5)
        assert uir_matrix(read, M)["A"]["B"] == pytest.approx(0.2)
        assert pivot_scores(read, M)["B"]["7"] == {"precision": 0.6, "recall": 0.5}


def test_read_scores_gzip_compressed(tmp_path: Path) -> None:
    """A .csv.gz / .jsonl.gz score file (clusterings may be .csv.gz too) reads as its
    text does: it used to be refused as "not a text file (it holds zero bytes)"; a cut
    gzip stream and a zstd file are refused by name."""
    import gzip

    a, b = table3()
    rows = long_rows(A=a, B=b)
    csv_text = "system;case;metric;value\n" + "".join(f"{s};{t};{m};{v}\n"
                                                      for s, t, m, v in rows)
    jsonl_text = "".join(json.dumps({"system": s, "case": t, "metric": m, "value": v}) + "\n"
                         for s, t, m, v in rows)
    for name, text in (("s.csv.gz", csv_text), ("s.jsonl.gz", jsonl_text)):
        path = tmp_path / name
        path.write_bytes(gzip.compress(text.encode()))
        read = read_scores(path)
        assert [tuple(r) for r in read] == [(s, str(t), m, float(v)) for s, t, m, v in rows]
    cut = tmp_path / "cut.csv.gz"
    cut.write_bytes(gzip.compress(csv_text.encode())[:20])
    with pytest.raises(InputError, match="gzip-compressed but cannot be decompressed"):
        read_scores(cut)
    zst = tmp_path / "s.csv.zst"
    zst.write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 8)
    with pytest.raises(InputError, match="zstd-compressed"):
        read_scores(zst)


def test_read_scores_header_in_another_case_is_pointed_out(tmp_path: Path) -> None:
    """System,Case,Metric,Value (a spreadsheet's header): the message listed the header;
    it now says the names differ in case."""
    p = tmp_path / "s.csv"
    p.write_text("System,Case,metric,Value\nA,1,precision,0.5\n")
    with pytest.raises(InputError, match=r"missing column\(s\) 'system', 'case', 'value'"
                       r".*'System', 'Case', 'Value' differ\(s\) in case"):
        read_scores(p)


def test_read_scores_bom_extra_fields_and_unreadable_files(tmp_path: Path) -> None:
    p = tmp_path / "bom.csv"
    p.write_bytes("system,case,metric,value\nA,t1,precision,0.5\n".encode("utf-8-sig"))
    assert read_scores(p) == [("A", "t1", "precision", 0.5)]  # Excel's "CSV UTF-8"
    p.write_text("system,case,metric,value\nA,t1,precision,0.5,0.7\n")
    with pytest.raises(InputError, match=r"line 2: more fields than the 4 of the header"):
        read_scores(p)
    p.write_text("system,case,metric,value\nA,t1,precision\n")
    with pytest.raises(InputError, match=r"line 2: 3 field\(s\) where the header has 4"):
        read_scores(p)
    with pytest.raises(InputError, match="no such file"):
        read_scores(tmp_path / "missing.csv")
    with pytest.raises(InputError, match="is a directory"):
        read_scores(tmp_path)
    # a spreadsheet's Windows-1252 and UTF-16 are read (one reader with judgement files)
    # (European Excel's ';' and decimal comma: read, see test_read_scores_decimal_comma)
    p.write_bytes("system;case;metric;value\nA;caf\xe9;precision;0,5\n".encode("cp1252"))
    assert read_scores(p) == [("A", "caf\xe9", "precision", 0.5)]
    p.write_bytes("system;case;metric;value\nA;caf\xe9;precision;high\n".encode("cp1252"))
    with pytest.raises(InputError, match=r"bom.csv \(read as cp1252\), line 2.*not a number"):
        read_scores(p)
    p.write_bytes("system,case,metric,value\nA,caf\xe9,precision,0.5\n".encode("cp1252"))
    assert read_scores(p) == [("A", "caf\xe9", "precision", 0.5)]
    p.write_bytes("system\tcase\tmetric\tvalue\nA\tcaf\xe9\tp\t0.5\n".encode("utf-16"))
    assert read_scores(p) == [("A", "caf\xe9", "p", 0.5)]
    p.write_bytes(b"\x00\x01\x02garbage\x00\x00\x00\x00\xff")
    with pytest.raises(InputError, match="not a text file"):
        read_scores(p)
    j = tmp_path / "bom.jsonl"
    j.write_bytes('{"system": "A", "case": 1, "metric": "p", "value": 0.5}\n'
                  .encode("utf-8-sig"))
    assert read_scores(j) == [("A", "1", "p", 0.5)]


def test_read_scores_decimal_comma(tmp_path: Path) -> None:
    """A European Excel export (';'-separated, 0,75) used to be refused ('not a number'):
    it is read when unambiguous — a delimiter other than ',' and no value with a decimal
    point — and otherwise refused, saying how to export."""
    p = tmp_path / "eu.csv"
    p.write_text("system;case;metric;value\nA;1;p;0,75\nA;2;p;1\nB;1;p;-,5\n"
                 "B;2;p;1,5E-3\n")
    assert read_scores(p) == [("A", "1", "p", 0.75), ("A", "2", "p", 1.0),
                              ("B", "1", "p", -0.5), ("B", "2", "p", 0.0015)]
    p.write_text("system\tcase\tmetric\tvalue\nA\t1\tp\t0,25\n")
    assert read_scores(p) == [("A", "1", "p", 0.25)]
    # a decimal point elsewhere: which is meant?  (rows of other metrics are not read)
    p.write_text("system;case;metric;value\nA;1;p;0,75\nA;1;q;0.5\nB;1;p;0.5\n")
    with pytest.raises(InputError, match=r"(?s)line 2: column 'value' is '0,75', with a "
                       r"decimal comma, and line 3 is '0.5', with a decimal point.*Export"):
        read_scores(p)
    with pytest.raises(InputError, match=r"line 2: .* and line 4 is '0.5'"):
        read_scores(p, ["p"])
    assert read_scores(p, ["q"]) == [("A", "1", "q", 0.5)]
    # ',' -separated: "0,5" could hold a thousands separator
    p.write_text('system,case,metric,value\nA,1,p,"0,5"\n')
    with pytest.raises(InputError, match=r"(?s)line 2: .*'0,5'.*','-separated.*decimal point "
                       "throughout"):
        read_scores(p)
    # the command computes UIR from such a file as from the same file with points
    p.write_text("system;case;metric;value\nA;1;p;0,9\nA;2;p;0,8\nB;1;p;0,7\nB;2;p;0,8\n")
    result = CliRunner().invoke(main, ["uir", str(p), "--metrics", "p", "--format", "json"])
    assert result.exit_code == 0, result.output
    # A > B on case 1, tied on case 2: UIR(A, B) = (2 - 1) / 2
    assert json.loads(result.stdout)["matrix"]["A"]["B"] == 0.5


def test_a_json_array_of_scores_is_told_to_be_jsonl(tmp_path: Path) -> None:
    """json.dump(records) or df.to_json(orient='records') into x.json: 'line 1: invalid
    JSON (Expecting value)' (indented) or 'line 1: expected a JSON object'."""
    rows = [{"system": "A", "case": 1, "metric": "p", "value": 0.5}]
    for indent in (None, 2):
        p = tmp_path / "s.json"
        p.write_text(json.dumps(rows, indent=indent))
        with pytest.raises(InputError, match=r"s.json holds one JSON array, not one JSON "
                           r"object a line \(JSONL\)"):
            read_scores(p)
    p.write_text("[1, 2\n")  # not an array after all: the line's own error
    with pytest.raises(InputError, match="line 1: invalid JSON"):
        read_scores(p)
    p.write_text("\n".join(json.dumps(r) for r in rows))
    assert read_scores(p) == [("A", "1", "p", 0.5)]


def test_read_scores_skips_rows_of_other_metrics(tmp_path: Path) -> None:
    p = tmp_path / "s.csv"
    p.write_text("system,case,metric,value\nA,1,bcp,0.5\nA,1,note,n/a\nA,1,note,n/a\n")
    assert read_scores(p, ["bcp"]) == [("A", "1", "bcp", 0.5)]
    with pytest.raises(InputError, match="not a number"):
        read_scores(p)
    with pytest.raises(InputError, match=r"no score rows for the metric\(s\) 'recall'"):
        read_scores(p, ["recall"])
    # pivot_scores ignores other metrics entirely, even repeated ones
    rows = [("A", 1, "bcp", 0.5), ("B", 1, "bcp", 0.4), ("A", 1, "x", 1.0), ("A", 1, "x", 2.0)]
    assert pivot_scores(rows, ["bcp"]) == {"A": {1: {"bcp": 0.5}}, "B": {1: {"bcp": 0.4}}}


def test_read_scores_errors(tmp_path: Path) -> None:
    p = tmp_path / "s.csv"
    p.write_text("system,case,value\nA,1,0.5\n")
    with pytest.raises(InputError, match=r"missing column.*'metric'"):
        read_scores(p)
    p.write_text("system,case,metric,value\nA,1,p,0.5\nA,2,p,high\n")
    with pytest.raises(InputError, match=r"line 3: value 'high' is not a number"):
        read_scores(p)
    p.write_text("system,case,metric,value\nA,1,p,0.5\nA,2,p,nan\n")
    with pytest.raises(InputError, match=r"line 3: value .* is not finite"):
        read_scores(p)
    p.write_text("system,case,metric,value\nA,1,p,0.5\nA,1,p,0.6\n")
    with pytest.raises(InputError, match=r"line 3: duplicate.*first on line 2"):
        read_scores(p)
    p.write_text("system,case,metric,value\nA,,p,0.5\n")
    with pytest.raises(InputError, match=r"line 2: column 'case' is empty"):
        read_scores(p)
    p.write_text("system,case,metric,value\n")
    with pytest.raises(InputError, match="no score rows"):
        read_scores(p)
    j = tmp_path / "s.jsonl"
    j.write_text('{"system": "A", "case": 1, "metric": "p", "value": 0.5}\n{"system": "A"\n')
    with pytest.raises(InputError, match="line 2: invalid JSON"):
        read_scores(j)
    j.write_text('{"system": "A", "case": 1, "metric": "p"}\n')
    with pytest.raises(InputError, match=r"line 1: missing column.*'value'"):
        read_scores(j)
    j.write_text('{"system": "A", "case": 1, "metric": "p", "value": "x"}\n')
    with pytest.raises(InputError, match=r"line 1: value .* is not a number"):
        read_scores(j)


def test_read_scores_says_a_name_is_text_or_an_integer(tmp_path: Path) -> None:
    """An integer case is accepted (read as its text), so a fractional or boolean one is
    refused as what it is not: text or an integer, with its line."""
    j = tmp_path / "s.jsonl"
    j.write_text('{"system": "A", "case": 1, "metric": "p", "value": 0.5}\n'
                 '{"system": "A", "case": 1.5, "metric": "p", "value": 0.5}\n')
    with pytest.raises(InputError) as err:
        read_scores(j)
    assert str(err.value) == f"{j}, line 2: column 'case' must be text or an integer, got 1.5"
    j.write_text('{"system": true, "case": 1, "metric": "p", "value": 0.5}\n')
    with pytest.raises(InputError, match="line 1: column 'system' must be text or an "
                                            "integer, got True"):
        read_scores(j)
    j.write_text('{"system": "A", "case": 7, "metric": "p", "value": 0.5}\n')
    assert [(r.system, r.case, r.metric) for r in read_scores(j)] == [("A", "7", "p")]
