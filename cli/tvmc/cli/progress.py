"""A one-line `tvmc: stage… 3.1 s` ticker on stderr for compile and run, only on a terminal (quiet
when stderr is piped or redirected); warnings that arrive meanwhile are printed above it."""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType

from tvmc.cli.common import warn as print_warning


class Progress:
    def __init__(self, enabled: bool, first: str = "starting") -> None:
        self.enabled = enabled
        self.name = first
        self.start = time.perf_counter()
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._tick, daemon=True)

    def __enter__(self) -> Progress:
        if self.enabled:
            self.thread.start()
        return self

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        if self.enabled:
            self.done.set()
            self.thread.join()
            self._clear()

    def stage(self, name: str) -> None:
        self.name = name

    def warn(self, message: str) -> None:
        with self.lock:
            if self.enabled:
                self._clear()
            print_warning(message)

    def _clear(self) -> None:
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()

    def _tick(self) -> None:
        while not self.done.wait(0.2):
            with self.lock:
                sys.stderr.write(f"\r\033[Ktvmc: {self.name}… {time.perf_counter() - self.start:.1f} s")
                sys.stderr.flush()
