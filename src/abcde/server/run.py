"""Serving an app on a local port until Ctrl-C (docs/method.md §12.1): the socket is
bound here and handed to uvicorn, so a free port is taken with no window between choosing
and binding, and a port in use is an InputError."""

from __future__ import annotations

import errno
import ipaddress
import secrets
import signal
import socket
import threading
import time
import webbrowser
from typing import Any

from abcde.errors import InputError
from abcde.params import Int

DEFAULT_HOST = "127.0.0.1"
PORT = Int(0, 65535)


def new_token() -> str:
    """A fresh secret for one run: 32 random bytes, URL-safe (43 characters)."""
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """Whether only this machine can connect to ``host``.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host: str = DEFAULT_HOST, port: int = 0) -> socket.socket:
    """A listening socket on ``host:port`` (0: a free port)."""
    port = PORT.check("port", port)
    try:
        family, _, _, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as err:
        raise InputError(f"{{option}} {host}: cannot resolve it ({err.strerror})",
                         option="host") from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        # a restart re-binds past connections in TIME_WAIT (a listening port stays refused)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRNOTAVAIL:
            raise InputError(f"--host {host} is not an address of this machine",
                             option="host") from None
        why = {errno.EADDRINUSE: "is in use", errno.EACCES: "needs privileges",
               errno.EPERM: "needs privileges"}.get(err.errno or 0)
        if why is None:
            raise
        raise InputError(f"port {port} on {host} {why}", option="port",
                         hint="Choose another --port, or omit it for a free one.") from None
    return sock


def url_of(sock: socket.socket, path: str = "/", token: str | None = None) -> str:
    """``http://host:port/path?token=…`` of a bound socket (IPv6 in brackets)."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}" + (f"?token={token}" if token else "")


def serve(app: Any, sock: socket.socket, *, open_url: str | None = None) -> None:
    """Serve ``app`` on ``sock`` until Ctrl-C or SIGTERM, opening ``open_url`` once it
    accepts connections; no access log (request lines carry the token)."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", server_header=False,
        timeout_graceful_shutdown=5))

    def when_started() -> None:
        while not server.started and not server.should_exit:
            time.sleep(0.02)
        if server.started and open_url is not None:
            webbrowser.open(open_url)

    threading.Thread(target=when_started, daemon=True).start()
    # after its graceful stop uvicorn raises the signal again for the handler that was
    # there: KeyboardInterrupt for Ctrl-C, _Stop for SIGTERM — both "stopped as asked"
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _stop) if main else None
    try:
        server.run(sockets=[sock])
    except (KeyboardInterrupt, _Stop):
        pass
    finally:
        sock.close()
        if main:
            signal.signal(signal.SIGTERM, previous)


class _Stop(Exception):
    """SIGTERM after uvicorn's graceful stop."""


def _stop(signum: int, frame: Any) -> None:
    raise _Stop
