"""The judging web app: routes and pages (docs/method.md §12).

Pages are rendered on the server by Jinja2 (autoescape on) and every move is a plain
form POST answered by a redirect (POST → 303 → GET), so the browser's own reload and
history work, nothing depends on script for correctness, and a verdict's 303 is sent
only after the verdict is on disk. ``judge.js`` adds the keys. Routes (every one behind
the token guard of :mod:`abcde.server.app`):

====================  =======================================================
GET  /                the judge's next pair (303), or /done
GET  /pair/{pair_id}  one pair, the two items side by side
POST /verdict         form ``pair_id``, ``verdict`` → 303 to the next needed pair
POST /undo            retract this judge's latest verdict → 303 to that pair
GET  /done            nothing left for this judge
GET  /api/status      progress as JSON (for scripts and tests)
GET  /static/{name}   judge.js, judge.css, favicon.svg (a fixed map)
====================  =======================================================
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
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
from abcde.server.app import DEFAULT_CSP, Guard, create_app, isolated, package_files, read_form

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


def templates() -> jinja2.Environment:
    """The page templates shipped in the package, autoescaped.

    Parameters
    ----------
    None

    Returns
    -------
    jinja2.Environment
        Autoescape on, undefined names an error.

    References
    ----------
    docs/method.md §12.1.
    """
    env = jinja2.Environment(loader=jinja2.PackageLoader("abcde.judge", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["shown_keys"] = lambda keys: " / ".join(
        {"arrowleft": "←", "arrowright": "→", "backspace": "Backspace"}.get(k, k.upper())
        for k in keys.split())
    env.filters["isolate"] = isolated  # ids in the <title>, where no <bdi> can go
    return env


def estimate_command(directory: str | Path) -> str:
    """The command that estimates from a judged sample, as the user can paste it.

    Parameters
    ----------
    directory : str or Path
        The sample directory as ``abcde judge`` was given it (relative to where it runs).

    Returns
    -------
    str
        ``abcde estimate DIR`` with DIR quoted for a POSIX shell when it needs it.

    References
    ----------
    docs/method.md §12.

    Examples
    --------
    >>> estimate_command("round 1")
    "abcde estimate 'round 1'"
    """
    return f"abcde estimate {shlex.quote(str(directory))}"


def judge_csp(image_cols: Sequence[str]) -> str:
    """The page's Content-Security-Policy.

    Parameters
    ----------
    image_cols : sequence of str
        The ``--image-col`` attributes.

    Returns
    -------
    str
        Only the page's own script and style; images from the web (http, https) only
        when ``image_cols`` is not empty.

    References
    ----------
    docs/method.md §12.1.
    """
    if not image_cols:
        return DEFAULT_CSP
    return DEFAULT_CSP.replace("img-src 'self'", "img-src 'self' http: https:")


def judge_app(session: JudgeSession, token: str, hosts: frozenset[str],
              options: PageOptions = PageOptions()) -> Starlette:
    """The app for one judge on one sample, behind the token guard.

    Parameters
    ----------
    session : JudgeSession
        The judge's round.
    token : str
        The secret every request must carry.
    hosts : frozenset of str
        The Host header values allowed (:func:`abcde.server.app.allowed_hosts`).
    options : PageOptions
        Image and link attributes, and whether to show the estimates panel.

    Returns
    -------
    Starlette
        The routes of the module docstring.

    References
    ----------
    docs/method.md §12.
    """
    env = templates()
    panel = EstimatesPanel(session.sample.directory) if options.show_estimates else None
    sample = session.sample

    def u(path: str) -> str:
        return f"{path}?token={quote(token, safe='')}"

    def pair_url(pid: str | None) -> str:
        return u("/done") if pid is None else u(f"/pair/{quote(pid, safe='')}")

    def render(name: str, snap: Snapshot, status: int = 200, **context: Any) -> HTMLResponse:
        progress = session.progress(snap)
        context.update(
            u=u, judge=session.judge, sample_id=sample.sample_id, progress=progress,
            keys=KEYS, panel=panel.compute(snap.answered) if panel is not None else None)
        return HTMLResponse(env.get_template(name).render(context), status_code=status)

    def home(request: Request) -> Response:
        snap = session.snapshot()
        return RedirectResponse(pair_url(session.next_pair(snap)), status_code=303)

    def pair_page(request: Request) -> Response:
        try:
            pid = session.check_pair(request.path_params["pair_id"])
        except KeyError:
            raise HTTPException(404, "no such pair in this sample") from None
        snap = session.snapshot()
        q = sample.questions[pid]
        mine, others = set(snap.mine), snap.others
        listing = session.assignment.listing(mine, others)
        kinds = {**{a: "image" for a in options.image_cols},
                 **{a: "link" for a in options.link_cols}}
        rows = []
        for name, a, b in q.attributes:
            shown = cell(a, kinds.get(name, "text")), cell(b, kinds.get(name, "text"))
            # Differing values are highlighted, except two images or two links: those
            # are compared by eye (their addresses differ between any two items). A
            # value of an image or link column that is no web address is shown as text,
            # and compared as text.
            by_eye = all(c.kind in ("image", "link") for c in shown)
            marked = not by_eye and differs(a, b)
            rows.append({"name": name, "a": shown[0], "b": shown[1], "differs": marked,
                         "unseen": unseen_difference(a, b) if marked else None})
        prev_pid = session.assignment.neighbour(pid, -1, mine, others)
        next_pid = session.assignment.neighbour(pid, +1, mine, others)
        return render(
            "pair.html", snap, pair_id=pid, item_1=cell(q.item_1), item_2=cell(q.item_2),
            rows=rows, current=snap.mine.get(pid),
            position=listing.index(pid) + 1 if pid in listing else None,
            listed=len(listing), answered_elsewhere=pid not in listing,
            prev_url=None if prev_pid is None else pair_url(prev_pid),
            next_url=None if next_pid is None else pair_url(next_pid),
            buttons=VERDICT_BUTTONS)

    async def written(what: str, move: Callable[..., Any], *args: Any) -> Any:
        """A move that appends to the log; a disk that is full (or failing) is said on
        the page, 503, not an internal error: nothing was acknowledged, so nothing is
        lost, and the judge can give it again."""
        try:
            return await run_in_threadpool(move, *args)
        except OSError as err:
            raise HTTPException(503, f"the {what} was not recorded ({session.log_path}: "
                                     f"{err.strerror or err}); nothing was lost: give it "
                                     "again once the problem is fixed") from None

    async def verdict(request: Request) -> Response:
        form = await read_form(request, ("pair_id", "verdict"))
        word = form.get("verdict", "")
        if word not in VERDICTS:
            raise HTTPException(400, f"verdict must be one of {', '.join(VERDICTS)}")
        try:
            pid = session.check_pair(form.get("pair_id"))
        except KeyError:
            raise HTTPException(400, "no such pair in this sample") from None
        await written("verdict", session.record, pid, word)  # on disk before we answer
        snap = await run_in_threadpool(session.snapshot)
        return RedirectResponse(pair_url(session.next_pair(snap, after=pid)), status_code=303)

    async def undo(request: Request) -> Response:
        await read_form(request, ())
        target = await written("undo", session.undo)
        if target is None:
            return RedirectResponse(u("/"), status_code=303)
        return RedirectResponse(pair_url(target), status_code=303)

    def done(request: Request) -> Response:
        snap = session.snapshot()
        listing = session.assignment.listing(set(snap.mine), snap.others)
        left = session.next_pair(snap)  # another judge may have undone a verdict
        return render("done.html", snap, last_url=pair_url(listing[-1]) if listing else None,
                      next_url=None if left is None else pair_url(left),
                      estimate=estimate_command(sample.directory))

    def status(request: Request) -> Response:
        snap = session.snapshot()
        return JSONResponse({"judge": session.judge, "sample_id": sample.sample_id,
                             "progress": session.progress(snap),
                             "next_pair": session.next_pair(snap)})

    routes = [Route("/", home, methods=["GET", "HEAD"]),
              # :path — a hand-made pair id may hold a "/" (sent as %2F, decoded before
              # routing), which a one-segment parameter answered with 404
              Route("/pair/{pair_id:path}", pair_page, methods=["GET", "HEAD"]),
              Route("/verdict", verdict, methods=["POST"]),
              Route("/undo", undo, methods=["POST"]),
              Route("/done", done, methods=["GET", "HEAD"]),
              Route("/api/status", status, methods=["GET"])]
    guard = Guard(token=token, hosts=hosts, csp=judge_csp(options.image_cols))
    return create_app(routes, guard, package_files("abcde.judge", "static", STATIC_FILES),
                      conflicts=(InputError,))  # the files changed under the server
