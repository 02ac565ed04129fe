"""The exploration page (docs/method.md §13.2; ABCDE §4.1.1): a GET form (filters,
grouping, metric) answered on the server by the table of the top groups. A form value
reaches the query only as a column name of the sample, an operator of a fixed table or
a bound parameter (:func:`abcde.explorer.groups.explore`, ``filters``).

====================  =======================================================
GET  /                the form and, for its query, the top groups
GET  /api/groups      the same groups as JSON (explore's document)
GET  /static/{name}   explore.css, favicon.svg
====================  =======================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from abcde.cells import IMPACT_METRICS
from abcde.errors import InputError
from abcde.explorer.groups import (
    FILTER_OPS,
    CheckedSample,
    SampleChanged,
    thin_note,
)
from abcde.params import Int
from abcde.sample_files.items import manifest_path
from abcde.sample_files.layout import read_manifest
from abcde.server.app import (
    Guard,
    create_app,
    isolated,
    isolated_values,
    named_inputs,
    package_files,
)
from abcde.text import key_label, to_json

MAX_FILTERS, MAX_TOP, MAX_EXAMPLES = 4, 200, 10
#: the page's counts: top from 1 (explore's 0, "all", would put every group on the page)
FORM_COUNTS = {"top": Int(1, MAX_TOP), "examples": Int(0, MAX_EXAMPLES)}
#: how the form names the options explore names by their Python names
FORM_SPELLING = {"group_by": "group by"}
#: columns of every item sample that are not attributes (not offered for grouping)
SAMPLE_COLUMNS = ("item_id", "base_cluster", "exp_cluster", "weight", "draw_count",
                  "first_draw", "importance_weight", *IMPACT_METRICS)


@dataclass(frozen=True)
class Form:
    """The form as the user filled it in, shown again with the answer (a mistake in one
    field must not reset the others)."""

    group_by: tuple[str, ...] = ()
    filters: tuple[tuple[str, str, str], ...] = ()
    metric: str = "jaccard_distance"
    top: str = "20"
    examples: str = "3"
    ragged: bool = False  # not as many operators and values as columns


def form_of(params: Any) -> Form:
    get = params.getlist
    cols, ops, vals = get("col"), get("op"), get("val")
    return Form(tuple(get("group_by")), tuple(zip_longest(cols, ops, vals, fillvalue="")),
                params.get("metric") or "jaccard_distance", params.get("top") or "20",
                params.get("examples") or "3", not len(cols) == len(ops) == len(vals))


def query_of(form: Form) -> dict[str, Any]:
    """explore()'s keywords for the form, with the page's own limits; a group named
    twice is worded here for the form (explore words it for the command line)."""
    group_by = tuple(g for g in form.group_by if g)
    for g in group_by:
        n = group_by.count(g)
        if n > 1:
            raise InputError(f"group by names {g!r} "
                             + {2: "twice", 3: "three times"}.get(n, f"{n} times"))
    if form.ragged:
        raise InputError("each filter needs a column, an operator and a value")
    counts = {}
    for name, constraint in FORM_COUNTS.items():
        text = getattr(form, name)
        # ASCII digits only: "²" and "٣" are digits to str.isdigit(), not in the form
        counts[name] = constraint.check(name, int(text) if text.isascii() and
                                        text.isdigit() else text)
    return {"group_by": group_by, "filters": tuple(f for f in form.filters if f[0]),
            "metric": form.metric, **counts}


def _templates() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("abcde.explorer", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = lambda v, d=4: "-" if v is None else (
        f"{v:,}" if isinstance(v, int) else f"{v:.{d}g}" if isinstance(v, float) else str(v))
    # shares and rates in percent, as the report shows them (not 7.831e-06)
    env.filters["pct"] = lambda v, d=4: "-" if v is None else (
        "0%" if v == 0 else f"{100 * v:.{d}g}%")
    env.filters["key"] = key_label
    env.filters["isolate"] = isolated
    return env


def explore_app(sample: str | Path, token: str, hosts: frozenset[str]) -> Starlette:
    """The exploration app of one item sample behind the guard; the sample is read once,
    and again only when its file changes."""
    path = Path(sample)
    checked = CheckedSample(path)  # a bad sample stops the server before it starts
    env = _templates()
    static = package_files("abcde.explorer", ("explore.css", "favicon.svg"))

    def run(params: Any) -> dict[str, Any]:
        return checked.explore(**query_of(form_of(params)))

    async def page(request: Request) -> Response:
        error, doc, status = None, None, 200
        form = form_of(request.query_params)
        try:
            doc = await run_in_threadpool(run, request.query_params)
        except InputError as err:
            err.spell(FORM_SPELLING)
            # the user's values inside the message are isolated as everywhere on the page
            values = [*(v for k, v in request.query_params.multi_items() if k != "token"),
                      *checked.columns, path, path.name, err.table, err.column,
                      *err.examples]
            error = isolated_values(str(err), (v for v in values if v is not None))
            status = 409 if isinstance(err, SampleChanged) else 400
        columns = list(checked.columns)
        attributes = [c for c in columns if c not in SAMPLE_COLUMNS]
        # a grouping by another column of the sample keeps its box (or a submit drops it)
        attributes += [g for g in dict.fromkeys(form.group_by)
                       if g in columns and g not in attributes]
        # what the sample was drawn from, as its manifest (checked by `run`) records it
        where = manifest_path(path)
        inputs = named_inputs(read_manifest(where, "sample-items").get("inputs")
                              if doc is not None and where.exists() else None)
        rows = doc["groups"] if doc else []
        biggest = max((abs(r["contribution"]) for r in rows), default=0.0) or 1.0
        html = env.get_template("explore.html").render(
            token=token, sample=path.name, columns=columns, attributes=attributes,
            metrics=IMPACT_METRICS, ops=list(FILTER_OPS), doc=doc, form=form,
            metric=form.metric if form.metric in IMPACT_METRICS else "jaccard_distance",
            error=error, biggest=biggest, inputs=inputs, max_filters=MAX_FILTERS,
            thin_note=thin_note,
            css=f"/static/explore.css?{urlencode({'token': token})}",
            icon=f"/static/favicon.svg?{urlencode({'token': token})}")
        return HTMLResponse(html, status_code=status)

    async def groups(request: Request) -> Response:
        try:
            doc = await run_in_threadpool(run, request.query_params)
        except InputError as err:
            err.spell(FORM_SPELLING)
            return JSONResponse({"error": str(err)},
                                status_code=409 if isinstance(err, SampleChanged) else 400)
        # as `explore --format json` prints it: a DATE, TIMESTAMP or UUID group is text
        return Response(to_json(doc), media_type="application/json")

    routes = [Route("/", page, methods=["GET", "HEAD"]),
              Route("/api/groups", groups, methods=["GET"])]
    return create_app(routes, Guard(token, hosts), static)
