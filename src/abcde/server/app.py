"""The app factory and the guard in front of it (docs/method.md §12.1).

Every request is treated as hostile. The guard, a plain ASGI middleware around the whole
Starlette app, answers before any route runs:

- 403 unless the request carries the exact secret token, in the query string
  (``?token=…``) or the ``X-Abcde-Token`` header, compared with
  :func:`hmac.compare_digest`; a query naming ``token`` twice is refused too;
- 403 unless the ``Host`` header names the address the server is bound to (or, on
  loopback, ``localhost``/``127.0.0.1``/``[::1]``): a page of another site that resolves
  its own name to 127.0.0.1 (DNS rebinding) is refused even before the token;
- 405 for methods other than GET, HEAD and POST; 413 for a body over the limit;
- 403 for a POST whose ``Origin`` (or, without one, ``Referer``) is present and not the
  server's own scheme://host:port: a page of another site cannot post even with the
  token; a POST with neither header (curl, a script) needs the token alone;
- every answer, refusals included, carries ``Content-Security-Policy``,
  ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: same-origin`` (the token is in
  the URL: it never goes to another site, while the pages' own POSTs carry their
  origin — under ``no-referrer`` a browser sends ``Origin: null``), ``X-Frame-Options:
  DENY`` and ``Cache-Control: no-store``.

Static files are served from a fixed map name → (bytes, media type) built at start-up
from files inside the package: no path from a request reaches the file system.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from markupsafe import Markup, escape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOKEN_PARAM = "token"
TOKEN_HEADER = "x-abcde-token"
MAX_BODY = 16 * 1024  # bytes: a form with a pair id and a verdict is ~100
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
_ASCII_DIGITS = re.compile(r"[0-9]+")
DEFAULT_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
               "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


@dataclass(frozen=True)
class Guard:
    """What the guard enforces: the token, the host names a request may address, the
    largest body and the Content-Security-Policy."""

    token: str
    hosts: frozenset[str]
    max_body: int = MAX_BODY
    csp: str = DEFAULT_CSP

    def headers(self) -> list[tuple[bytes, bytes]]:
        return [(b"content-security-policy", self.csp.encode()),
                (b"x-content-type-options", b"nosniff"),
                (b"referrer-policy", b"same-origin"),
                (b"x-frame-options", b"DENY"),
                (b"cross-origin-resource-policy", b"same-origin"),
                (b"cache-control", b"no-store")]


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` header values a request may carry (the guard refuses others).

    Parameters
    ----------
    host : str
        The address the server is bound to.
    port : int
        Its port.

    Returns
    -------
    frozenset of str
        ``host`` and ``host:port``; on loopback also localhost, 127.0.0.1 and [::1]
        (with and without the port); ``{"*"}`` (any) for a server bound to every
        interface (0.0.0.0, ::), where the token alone guards it.

    References
    ----------
    docs/method.md §12.1 (DNS rebinding).

    Examples
    --------
    >>> sorted(allowed_hosts("127.0.0.1", 8000))[:3]
    ['127.0.0.1', '127.0.0.1:8000', '[::1]']
    """
    names = {host}
    if host in LOOPBACK_NAMES or host.startswith("127."):
        names |= set(LOOPBACK_NAMES)
    if host in ("0.0.0.0", "::", ""):
        return frozenset({"*"})
    out = set()
    for name in names:
        shown = f"[{name}]" if ":" in name else name
        out |= {shown, f"{shown}:{port}"}
    return frozenset(out)


