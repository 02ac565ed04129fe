"""The local web server of abcde's browser pages (``abcde judge``, ``abcde explore
--serve``): :mod:`abcde.server.app` is the one guard every request passes (token, Host,
methods, origin, body, headers), :mod:`abcde.server.run` binds loopback on a free port
and serves until Ctrl-C (docs/method.md §12.1)."""
