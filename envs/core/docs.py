"""Docstrings whose tables are generated from the code, so that no table is kept twice.

A module docstring marks where a table goes with a placeholder line such as
``{{observation_table}}``, and the module replaces it at import time from the one source of the
table (``LAYOUT.table()``, ``flags_table(FLAGS)``)::

    __doc__ = fill_tables(__doc__, observation_table=LAYOUT.table(), flags_table=flags_table(FLAGS))

``help()``, IDEs and documentation tools then show the current tables.
"""

from __future__ import annotations

__all__ = ["fill_tables", "share_doc"]


def fill_tables(doc: str | None, **tables: str) -> str | None:
    """``doc`` with each ``{{name}}`` placeholder replaced by ``tables[name]``.

    A missing placeholder raises ``ValueError`` (a docstring that lost its table fails at import).
    ``None`` (docstrings stripped by ``python -OO``) stays ``None``.
    """
    if doc is None:
        return None
    for name, table in tables.items():
        marker = "{{" + name + "}}"
        if marker not in doc:
            raise ValueError(f"the docstring has no {marker} placeholder")
        doc = doc.replace(marker, table)
    return doc


def share_doc(doc: str | None, *objects: object) -> None:
    """Append the env module's docstring ``doc`` to each object's own (the ``env()`` factory and
    ``raw_env``), so that ``help(briscola5_v0.env)`` shows the env's documentation, as the README
    promises, and not one line."""
    if doc is None:
        return
    for obj in objects:
        obj.__doc__ = f"{(obj.__doc__ or '').rstrip()}\n{doc}"
