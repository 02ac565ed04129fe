"""The exploration page: a GET form (filters, grouping, metric) answered by the table of
the top groups, rendered on the server. No script is needed; every value of the form
reaches the query only as a validated column name or a bound parameter
(:func:`abcde.explorer.groups.explore`, ``filters``).

====================  =======================================================
GET  /                the form and, for its query, the top groups
GET  /api/groups      the same groups as JSON (explore's document)
GET  /static/{name}   explore.css, favicon.svg
====================  =======================================================
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
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
    OUTPUT_FIELDS,
    CheckedSample,
    SampleChanged,
    thin_note,
)
from abcde.server.app import Guard, create_app, isolated, isolated_values, package_files
from abcde.text import key_label, to_json

MAX_FILTERS = 4
MAX_TOP = 200
MAX_EXAMPLES = 10
#: Columns of every item sample that are not attributes (not offered for grouping).
SAMPLE_COLUMNS = ("item_id", "base_cluster", "exp_cluster", "weight", "draw_count",
                  "first_draw", "importance_weight", *IMPACT_METRICS)


@dataclass(frozen=True)
class Query:
    """What the form asks: filters (column, operator, value), grouping, metric, top."""

    group_by: tuple[str, ...] = ()
    filters: tuple[tuple[str, str, str], ...] = ()
    metric: str = "jaccard_distance"
    top: int = 20
    examples: int = 3


@dataclass(frozen=True)
class Form:
    """The form as the user filled it in, unchecked: shown again with the page's answer,
    an error included (a mistake in one field must not reset the others)."""

    group_by: tuple[str, ...]
    filters: tuple[tuple[str, str, str], ...]
    metric: str
    top: str
    examples: str


def form_of(params: Mapping[str, Any]) -> Form:
    """The form's fields as the query string gives them (:class:`Form`)."""
    get_all = getattr(params, "getlist", lambda k: [params[k]] if k in params else [])
    filters = tuple(zip_longest(get_all("col"), get_all("op"), get_all("val"),
                                fillvalue=""))
    return Form(tuple(get_all("group_by")), filters[:MAX_FILTERS],
                params.get("metric") or "jaccard_distance", params.get("top") or "20",
                params.get("examples") or "3")


def parse_query(params: Mapping[str, Any], columns: Sequence[str]) -> Query:
    """The form's query, checked against the sample's columns.

    Parameters
    ----------
    params : mapping
        The query string (``group_by`` repeated; ``col``, ``op``, ``val`` repeated in
        step; ``metric``, ``top``, ``examples``).
    columns : sequence of str
        The sample's columns.

    Returns
    -------
    Query

    Raises
    ------
    InputError
        Naming the field: an unknown column, operator or metric, a count out of range.

    References
    ----------
    docs/method.md §13.2.
    """
    get_all = getattr(params, "getlist", lambda k: [params[k]] if k in params else [])
    group_by = tuple(g for g in get_all("group_by") if g)
    for g in group_by:
        if g not in columns:
            raise InputError(f"group by {g!r}: the sample has no such column")
    # worded for the form here: explore's own checks name the CLI's --group-by
    for g in dict.fromkeys(group_by):
        if group_by.count(g) > 1:
            raise InputError(f"group by names {g!r} {_times(group_by.count(g))}")
    cols, ops, vals = get_all("col"), get_all("op"), get_all("val")
    if not len(cols) == len(ops) == len(vals):
        raise InputError("each filter needs a column, an operator and a value")
    filters = tuple((c, o, v) for c, o, v in zip(cols, ops, vals, strict=True) if c)
    if len(filters) > MAX_FILTERS:
        raise InputError(f"at most {MAX_FILTERS} filters")
    for c, o, _ in filters:
        if c not in columns:
            raise InputError(f"filter on {c!r}: the sample has no such column")
        if o not in FILTER_OPS:
            raise InputError(f"filter on {c!r}: unknown operator {o!r}")
    metric = params.get("metric") or "jaccard_distance"
    if metric not in IMPACT_METRICS:
        raise InputError(f"metric {metric!r}: one of {', '.join(IMPACT_METRICS)}")
    for g in group_by:
        if g in (*OUTPUT_FIELDS, metric):
            raise InputError(f"group by {g!r}: the table of groups has a column of that "
                             "name (the group's own numbers); rank by another metric, or "
                             "group by a copy of the column under another name")

    def count(name: str, default: int, least: int, most: int) -> int:
        text = params.get(name) or str(default)
        # ASCII digits only: str.isdigit() is also true of "²", which int() refuses
        if not (text.isascii() and text.isdigit()) or not least <= int(text) <= most:
            raise InputError(f"{name} must be a whole number from {least} to {most}")
        return int(text)

    # top from 1: explore's 0 ("all") would put every group of the sample on the page
    return Query(group_by, filters, metric, count("top", 20, 1, MAX_TOP),
                 count("examples", 3, 0, MAX_EXAMPLES))


