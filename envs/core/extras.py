"""Optional dependencies of the envs: an import that says which extra to install."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["needs_numba"]


def needs_numba(module: str, attribute: str) -> Any:
    """``module.attribute`` of a module that needs numba; without numba an ``ImportError`` names the extra."""
    try:
        return getattr(importlib.import_module(module), attribute)
    except ModuleNotFoundError as err:
        if err.name != "numba" and not (err.name or "").startswith("numba."):
            raise
        raise ImportError("vector_env needs numba: pip install 'mazzo[vector]'") from err
