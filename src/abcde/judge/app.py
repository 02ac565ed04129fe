"""The judging web app: routes and pages (docs/method.md §12).

Pages are rendered on the server (Jinja2, autoescaped); every move is a form POST
answered by a 303 once the verdict is on disk, so reload and history work without
script (``judge.js`` adds the keys). Every route is behind :mod:`abcde.server.app`'s guard:

====================  =======================================================
GET  /                the judge's next pair (303), or /done
GET  /pair/{pair_id}  one pair, the two items side by side
POST /verdict         form ``pair_id``, ``verdict`` → 303 to the next needed pair
POST /undo            retract this judge's latest verdict → 303 to that pair
GET  /done            nothing left for this judge
GET  /api/status      progress as JSON (for scripts and tests)
GET  /static/{name}   judge.js, judge.css, favicon.svg
====================  =======================================================
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from abcde.errors import InputError
from abcde.judge.cells import cell, differs, unseen_difference
from abcde.judge.estimates import EstimatesPanel
from abcde.judge.session import JudgeSession, Snapshot
from abcde.quality.judgements import VERDICTS
from abcde.server.app import (
    DEFAULT_CSP,
    Guard,
    create_app,
    isolated,
    named_inputs,
    package_files,
)

STATIC_FILES = ("judge.js", "judge.css", "favicon.svg")
KEYS = (  # (keys as KeyboardEvent.key, lower-cased; what they do) — also in docs/quality.md
    ("j 1", "equivalent: the two items are the same entity"),
    ("k 2", "not equivalent"),
    ("u 3", "unknown: cannot tell"),
    ("z backspace", "undo your last verdict (and show that pair again)"),
    ("h arrowleft", "back to the previous pair"),
    ("l arrowright", "forward to the next pair"),
    ("?", "show or hide the keys"),
)
VERDICT_BUTTONS = (("equivalent", "Equivalent", "j 1"),
                   ("not_equivalent", "Not equivalent", "k 2"),
                   ("unknown", "Unknown", "u 3"))


@dataclass(frozen=True)
class PageOptions:
    image_cols: tuple[str, ...] = ()
    link_cols: tuple[str, ...] = ()
    show_estimates: bool = False
    stop_when: tuple[str, ...] = ()  # the panel's questions (abcde.quality.sequential)


def templates() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("abcde.judge", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["shown_keys"] = lambda keys: " / ".join(
        {"arrowleft": "←", "arrowright": "→", "backspace": "Backspace"}.get(k, k.upper())
        for k in keys.split())
    env.filters["isolate"] = isolated  # ids in the <title>, where no <bdi> can go
    return env


def estimate_command(directory: str | Path) -> str:
    """The command that estimates from the judged sample, ready to paste.

    >>> estimate_command("round 1")
    "abcde estimate 'round 1'"
    """
    return f"abcde estimate {shlex.quote(str(directory))}"


def judge_app(session: JudgeSession, token: str, hosts: frozenset[str],
              options: PageOptions = PageOptions()) -> Starlette:
    """The app of one judge on one sample, behind the guard (``hosts``: the Host values
    allowed); web images pass the page's CSP only with ``--image-col``."""
    env = templates()
    panel = EstimatesPanel(session.sample.directory, options.stop_when) \
        if options.show_estimates else None
    # what the panel's estimates are computed from, as the manifest records it
    inputs = named_inputs(panel.sample.manifest.get("inputs") if panel else None)
    sample = session.sample
    kinds = {**{a: "image" for a in options.image_cols},
             **{a: "link" for a in options.link_cols}}

    def u(path: str) -> str:
        return f"{path}?token={quote(token, safe='')}"

    def pair_url(pid: str | None) -> str | None:
        return None if pid is None else u(f"/pair/{quote(pid, safe='')}")

    def go(url: str | None) -> Response:
        return RedirectResponse(url or u("/done"), status_code=303)

    def render(name: str, snap: Snapshot, **context: Any) -> HTMLResponse:
        context.update(u=u, judge=session.judge, sample_id=sample.sample_id,
                       progress=session.progress(snap), keys=KEYS,
                       panel=panel.compute(snap.answered) if panel is not None else None,
                       inputs=inputs)
        return HTMLResponse(env.get_template(name).render(context))

    def home(request: Request) -> Response:
        return go(pair_url(session.next_pair(session.snapshot())))

    def pair_page(request: Request) -> Response:
        pid = session.pair(request.path_params["pair_id"])
        if pid is None:
            raise HTTPException(404, "no such pair in this sample")
        snap = session.snapshot()
        q = sample.questions[pid]
        mine, others = set(snap.mine), snap.others
        listing = session.assignment.listing(mine, others)
        rows = []
        for name, a, b in q.attributes:
            shown = cell(a, kinds.get(name, "text")), cell(b, kinds.get(name, "text"))
            # two images or two links are compared by eye (their addresses differ
            # between any two items); a value that is no web address is text
            marked = differs(a, b) and not all(c.kind in ("image", "link") for c in shown)
            rows.append({"name": name, "a": shown[0], "b": shown[1], "differs": marked,
                         "unseen": unseen_difference(a, b) if marked else None})
        return render(
            "pair.html", snap, pair_id=pid, item_1=cell(q.item_1), item_2=cell(q.item_2),
            rows=rows, current=snap.mine.get(pid),
            position=listing.index(pid) + 1 if pid in listing else None,
            listed=len(listing), answered_elsewhere=pid not in listing,
            prev_url=pair_url(session.assignment.neighbour(pid, -1, mine, others)),
            next_url=pair_url(session.assignment.neighbour(pid, +1, mine, others)),
            buttons=VERDICT_BUTTONS)

    async def written(what: str, move: Callable[..., Any], *args: Any) -> Any:
        """A move that appends to the log; a failing disk is a 503 (nothing acknowledged)."""
        try:
            return await run_in_threadpool(move, *args)
        except OSError as err:
            raise HTTPException(503, f"the {what} was not recorded ({session.log_path}: "
                                     f"{err.strerror or err}); nothing was lost: give it "
                                     "again once the problem is fixed") from None

    async def verdict(request: Request) -> Response:
        form = request.scope["form"]
        pid, word = session.pair(form.get("pair_id")), form.get("verdict")
        if pid is None or word not in VERDICTS:
            raise HTTPException(400, f"a verdict is a pair_id of this sample and one of "
                                     f"{', '.join(VERDICTS)}")
        await written("verdict", session.record, pid, word)  # on disk before we answer
        snap = await run_in_threadpool(session.snapshot)
        return go(pair_url(session.next_pair(snap, after=pid)))

    async def undo(request: Request) -> Response:
        target = await written("undo", session.undo)
        return go(u("/")) if target is None else go(pair_url(target))

    def done(request: Request) -> Response:
        snap = session.snapshot()
        listing = session.assignment.listing(set(snap.mine), snap.others)
        return render("done.html", snap, last_url=pair_url(listing[-1] if listing else None),
                      # another judge may have undone a verdict
                      next_url=pair_url(session.next_pair(snap)),
                      estimate=estimate_command(sample.directory))

    def status(request: Request) -> Response:
        snap = session.snapshot()
        return JSONResponse({"judge": session.judge, "sample_id": sample.sample_id,
                             "progress": session.progress(snap),
                             "next_pair": session.next_pair(snap)})

    routes = [Route("/", home, methods=["GET", "HEAD"]),
              # :path — a hand-made pair id may hold a "/" (sent as %2F)
              Route("/pair/{pair_id:path}", pair_page, methods=["GET", "HEAD"]),
              Route("/verdict", verdict, methods=["POST"]),
              Route("/undo", undo, methods=["POST"]),
              Route("/done", done, methods=["GET", "HEAD"]),
              Route("/api/status", status, methods=["GET"])]
    csp = DEFAULT_CSP.replace("img-src 'self'", "img-src 'self' http: https:") \
        if options.image_cols else DEFAULT_CSP
    return create_app(routes, Guard(token, hosts, csp=csp),
                      package_files("abcde.judge", STATIC_FILES),
                      conflicts=(InputError,))  # the files changed under the server
