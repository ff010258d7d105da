"""Variant flags: each game declares its flags once, and ``resolve_flags`` validates keywords.

A flag has the rule spec's name and default, and either a finite set of allowed values or a
predicate with a human-readable description. Unknown names and invalid values raise
``ConfigError`` naming the key and what is allowed.

One rule for numbers: wherever a number is allowed, any Python or NumPy integer or real is
accepted and stored as a plain Python ``int`` or ``float`` (``plain_number``); an integral
real such as ``70.0`` counts as the int ``70`` where an int is required. Bools are not numbers
here, and neither are arrays, strings or numbers that do not fit a finite float.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.core.errors import ConfigError, UnknownFlagError

__all__ = ["Flag", "resolve_flags", "int_range", "real_number", "seat_or_random", "plain_number", "plain_value", "flags_table"]

_NOT_A_NUMBER = object()


def plain_number(value: Any) -> Any:
    """``value`` as a finite Python ``int`` or ``float``, or ``_NOT_A_NUMBER``.

    Python and NumPy integers become ``int`` and reals ``float`` (``int_range`` turns an
    integral float into an int where an int is required). Bools, arrays, strings and values
    that no finite float can hold are not numbers.
    """
    if isinstance(value, (bool, np.bool_)):
        return _NOT_A_NUMBER
    if isinstance(value, numbers.Integral):
        value = int(value)
        try:  # a reward or threshold must survive float arithmetic: refuse what no float can hold
            float(value)
        except OverflowError:
            return _NOT_A_NUMBER
        return value
    if isinstance(value, numbers.Real):
        try:
            value = float(value)
        except (OverflowError, ValueError):
            return _NOT_A_NUMBER
        return value if math.isfinite(value) else _NOT_A_NUMBER
    return _NOT_A_NUMBER


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def plain_value(value: Any) -> Any:
    """NumPy scalars as Python scalars (``np.int64(1)`` -> ``1``, ``np.bool_(True)`` -> ``True``)."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.generic) and not isinstance(value, (np.str_, np.bytes_)):
        number = plain_number(value)
        return value if number is _NOT_A_NUMBER else number
    return value


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
        value = plain_value(value)
        if self.allowed is not None:
            # bool is an int subclass: keep True from passing as 1 and vice versa. The type test
            # comes first so that an array is never compared element-wise.
            if isinstance(value, float) and value.is_integer():
                value = int(value)  # 5.0 is the allowed 5, as anywhere a number is allowed
            if any(type(value) is type(a) and value == a for a in self.allowed):
                return value
            raise ConfigError(
                f"{game}: invalid value {shown(value)} for flag '{self.name}'; allowed: "
                + ", ".join(repr(a) for a in self.allowed)
            )
        if self.check is not None:
            coerce = getattr(self.check, "coerce", None)
            if coerce is not None:
                value = coerce(value)
            try:
                ok = bool(self.check(value))
            except (TypeError, ValueError, OverflowError):
                ok = False
            if not ok:
                raise ConfigError(
                    f"{game}: invalid value {shown(value)} for flag '{self.name}'; allowed: {self.allowed_text}"
                )
        return value


class int_range:  # noqa: N801 - reads as a predicate in the flag tables: check=int_range(1, 59)
    """Predicate: an integer (Python or NumPy, or an integral real; not a bool) in ``lo..hi``.

    ``coerce`` turns an accepted value into a Python ``int`` before the check, so the flag is
    stored as a plain int; ``hi=None`` means no upper bound.
    """

    def __init__(self, lo: int, hi: int | None = None):
        self.lo, self.hi = lo, hi

    @staticmethod
    def coerce(value: Any) -> Any:
        number = plain_number(value)
        if isinstance(number, float) and number.is_integer():
            return int(number)
        return number if isinstance(number, int) else value

    def __call__(self, value: Any) -> bool:
        number = plain_number(self.coerce(value))
        return isinstance(number, int) and number >= self.lo and (self.hi is None or number <= self.hi)


class real_number:  # noqa: N801 - a predicate, like int_range
    """Predicate: any finite Python or NumPy integer or real (not a bool), stored as a Python number."""

    @staticmethod
    def coerce(value: Any) -> Any:
        number = plain_number(value)
        return value if number is _NOT_A_NUMBER else number

    def __call__(self, value: Any) -> bool:
        return plain_number(value) is not _NOT_A_NUMBER


class seat_or_random:  # noqa: N801 - a predicate, like int_range
    """Predicate: the string ``"random"`` or a seat number ``0..max_seat`` (any integer type)."""

    def __init__(self, max_seat: int):
        self.seat = int_range(0, max_seat)

    def coerce(self, value: Any) -> Any:
        return value if isinstance(value, str) else self.seat.coerce(value)

    def __call__(self, value: Any) -> bool:
        return value == "random" if isinstance(value, str) else self.seat(value)


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