def _times(n: int) -> str:
    return {2: "twice", 3: "three times"}.get(n, f"{n} times")


def _templates() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("abcde.explorer", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = lambda v, d=4: "-" if v is None else (
        f"{v:,}" if isinstance(v, int) else f"{v:.{d}g}" if isinstance(v, float) else str(v))
    env.filters["key"] = key_label
    env.filters["isolate"] = isolated
    return env


def explore_app(sample: str | Path, token: str, hosts: frozenset[str]) -> Starlette:
    """The exploration app of one item sample, behind the token guard.

    Parameters
    ----------
    sample : str or Path
        A sample of ``abcde sample-items`` (.parquet or .csv).
    token : str
        The secret every request must carry.
    hosts : frozenset of str
        The ``Host`` values allowed (:func:`abcde.server.app.allowed_hosts`).

    Returns
    -------
    Starlette

    References
    ----------
    docs/method.md §13.2; ABCDE §4.1.1.
    """
    path = Path(sample)
    # read and checked once, here (a bad sample stops the server before it starts);
    # each request queries the checked rows, re-checked only if the file changes
    checked = CheckedSample(path)
    env = _templates()
    static = package_files("abcde.explorer", "static", ("explore.css", "favicon.svg"))

    def run(params: Mapping[str, Any]) -> tuple[Query, dict[str, Any]]:
        query = parse_query(params, list(checked.refresh()))
        return query, checked.explore(query.group_by, metric=query.metric, top=query.top,
                                      examples=query.examples, filters=query.filters)

    async def page(request: Request) -> Response:
        error, doc, query, status = None, None, Query(), 200
        try:
            query, doc = await run_in_threadpool(run, request.query_params)
        except InputError as err:
            # the user's values inside the message are isolated as everywhere on the page
            values = [*(v for k, v in request.query_params.multi_items() if k != "token"),
                      *checked.columns, path, path.name, err.table, err.column,
                      *err.examples]
            error = isolated_values(str(err), (v for v in values if v is not None))
            status = 409 if isinstance(err, SampleChanged) else 400
            with contextlib.suppress(InputError):  # the metric asked, when the query parses
                query = parse_query(request.query_params, list(checked.columns))
        columns = list(checked.columns)
        form = form_of(request.query_params)
        attributes = [c for c in columns if c not in SAMPLE_COLUMNS]
        # a grouping by another column of the sample (a link, --group-by base_cluster)
        # keeps its box, checked: the next submit of the form would drop it otherwise
        attributes += [g for g in dict.fromkeys(form.group_by)
                       if g in columns and g not in attributes]
        rows = doc["groups"] if doc else []
        biggest = max((abs(r["contribution"]) for r in rows), default=0.0) or 1.0
        html = env.get_template("explore.html").render(
            token=token, sample=path.name, columns=columns, attributes=attributes,
            metrics=IMPACT_METRICS, ops=list(FILTER_OPS), query=query, doc=doc,
            form=form,
            error=error, biggest=biggest, max_filters=MAX_FILTERS,
            thin_note=thin_note,
            css=f"/static/explore.css?{urlencode({'token': token})}",
            icon=f"/static/favicon.svg?{urlencode({'token': token})}")
        return HTMLResponse(html, status_code=status)

    async def groups(request: Request) -> Response:
        try:
            doc = (await run_in_threadpool(run, request.query_params))[1]
        except InputError as err:
            return JSONResponse({"error": str(err)},
                                status_code=409 if isinstance(err, SampleChanged) else 400)
        # as `explore --format json` prints it: a group value of a DATE, TIMESTAMP,
        # INTERVAL or UUID attribute is text (JSONResponse's encoder refused it: a 500)
        return Response(to_json(doc), media_type="application/json")

    routes = [Route("/", page, methods=["GET", "HEAD"]),
              Route("/api/groups", groups, methods=["GET"])]
    return create_app(routes, Guard(token, hosts), static)
