"""One guard in front of every page abcde serves (docs/method.md §12.1).

Every request is hostile until the guard, a pure ASGI middleware around the whole app,
has let it through; the routes then trust what they get:

- 403 unless the ``Host`` header names the bound address (or, on loopback, another
  loopback name): a site that resolves its own name to 127.0.0.1 is refused (DNS
  rebinding);
- 403 unless the exact secret token is in the query (``?token=``) or the
  ``X-Abcde-Token`` header, once, compared in constant time;
- 405 for a method other than GET, HEAD and POST; 400 for a Content-Length that is not
  ASCII digits, 413 for a body over the limit (counted, whatever the header says);
- 403 for a POST whose ``Origin`` (else ``Referer``) is not the server's own: a page of
  another site cannot post even with the token;
- a POST body is read here and must be an urlencoded UTF-8 form naming each field once
  (415, 400); the routes find it as ``request.scope["form"]``;
- every answer carries the security headers (CSP, nosniff, same-origin referrer, no
  frames, no-store).

Static files come from a fixed map built at start-up: no path from a request reaches
the file system.
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
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

Message = MutableMapping[str, Any]
ASGIApp = Callable[..., Awaitable[None]]

MAX_BODY = 16 * 1024  # bytes: a verdict's form is ~100
MAX_FIELDS = 8
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
DEFAULT_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
               "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
_DIGITS = re.compile(r"[0-9]+")  # not str.isdigit(): "²" is a digit to it, not to int()
NO_TOKEN = ("403 Forbidden: this page needs the secret token; open the URL the command "
            "printed")


@dataclass(frozen=True)
class Guard:
    """What the guard enforces (``hosts`` ``*``: any, for a server on every interface)."""

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
    """The ``Host`` values a request may carry: the bound address with and without its
    port (and every loopback name, on loopback); ``{"*"}`` on every interface.

    >>> sorted(allowed_hosts("127.0.0.1", 8000))[:3]
    ['127.0.0.1', '127.0.0.1:8000', '[::1]']
    """
    if host in ("0.0.0.0", "::", ""):
        return frozenset({"*"})
    names = {host, *(LOOPBACK_NAMES if host in LOOPBACK_NAMES or host.startswith("127.")
                     else ())}
    shown = {f"[{n}]" if ":" in n else n for n in names}
    return frozenset(shown | {f"{n}:{port}" for n in shown})


class GuardMiddleware:
    """The guard of the module docstring."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app, self.guard = app, guard

    async def __call__(self, scope: Message, receive: Callable[[], Awaitable[Message]],
                       send: Callable[[Message], Awaitable[None]]) -> None:
        if scope["type"] != "http":  # lifespan passes; a websocket is closed, unserved
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            await self.app(scope, receive, send)
            return
        extra = self.guard.headers()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        refusal = self.refusal(scope, headers)
        if refusal is None and scope["method"] == "POST":
            refusal = await self.read_form(scope, headers, receive)
        if refusal is not None:
            status, text = refusal
            await PlainTextResponse(text + "\n", status)(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def refusal(self, scope: Message, headers: Mapping[str, str]) -> tuple[int, str] | None:
        hosts = self.guard.hosts
        if "*" not in hosts and headers.get("host", "").lower() not in hosts:
            return 403, "403 Forbidden: unexpected Host header"
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"),
                         keep_blank_values=True)
        given = query.get("token", []) + ([headers["x-abcde-token"]]
                                          if "x-abcde-token" in headers else [])
        if len(set(given)) != 1 or not hmac.compare_digest(
                given[0].encode("utf-8", "surrogateescape"), self.guard.token.encode()):
            return 403, NO_TOKEN
        if scope["method"] not in ("GET", "HEAD", "POST"):
            return 405, "405 Method Not Allowed"
        if scope["method"] == "POST" and not self.same_origin(scope, headers):
            return 403, ("403 Forbidden: a POST from a page of another site (its Origin "
                         "or Referer is not this server's)")
        length = headers.get("content-length")
        if length is not None:
            if not _DIGITS.fullmatch(length):
                return 400, "400 Bad Request: bad Content-Length"
            digits = length.lstrip("0")  # int() refuses over 4300 digits, zeros too
            if len(digits) > 9 or int(digits or 0) > self.guard.max_body:
                return 413, "413 Payload Too Large"
        return None

    def same_origin(self, scope: Message, headers: Mapping[str, str]) -> bool:
        """Whether a POST's Origin (else Referer) is this server's; one with neither
        (curl) has the token alone to show."""
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
        name = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        where = f"{name}:{port}".lower()
        if "*" in self.guard.hosts:  # every interface: the Host it was sent to
            host = headers.get("host", "").lower()
            return where in (host, f"{host}:{default}")
        # names with the port only: "127.0.0.1" alone would let in a server on port 80
        return where in {h for h in self.guard.hosts if h.rsplit(":", 1)[-1].isdigit()}

    async def read_form(self, scope: Message, headers: Mapping[str, str],
                        receive: Callable[[], Awaitable[Message]]) -> tuple[int, str] | None:
        """Read the POST's body (at most the limit) into ``scope["form"]``."""
        body = b""
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":  # a tab closed mid-send
                return 400, "400 Bad Request: the request was cut short"
            body += message.get("body", b"")
            if len(body) > self.guard.max_body:
                return 413, "413 Payload Too Large"
            if not message.get("more_body"):
                break
        scope["form"] = {}
        if not body:
            return None
        media = headers.get("content-type", "").split(";")[0].strip().lower()
        if media != "application/x-www-form-urlencoded":
            return 415, "415 Unsupported Media Type: expected an urlencoded form"
        try:
            parsed = parse_qs(body.decode("utf-8"), keep_blank_values=True,
                              strict_parsing=True, max_num_fields=MAX_FIELDS)
        except (UnicodeDecodeError, ValueError):
            return 400, "400 Bad Request: malformed form"
        if any(len(v) > 1 for v in parsed.values()):
            return 400, "400 Bad Request: a field given twice"
        scope["form"] = {k: v[0] for k, v in parsed.items()}
        return None


