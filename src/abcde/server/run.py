"""Serving an app on a local port until Ctrl-C (docs/method.md §12.1).

The socket is bound here, before uvicorn starts, and handed to it: a free port
(``port=0``) is the one the OS gave, with no window between choosing and binding, and a
port already in use is a clean :class:`~abcde.errors.InputError` (exit 2), never a
traceback. The default address is 127.0.0.1: nothing outside this machine can connect.
"""

from __future__ import annotations

import errno
import ipaddress
import secrets
import signal
import socket
import threading
import time
import webbrowser
from collections.abc import Callable
from typing import Any

from abcde.errors import InputError

DEFAULT_HOST = "127.0.0.1"


def new_token() -> str:
    """A fresh secret for one server run.

    Parameters
    ----------
    None

    Returns
    -------
    str
        32 random bytes from :mod:`secrets`, URL-safe base64 (43 characters).

    References
    ----------
    docs/method.md §12.1.
    """
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """Whether an address to listen on is loopback (only this machine can connect).

    Parameters
    ----------
    host : str
        A host name or IP address.

    Returns
    -------
    bool
        True for ``localhost`` and 127.0.0.0/8, ::1.

    References
    ----------
    docs/method.md §12.1.

    Examples
    --------
    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host: str = DEFAULT_HOST, port: int = 0) -> socket.socket:
    """A listening TCP socket, bound before the server starts.

    Parameters
    ----------
    host : str
        The address (default 127.0.0.1).
    port : int
        The port; 0 lets the operating system pick a free one.

    Returns
    -------
    socket.socket
        Bound and listening; hand it to :func:`serve`.

    Raises
    ------
    InputError
        When the port is not a port, is in use or needs privileges, or the host is not
        an address of this machine (exit 2 with what to do).

    References
    ----------
    docs/method.md §12.1.
    """
    if not 0 <= port <= 65535:
        raise InputError(f"--port {port} is not a TCP port (0-65535; 0 or no --port: a "
                         "free one)")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        raise InputError(f"--host {host}: cannot resolve it ({err.strerror})") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        # Re-binding right after a restart (connections in TIME_WAIT) must work; Linux
        # still refuses a port another socket listens on.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise InputError(f"port {port} on {host} is in use",
                             hint="Choose another --port, or omit --port for a free "
                                  "one.") from None
        if err.errno in (errno.EACCES, errno.EPERM):
            raise InputError(f"not allowed to listen on {host}:{port} ({err.strerror})",
                             hint="Ports below 1024 need privileges; omit --port for a "
                                  "free one.") from None
        if err.errno == errno.EADDRNOTAVAIL:
            raise InputError(f"--host {host} is not an address of this machine") from None
        raise
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket, path: str = "/", token: str | None = None) -> str:
    """The address of a bound socket.

    Parameters
    ----------
    sock : socket.socket
        A bound socket.
    path : str
        The path.
    token : str, optional
        Appended as ``?token=…``.

    Returns
    -------
    str
        ``http://host:port/path?token=…`` (IPv6 hosts in brackets).

    References
    ----------
    docs/method.md §12.1.
    """
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    query = f"?token={token}" if token else ""
    return f"http://{shown}:{port}{path}{query}"


def serve(app: Any, sock: socket.socket, *, open_url: str | None = None,
          on_started: Callable[[], None] | None = None) -> None:
    """Serve an app with uvicorn until Ctrl-C (SIGINT) or SIGTERM, then return after a
    graceful shutdown. Access logs are off: request lines would carry the token.

    Parameters
    ----------
    app : ASGI application
        Usually from :func:`abcde.server.app.create_app`.
    sock : socket.socket
        From :func:`bind`; closed on return.
    open_url : str, optional
        Opened in the default browser (:mod:`webbrowser`, which honours ``$BROWSER``)
        once the server accepts connections.
    on_started : callable, optional
        Called once the server accepts connections.

    Returns
    -------
    None

    References
    ----------
    docs/method.md §12.1.
    """
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            server_header=False, timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)

    def when_started() -> None:
        while not server.started and not server.should_exit:
            time.sleep(0.02)
        if server.started:
            if on_started is not None:
                on_started()
            if open_url is not None:
                webbrowser.open(open_url)

    threading.Thread(target=when_started, daemon=True).start()
    # uvicorn shuts down gracefully on SIGINT/SIGTERM, then raises the signal again for
    # the handler that was there before: KeyboardInterrupt for Ctrl-C, and _Stop (below)
    # for SIGTERM, both meaning "stopped as asked".
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
    """SIGTERM after uvicorn's graceful shutdown."""


def _stop(signum: int, frame: Any) -> None:
    raise _Stop
