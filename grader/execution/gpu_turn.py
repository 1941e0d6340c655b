"""A benchmark's turn on the GPU alone: the grader's end of the socket common/cml/gpu_turn.hpp asks through.

A benchmark starts CUDA, draws its inputs and computes the expected results beside the other labs' tests,
sanitizers and ncu runs; only its launches need the GPU to themselves. So it runs holding the GPU shared,
and before its first launch it connects to this socket: the hold's take() then trades the shared hold
for the GPU alone (it waits while others hold it), and the one-byte answer lets the program go on. The turn
lasts until the program closes the connection, after its last launch (or ends): give_back() then lets the
others go on while it writes its results. The socket accepts one connection, and only before the first launch
of the harness, which asks before any code under test has run."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

POLL_S = 0.1  # how often the waiting thread looks whether the run is over


@dataclass
class Hold:
    """What the turn does with the GPU lock (grader.execution.gpu_lock.StagedHold, through grade.Steps)."""

    take: Callable[[], None]  # the GPU alone, once the others have let go
    give_back: Callable[[], None]  # and back to them


class GpuTurn:
    """The socket of one program run, served by a thread of its own."""

    def __init__(self, path: Path, hold: Hold) -> None:
        self.path, self.hold = path, hold
        self.given = False  # the program asked, and was given the GPU
        self._waiting_since: float | None = None
        self._waited = 0.0
        self._over = threading.Event()
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(path))
        path.chmod(0o777)  # a sandboxed program may run as nobody
        self._server.listen(1)
        self._server.settimeout(POLL_S)
        self._connection: socket.socket | None = None
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def waited_s(self) -> float:
        """Seconds the program has spent waiting for its turn: they do not count against its time limit."""
        since = self._waiting_since
        return self._waited + (time.monotonic() - since if since is not None else 0.0)

    def _serve(self) -> None:
        while not self._over.is_set():
            try:
                self._connection, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._server.close()  # one turn a run: nothing else may ask once the harness has
            self._waiting_since = time.monotonic()
            self.hold.take()
            self._waited, self._waiting_since = self.waited_s(), None
            self.given = True
            try:
                self._connection.sendall(b"g")
                self._connection.recv(1)  # until the program closes it, or ends
            except OSError:
                pass  # the program ended while it waited
            self.hold.give_back()
            return

    def close(self) -> None:
        """After the program's end: whatever it left open is closed here, and the hold given back."""
        self._over.set()
        connection = self._connection
        if connection is not None:
            try:
                connection.shutdown(socket.SHUT_RDWR)  # ends the thread's wait, if anything still held it open
            except OSError:
                pass
        self._thread.join()
        self._server.close()
        if connection is not None:
            connection.close()


@contextmanager
def served(scratch: Path, hold: Hold | None) -> Iterator[GpuTurn | None]:
    """A turn for the one program run in `scratch`, taken and given back through `hold`, in another thread, if
    the program asks. None where there is no `hold`: a run that need not ask (the CPU emulator, calibrate)."""
    if hold is None:
        yield None
        return
    turn = GpuTurn(scratch / "gpu-turn", hold)
    try:
        yield turn
    finally:
        turn.close()
