"""abcde: how two clusterings differ, and whether the new one is better."""

__version__ = "0.1.0"
