"""Seat-relative observation layouts built from one absolute buffer.

An observation module declares its fields once. The environment keeps a single float32
*absolute* buffer per episode (seats numbered as in the engine, one row per seat for private
fields) and updates it incrementally; ``observe(seat)`` is then one NumPy gather with a
precomputed index array, which:

* rotates every seat axis so that the observer is always relative seat 0 (seat ``r`` of the
  observation is absolute seat ``(observer + r) % n``);
* copies only the observer's own row of each private field, so another seat's private data
  can never reach an observation (the no-leak property is structural);
* returns a fresh array, so callers may keep observations without aliasing.

Field kinds:

| kind      | absolute storage        | in the observation                          |
|-----------|-------------------------|---------------------------------------------|
| public    | ``shape``               | as stored                                   |
| seat      | ``shape``, one seat axis | the seat axis rotated to the observer       |
| private   | ``(n, *shape)``          | the observer's own row                      |
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["ObsLayout", "Field", "first_hit", "row_hits"]


@dataclass(frozen=True)
class Field:
    name: str
    kind: str  # "public" | "seat" | "private"
    shape: tuple[int, ...]
    doc: str
    seat_axis: int
    abs_offset: int
    obs_offset: int
    #: number of values (the product of ``shape``), computed once
    size: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", int(math.prod(self.shape)))


class ObsLayout:
    """Declare fields with ``public``/``seat``/``private``, then call ``build()``."""

    def __init__(self, num_players: int):
        self.num_players = num_players
        self.fields: dict[str, Field] = {}
        self.abs_size = 0
        self.obs_size = 0
        self.gather: list[np.ndarray] = []
        # Resolved once per field (decode runs on every heuristic decision): the slice of the
        # observation and the shape to give it (None where the slice already has that shape).
        self._slices: dict[str, slice] = {}
        self._plan: list[tuple[str, slice, tuple[int, ...] | None]] = []
        self._obs_shape = (0,)

    def _add(self, name: str, kind: str, shape: tuple[int, ...], doc: str, seat_axis: int = -1) -> None:
        if name in self.fields:
            raise ValueError(f"duplicate observation field {name!r}")
        f = Field(name, kind, tuple(int(d) for d in shape), doc, seat_axis, self.abs_size, self.obs_size)
        self.fields[name] = f
        sl = slice(f.obs_offset, f.obs_offset + f.size)
        self._slices[name] = sl
        self._plan.append((name, sl, None if len(f.shape) == 1 else f.shape))
        self.obs_size += f.size
        self.abs_size += f.size * (self.num_players if kind == "private" else 1)
        self._obs_shape = (self.obs_size,)

    def public(self, name: str, shape: tuple[int, ...], doc: str) -> None:
        self._add(name, "public", shape, doc)

    def seat(self, name: str, shape: tuple[int, ...], doc: str, seat_axis: int = 0) -> None:
        if shape[seat_axis] != self.num_players:
            raise ValueError(f"field {name!r}: axis {seat_axis} must have {self.num_players} seats")
        self._add(name, "seat", shape, doc, seat_axis)

    def private(self, name: str, shape: tuple[int, ...], doc: str) -> None:
        self._add(name, "private", shape, doc)

    def build(self) -> ObsLayout:
        n = self.num_players
        self.gather = []
        for observer in range(n):
            parts = []
            for f in self.fields.values():
                base = np.arange(f.size, dtype=np.intp).reshape(f.shape)
                if f.kind == "seat":
                    order = (np.arange(n) + observer) % n
                    base = np.take(base, order, axis=f.seat_axis)
                elif f.kind == "private":
                    base = base + observer * f.size
                parts.append(f.abs_offset + base.ravel())
            self.gather.append(np.concatenate(parts) if parts else np.zeros(0, dtype=np.intp))
        return self

    # -- absolute side (the environment writes here) -------------------------------------
    def new_buffer(self) -> np.ndarray:
        return np.zeros(self.abs_size, dtype=np.float32)

    def abs_offset(self, name: str) -> int:
        """Flat offset of a field in the absolute buffer (values in C order from there).

        A private field stores one row per seat: seat ``p``'s row starts ``p * size`` later.
        Observers resolve these once into module constants (``O_HAND = LAYOUT.abs_offset("hand")``)
        and write single values through them on the hot path.
        """
        return self.fields[name].abs_offset

    def abs_view(self, buf: np.ndarray, name: str) -> np.ndarray:
        """Writable view of a field in the absolute buffer (private fields get a leading seat axis)."""
        f = self.fields[name]
        shape = (self.num_players, *f.shape) if f.kind == "private" else f.shape
        count = f.size * (self.num_players if f.kind == "private" else 1)
        return buf[f.abs_offset : f.abs_offset + count].reshape(shape)

    def observe(self, buf: np.ndarray, observer: int) -> np.ndarray:
        """The seat-relative observation of ``observer`` (a new array)."""
        return buf[self.gather[observer]]

    # -- observation side (agents and tests read here) -----------------------------------
    def obs_slice(self, name: str) -> slice:
        return self._slices[name]

    def unpack(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Split an observation vector into its named fields, reshaped (seat axes relative).

        The fields are views of ``obs`` (no copy).
        """
        if obs.shape != self._obs_shape:
            raise ValueError(f"expected an observation of shape ({self.obs_size},), got {obs.shape}")
        return {name: obs[sl] if shape is None else obs[sl].reshape(shape) for name, sl, shape in self._plan}

    def table(self) -> str:
        """Markdown index table of every slice of the observation."""
        rows = ["| slice | field | shape | kind | meaning |", "|---|---|---|---|---|"]
        for f in self.fields.values():
            rows.append(
                f"| {f.obs_offset}:{f.obs_offset + f.size} | `{f.name}` | {f.shape} | {f.kind} | {f.doc} |"
            )
        return "\n".join(rows)


# -- decode helpers (plain Python ints out of the field views; decode runs on every decision) --
def first_hit(row: np.ndarray) -> int | None:
    """Index of the first nonzero value of a small 1-D field (a one-hot seat, card, ...), or None."""
    for i, v in enumerate(row.tolist()):
        if v:
            return i
    return None


def row_hits(a: np.ndarray) -> list[list[int]]:
    """The nonzero column indices of each row of a 2-D field, with one NumPy call for all rows."""
    out: list[list[int]] = [[] for _ in range(a.shape[0])]
    rows, cols = a.nonzero()
    for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
        out[r].append(c)
    return out
