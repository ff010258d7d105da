"""Optional dependencies of evaluation: which extra installs each one, checked before any game is played.

A base install (``pip install mazzo``) evaluates the rule-based and random players and prints and saves
the table (JSON, CSV); the rest needs an extra:

| module       | needed for                                              | extra                        |
|--------------|---------------------------------------------------------|------------------------------|
| ``matplotlib`` | the charts ``eval.png`` and ``rating.png`` (without it: a note, and no chart) | ``pip install 'mazzo[plot]'`` |
| ``openskill``  | ratings (``--rating``)                                | ``pip install 'mazzo[train]'`` |
| ``torch``      | trained players (``ppo:PATH``, ``pretrained:GAME``; the default PIMC playouts of Picchetto and four-player Pigugnìn) | ``pip install 'mazzo[train]'`` |
| ``numba``      | the search players (``pimc``, ``pimc-v1``, ``ismcts``) | ``pip install 'mazzo[vector]'`` |
| ``ray``        | ``--backend ray``                                     | ``pip install 'mazzo[ray]'``   |
| ``tqdm``       | the live progress bar on a terminal (without it: a progress line every few deals) | ``pip install 'mazzo[train]'`` |

The command line checks these before the first deal (``require``) and a player that cannot be built
names its extra (``hint``), so a run never plays for minutes and then fails on an import.
"""

from __future__ import annotations

import importlib

from envs.core.errors import ConfigError

__all__ = ["available", "EXTRAS", "MissingDependencyError", "hint", "install_hint", "missing_module", "pyplot", "require"]

#: top-level module -> the extra that installs it (pyproject.toml's [project.optional-dependencies])
EXTRAS = {
    "matplotlib": "plot",
    "openskill": "train",
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tqdm": "train",
    "yaml": "train",
    "numba": "vector",
    "ray": "ray",
}


class MissingDependencyError(ConfigError, ImportError):
    """An optional dependency is not installed; the message names the extra that installs it.

    A ``ConfigError`` (the command line prints one ``error:`` line and exits with status 2) and an
    ``ImportError`` (what a library caller expects of a missing module)."""


def install_hint(module: str) -> str:
    extra = EXTRAS.get(module)
    return f"pip install 'mazzo[{extra}]'" if extra else f"pip install {module}"


def missing_module(err: BaseException) -> str | None:
    """The top-level name of the module whose absence caused ``err`` (through its causes), else None."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, ModuleNotFoundError) and err.name:
            return err.name.partition(".")[0]
        err = err.__cause__ or err.__context__
    return None


def hint(err: BaseException) -> str:
    """``" (needs torch: pip install 'mazzo[train]')"`` for an ImportError caused by a missing module,
    unless its message already says what to install; else ``""``."""
    module = missing_module(err)
    if module is None or "pip install" in str(err):
        return ""
    return f" (needs {module}: {install_hint(module)})"


def available(module: str) -> bool:
    """Whether ``module`` imports (it is imported, so a later import costs nothing)."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def require(module: str, needed_for: str, instead: str = "") -> None:
    """Raise ``MissingDependencyError`` unless ``module`` imports: ``"{needed_for} needs {module}, which is not
    installed: pip install 'mazzo[extra]'"``, then ``" (or {instead})"`` when there is another way."""
    try:
        importlib.import_module(module)
    except ImportError as err:
        raise MissingDependencyError(f"{needed_for} needs {module}, which is not installed: {install_hint(module)}"
                                     + (f" (or {instead})" if instead else "")) from err


def pyplot():
    """``matplotlib.pyplot`` with the file backend (Agg), or a ``MissingDependencyError`` naming the extra."""
    require("matplotlib", "a chart (.png)")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
