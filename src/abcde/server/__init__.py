"""A small local web server for abcde's browser pages (``abcde judge``, and later an
interactive exploration page): a Starlette app behind a guard that refuses every request
without the secret token (403), bound to loopback on a free port, with the token in the
printed URL (docs/method.md §12.1).

- :mod:`abcde.server.app` — the app factory and the guard (token, host, methods, body
  size, security headers), fixed in-package static files, form bodies read with a limit;
- :mod:`abcde.server.run` — the token, binding (loopback, free port, "port in use" as a
  clean error), serving with uvicorn until Ctrl-C, ``--open`` in a browser.
"""

from __future__ import annotations
