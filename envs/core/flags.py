"""Variant flags: each game declares its flags once, and ``resolve_flags`` validates keywords.

A flag has the rule spec's name and default, and either a finite set of allowed values or a
predicate with a human-readable description. Unknown names and invalid values raise
``ConfigError`` naming the key and what is allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from envs.core.errors import ConfigError, UnknownFlagError

__all__ = ["Flag", "resolve_flags", "int_range", "flags_table"]


@dataclass(frozen=True)
class Flag:
    """One documented variant flag.

    ``allowed`` lists the legal values; otherwise ``check`` validates and ``allowed_text``
    describes the legal values in error messages.
    """

    name: str
    default: Any
    doc: str
    allowed: tuple | None = None
    check: Callable[[Any], bool] | None = None
    allowed_text: str = ""

    def validate(self, value: Any, game: str) -> Any:
        if self.allowed is not None:
            # bool is an int subclass: keep True from passing as 1 and vice versa.
            if any(value == a and type(value) is type(a) for a in self.allowed):
                return value
            raise ConfigError(
                f"{game}: invalid value {value!r} for flag '{self.name}'; allowed: "
                + ", ".join(repr(a) for a in self.allowed)
            )
        if self.check is not None and not self.check(value):
            raise ConfigError(f"{game}: invalid value {value!r} for flag '{self.name}'; allowed: {self.allowed_text}")
        return value


def int_range(lo: int, hi: int | None = None) -> Callable[[Any], bool]:
    """Predicate: a Python int (not bool) in ``lo..hi`` (``hi=None``: no upper bound)."""

    def check(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= lo and (hi is None or value <= hi)

    return check


def resolve_flags(specs: Sequence[Flag], given: Mapping[str, Any], game: str) -> dict[str, Any]:
    """Defaults overridden by ``given``; raises ``ConfigError`` on unknown or invalid flags."""
    known = {f.name: f for f in specs}
    unknown = [k for k in given if k not in known]
    if unknown:
        raise UnknownFlagError(f"{game}: unknown flag {unknown[0]!r}; known flags: {', '.join(known)}")
    return {f.name: f.validate(given[f.name], game) if f.name in given else f.default for f in specs}


def flags_table(specs: Sequence[Flag]) -> str:
    """Markdown table of the flags, for docstrings and the README."""
    rows = ["| flag | default | allowed | meaning |", "|---|---|---|---|"]
    for f in specs:
        allowed = ", ".join(repr(a) for a in f.allowed) if f.allowed is not None else f.allowed_text
        rows.append(f"| `{f.name}` | `{f.default!r}` | {allowed} | {f.doc} |")
    return "\n".join(rows)
