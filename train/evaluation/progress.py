"""Progress of an evaluation on stderr: a live bar on a terminal, lines when the output is a file or a pipe.

| stderr                     | what is shown                                                        |
|----------------------------|----------------------------------------------------------------------|
| a terminal, tqdm installed | a tqdm bar, updated as the deals finish                              |
| anything else, or ``every`` given | a line every ``every`` deals (default: a tenth of them) and at least every ``INTERVAL`` seconds (10) while deals are being played; the last line when all are done |

A line reads ``briscola5: 40/100 deals (40%), 12.5 s, about 18.7 s left``. Lines go to stderr, so
stdout keeps only the table and the saved paths (``... | tee log`` still shows the bar on the terminal).
"""

from __future__ import annotations

import math
import sys
import threading
import time
from typing import TextIO

__all__ = ["progress", "LineProgress", "INTERVAL"]

#: seconds without a line after which a line is printed anyway (a slow deal, a large chunk)
INTERVAL = 10.0


class NoProgress:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n: int = 1) -> None:
        pass


class LineProgress:
    """A line every ``every`` finished deals and, from a timer thread, whenever ``interval`` seconds pass
    without one; a last line when all are done."""

    def __init__(self, total: int, desc: str, every: int | None = None, interval: float = INTERVAL,
                 stream: TextIO | None = None):
        self.total, self.desc = total, desc
        self.every = max(1, int(every) if every else math.ceil(total / 10))
        self.interval = interval
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._start = self._last = time.monotonic()
        self._timer: threading.Thread | None = None

    def __enter__(self):
        self._start = self._last = time.monotonic()
        self._timer = threading.Thread(target=self._tick, name="evaluation-progress", daemon=True)
        self._timer.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._timer is not None:
            self._timer.join()
        return False

    def update(self, n: int = 1) -> None:
        with self._lock:
            before, self.done = self.done, self.done + n
            if self.done // self.every > before // self.every or self.done == self.total:
                self._line()

    def _tick(self) -> None:
        while not self._stop.wait(0.5):
            with self._lock:
                if self.done < self.total and time.monotonic() - self._last >= self.interval:
                    self._line()

    def _line(self) -> None:
        now = time.monotonic()
        elapsed = now - self._start
        text = f"{self.desc}: {self.done}/{self.total} deals ({100 * self.done // self.total}%), {elapsed:.1f} s"
        if 0 < self.done < self.total:
            text += f", about {elapsed * (self.total - self.done) / self.done:.1f} s left"
        print(text, file=self.stream, flush=True)
        self._last = now


def progress(total: int, desc: str, enabled: bool, every: int | None = None):
    """The progress display of ``total`` deals (see the module docstring); nothing when not ``enabled``."""
    if not enabled:
        return NoProgress()
    if sys.stderr.isatty() and every is None:
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            return tqdm(total=total, unit="deal", desc=desc)
    return LineProgress(total, desc, every)