class GuardMiddleware:
    """The pure-ASGI guard of the module docstring."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # websockets: not served
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            return
        extra = self.guard.headers()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *((k, v) for k, v in extra if k not in names)]
            await send(message)

        refusal = self.refusal(scope)
        if refusal is not None:
            status, text = refusal
            await Response(text + "\n", status_code=status,
                           media_type="text/plain")(scope, receive, send_with_headers)
            return
        await self.app(scope, self.limited(receive), send_with_headers)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """(status, message) when the request is refused, else None."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        if "*" not in self.guard.hosts and host.lower() not in self.guard.hosts:
            return 403, "403 Forbidden: unexpected Host header"
        if not self.token_ok(scope, headers):
            return 403, ("403 Forbidden: this page needs the secret token; open the URL "
                         "that `abcde judge` printed")
        if scope["method"] not in ("GET", "HEAD", "POST"):
            return 405, "405 Method Not Allowed"
        if scope["method"] == "POST" and not self.same_origin(scope, headers):
            return 403, ("403 Forbidden: a POST from a page of another site (its Origin "
                         "or Referer is not this server's)")
        length = headers.get("content-length")
        if length is not None:
            # ASCII digits only (RFC 9110 §8.6): str.isdigit() also takes "²", which
            # int() refuses, as it refuses over 4300 digits; neither may raise here
            if not _ASCII_DIGITS.fullmatch(length):
                return 400, "400 Bad Request: bad Content-Length"
            digits = length.lstrip("0")
            if len(digits) > len(str(self.guard.max_body)) or \
                    int(digits or "0") > self.guard.max_body:
                return 413, "413 Payload Too Large"
        return None

    def same_origin(self, scope: Scope, headers: Mapping[str, str]) -> bool:
        """Whether a POST comes from one of the server's own pages: its ``Origin`` (or,
        without one, the origin of its ``Referer``) is the scheme and host:port served
        (any name of the allowed hosts). A request with neither (curl, a script) passes:
        the token alone guards it, as before. A browser sends ``Origin`` with every form
        POST, so a page of another site that has learnt the token cannot post with it."""
        source = headers.get("origin") or headers.get("referer")
        if source is None:
            return True
        scheme = str(scope.get("scheme", "http")).lower()
        default = {"http": 80, "https": 443}.get(scheme)
        try:  # "null" (a sandboxed frame, a file:) has no scheme: refused
            parts = urlsplit(source.strip())
            port = parts.port or default
        except ValueError:
            return False
        if parts.scheme.lower() != scheme or not parts.hostname or "@" in parts.netloc:
            return False
        shown = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        where = f"{shown}:{port}".lower()
        if "*" in self.guard.hosts:  # bound to every interface: the Host it was sent to
            host = headers.get("host", "").lower()
            return where in (host, f"{host}:{default}")
        # only the names with the port served: "127.0.0.1" alone (a Host header on the
        # default port) would also let in a page of a server on port 80
        return where in {h for h in self.guard.hosts if h.rsplit(":", 1)[-1].isdigit()}

    def token_ok(self, scope: Scope, headers: Mapping[str, str]) -> bool:
        given: list[str] = []
        query = scope.get("query_string", b"").decode("latin-1")
        if query:
            given += parse_qs(query, keep_blank_values=True).get(TOKEN_PARAM, [])
        if TOKEN_HEADER in headers:
            given.append(headers[TOKEN_HEADER])
        if not given or len(set(given)) != 1:
            return False
        expected = self.guard.token.encode()
        return all(hmac.compare_digest(g.encode("utf-8", "surrogateescape"), expected)
                   for g in given)

    def limited(self, receive: Receive) -> Receive:
        """``receive`` that stops a body (chunked or lying about its length) at the limit:
        the route then fails with 413."""
        seen = 0
        limit = self.guard.max_body

        async def wrapped() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise HTTPException(413, "Payload Too Large")
            return message

        return wrapped


def create_app(routes: Sequence[BaseRoute], guard: Guard,
               static: Mapping[str, tuple[bytes, str]] | None = None,
               conflicts: tuple[type[Exception], ...] = ()) -> Starlette:
    """A Starlette app behind the guard.

    Parameters
    ----------
    routes : sequence of Route
        The app's routes.
    guard : Guard
        The token, the allowed hosts, the body limit and the Content-Security-Policy.
    static : mapping, optional
        name → (content, media type), served at ``GET /static/{name}``; any other name
        is 404 (no path from a request reaches the file system).
    conflicts : tuple of exception types, optional
        Errors that answer 409 Conflict with their message (the state on disk changed
        under the server), rather than 500.

    Returns
    -------
    Starlette

    References
    ----------
    docs/method.md §12.1.
    """
    all_routes = list(routes)
    if static:
        files = dict(static)

        async def static_file(request: Request) -> Response:
            name = request.path_params["name"]
            if name not in files:
                raise HTTPException(404)
            content, media_type = files[name]
            return Response(content, media_type=media_type)

        all_routes.append(Route("/static/{name}", static_file, methods=["GET", "HEAD"]))
    async def conflict(request: Request, exc: Exception) -> Response:
        return PlainTextResponse(str(exc), status_code=409)

    return Starlette(routes=all_routes, middleware=[Middleware(GuardMiddleware, guard=guard)],
                     exception_handlers={kind: conflict for kind in conflicts})


def isolated(text: object) -> str:
    """Text between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE, for a user's value
    where no <bdi> element can go (a page's <title>).

    Parameters
    ----------
    text : object
        The value (str() of it).

    Returns
    -------
    str
        The text isolated: a bidi control inside it (U+202E RIGHT-TO-LEFT OVERRIDE)
        cannot reorder the text around it.

    References
    ----------
    Unicode Standard Annex #9, Unicode Bidirectional Algorithm, §2.7 (isolates).

    Examples
    --------
    >>> isolated("a\u202eb") == "\u2068a\u202eb\u2069"
    True
    """
    return f"\u2068{text}\u2069"


