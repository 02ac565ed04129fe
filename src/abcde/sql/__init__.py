"""How SQL is written: quoting, the placeholder helpers, the Jinja templates, the
dialects (every engine difference) and pipelines of named steps. Knows nothing of
clusterings."""
