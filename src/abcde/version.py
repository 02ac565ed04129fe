"""The version of abcde (a module of its own, so that every module can read it without
importing the package's public API)."""

__version__ = "0.1.0"