_WORD = re.compile(r"\w")
# ASCII digits, signs and spaces: no direction of their own and no control, so they read
# the same isolated; found as they are, they would be the message's own numbers and signs
_NO_LETTER = re.compile(r"[\x20-\x40\x5b-\x60\x7b-\x7e]+")


def isolated_values(message: str, values: Iterable[object]) -> Markup:
    """A message (an error, a warning) as HTML in which every one of the user's values it
    quotes is in a <bdi>, as the page's other user values are.

    Messages are worded for the command line too, so they carry no mark-up: the values
    are found in the text, each as the message writes it (``repr()`` or as is). The rest
    of the text is escaped, once.

    Parameters
    ----------
    message : str
        The text.
    values : iterable of object
        The user's values the message may hold (str() of each): column names, filter
        values, file names, ids. A value is matched as its ``repr()`` (quotes included)
        or as is between non-word characters, so that a short value is not found inside
        a word (a value of ASCII digits and signs only, e.g. a numeric id, only as its
        ``repr()``). A word of the message equal to a value is isolated too, which
        changes nothing on screen: text without a right-to-left character or a bidi
        control reads the same isolated.

    Returns
    -------
    Markup
        Safe to put in an autoescaped template as is.

    References
    ----------
    Unicode Standard Annex #9, Unicode Bidirectional Algorithm, §2.7 (isolates).

    Examples
    --------
    >>> print(isolated_values("filter on 'a<b': no such column", ["a<b"]))
    filter on <bdi>&#39;a&lt;b&#39;</bdi>: no such column
    """
    forms = {form for v in values for text in [str(v)] if text
             for form in (repr(text), *(() if _NO_LETTER.fullmatch(text) else (text,)))
             if form in message}
    if not forms:
        return escape(message)
    # longest first: a value inside a longer one (or inside its own repr) is not cut out
    pattern = re.compile("|".join(
        ("" if f[0] in "'\"" or not _WORD.match(f[0]) else r"(?<!\w)") + re.escape(f)
        + ("" if f[0] in "'\"" or not _WORD.match(f[-1]) else r"(?!\w)")
        for f in sorted(forms, key=lambda f: (-len(f), f))))
    out, at = [], 0
    for m in pattern.finditer(message):
        out += [escape(message[at:m.start()]), Markup("<bdi>%s</bdi>") % m.group()]
        at = m.end()
    out.append(escape(message[at:]))
    return Markup("").join(out)


MEDIA_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
               ".svg": "image/svg+xml", ".png": "image/png"}


def package_files(package: str, folder: str, names: Iterable[str]) -> dict[str, tuple[bytes,
                                                                                      str]]:
    """The static map of files shipped inside a package, read once at start-up.

    Parameters
    ----------
    package : str
        The package, e.g. ``"abcde.judge"``.
    folder : str
        Its folder of static files.
    names : iterable of str
        The files to serve; a suffix without a known media type is refused (KeyError),
        so nothing is served with a guessed type.

    Returns
    -------
    dict
        name → (bytes, media type), for :func:`create_app`.

    References
    ----------
    docs/method.md §12.1.
    """
    root = resources.files(package).joinpath(folder)
    out = {}
    for name in names:
        suffix = name[name.rfind("."):]
        out[name] = (root.joinpath(name).read_bytes(), MEDIA_TYPES[suffix])
    return out


async def read_form(request: Request, fields: Sequence[str]) -> dict[str, str]:
    """The form body of a POST, parsed here (no multipart parser is needed).

    Parameters
    ----------
    request : Request
        A POST with an ``application/x-www-form-urlencoded`` UTF-8 body (the guard
        limits its size); an empty body is accepted when no field is asked for.
    fields : sequence of str
        The fields to return; each may be given at most once.

    Returns
    -------
    dict
        field → value, for the fields present.

    Raises
    ------
    HTTPException
        415 for another content type, 400 for a malformed body, a repeated field or a
        body cut short by the client going away.

    References
    ----------
    docs/method.md §12.1.
    """
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        body = await request.body()
    except ClientDisconnect:  # a tab closed mid-send: nothing to record, no traceback
        raise HTTPException(400, "the request was cut short") from None
    if not body and not fields:
        return {}
    if media != "application/x-www-form-urlencoded":
        raise HTTPException(415, "expected a form (application/x-www-form-urlencoded)")
    try:
        text = body.decode("utf-8")
        parsed = parse_qs(text, keep_blank_values=True, strict_parsing=bool(text),
                          max_num_fields=len(fields) + 4)
    except (UnicodeDecodeError, ValueError):
        raise HTTPException(400, "malformed form") from None
    out = {}
    for name in fields:
        values = parsed.get(name, [])
        if len(values) > 1:
            raise HTTPException(400, f"field {name!r} given twice")
        if values:
            out[name] = values[0]
    return out