MEDIA_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
               ".svg": "image/svg+xml"}


def package_files(package: str, names: Iterable[str]) -> dict[str, tuple[bytes, str]]:
    """name → (bytes, media type) of ``package``'s ``static`` files, read once."""
    root = resources.files(package).joinpath("static")
    return {n: (root.joinpath(n).read_bytes(), MEDIA_TYPES[n[n.rfind("."):]]) for n in names}


def create_app(routes: Sequence[BaseRoute], guard: Guard,
               static: Mapping[str, tuple[bytes, str]],
               conflicts: tuple[type[Exception], ...] = ()) -> Starlette:
    """The app of ``routes`` and ``/static/{name}`` behind the guard; an error of
    ``conflicts`` (files changed under the server) answers 409."""
    async def static_file(request: Request) -> Response:
        found = static.get(request.path_params["name"])
        if found is None:
            raise HTTPException(404)
        return Response(found[0], media_type=found[1])

    async def conflict(request: Request, exc: Exception) -> Response:
        return PlainTextResponse(str(exc), status_code=409)

    return Starlette(
        routes=[*routes, Route("/static/{name}", static_file, methods=["GET", "HEAD"])],
        middleware=[Middleware(GuardMiddleware, guard=guard)],
        exception_handlers={kind: conflict for kind in conflicts})


def isolated(text: object) -> str:
    """Text between bidi isolates (FSI … PDI), for a user's value where no <bdi> can go
    (a <title>): a control inside it cannot reorder what is around it (UAX #9, §2.7).

    >>> isolated("a\u202eb") == "\u2068a\u202eb\u2069"
    True
    """
    return f"\u2068{text}\u2069"


_WORD = re.compile(r"\w")
# ASCII digits, signs and spaces alone: found as they are, they would be the message's
# own numbers; such a value is isolated only as its repr()
_NO_LETTER = re.compile(r"[\x20-\x40\x5b-\x60\x7b-\x7e]+")


def isolated_values(message: str, values: Iterable[object]) -> Markup:
    """A message worded for the command line, as HTML in which each of the user's
    ``values`` it quotes (as its repr() or, between non-word characters, as is) is in a
    <bdi>, the rest escaped once (UAX #9, §2.7).

    >>> print(isolated_values("filter on 'a<b': no such column", ["a<b"]))
    filter on <bdi>&#39;a&lt;b&#39;</bdi>: no such column
    """
    forms = {form for v in values for text in [str(v)] if text
             for form in (repr(text), *(() if _NO_LETTER.fullmatch(text) else (text,)))
             if form in message}
    if not forms:
        return escape(message)

    def bounded(f: str) -> str:  # a value is not found inside a word
        quoted = f[0] in "'\""
        return ("" if quoted or not _WORD.match(f[0]) else r"(?<!\w)") + re.escape(f) + (
            "" if quoted or not _WORD.match(f[-1]) else r"(?!\w)")

    # longest first: a value inside a longer one (or its own repr) is not cut out
    pattern = re.compile("|".join(bounded(f) for f in sorted(forms, key=lambda f: (-len(f),
                                                                                    f))))
    out, at = [], 0
    for m in pattern.finditer(message):
        out += [escape(message[at:m.start()]), Markup("<bdi>%s</bdi>") % m.group()]
        at = m.end()
    out.append(escape(message[at:]))
    return Markup("").join(out)


def named_inputs(inputs: Mapping[str, str | None] | None) -> dict[str, str]:
    """The inputs a manifest records, each by its file (the weights as described)."""
    return {k: v if k == "weights" else re.sub(r"^[^()]* \((.*)\)$", r"\1", v)
            for k, v in (inputs or {}).items() if v}
