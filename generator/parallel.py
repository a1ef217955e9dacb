"""Spread work over forked processes when there is enough of it to pay for them.

Three ways. `fork_map` forks workers on the spot, so they inherit the caller's
state (the snippets, for validation) without pickling it; only each chunk's
items and results cross the process boundary. `WorkerPool` forks its workers
at the start of a build, before the cache and records are loaded, and sends
them their work by pickling: forked late, workers end up with copies of
everything the parent holds. A `Helper` is one child forked late on purpose,
for a piece of site-wide work that needs everything the build knows and runs
beside the rest of the build. `Background` runs a call in a thread, for work
that mostly waits on the kernel. Without fork (not Linux) or with little
work, it all runs here.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import signal
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import partial
from multiprocessing.pool import Pool
from typing import Any, Generic, TypeVar, cast

Item = TypeVar("Item")
Setup = TypeVar("Setup")
State = TypeVar("State")
Result = TypeVar("Result")

MIN_PER_PROCESS = 40  # below this many items per worker, forking costs more than it saves


def worker_count(jobs: int, items: int) -> int:
    wanted = jobs or os.cpu_count() or 1
    return max(1, min(wanted, items // MIN_PER_PROCESS))


@contextmanager
def collector_paused() -> Iterator[None]:
    """Hold off Python's cycle collector in this process (workers run theirs as usual).

    Loading the cache builds hundreds of thousands of long-lived objects, and
    the collector walked all of them again and again while it did: 0.5 s of a
    0.7 s load at ten thousand records. A build is short and its garbage is
    freed by reference counting; collection resumes when it ends, with what
    the build made already in the oldest generation: left young, all of it
    was walked by the first collection after the build (75 ms at ten thousand
    records, once the work was done).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()  # every tracked object, the young ones too, set aside at once...
        gc.unfreeze()  # ...and given back, to the oldest generation
        if was_enabled:
            gc.enable()


def fork_map(
    work: Callable[[list[Item]], list[Result]], items: Sequence[Item], jobs: int, chunk: int = 25
) -> Iterator[Result]:
    """Apply `work` to chunks of items, in forked workers when worthwhile; results as they come."""
    chunks = [list(items[i : i + chunk]) for i in range(0, len(items), chunk)]
    workers = worker_count(jobs, len(items))
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for part in chunks:
            yield from work(part)
        return
    with forked_pool(workers) as pool:
        for results in pool.imap_unordered(work, chunks):
            yield from results


def forked_pool(workers: int) -> Pool:
    """A pool of forked workers, each with the cycle collector on (the build pauses its own).

    Objects that exist at the fork are moved out of the collector's sight
    while forking, so the workers' collections neither walk them nor copy
    the pages they live on.
    """
    gc.freeze()
    try:
        return multiprocessing.get_context("fork").Pool(workers, initializer=gc.enable)
    finally:
        gc.unfreeze()


class WorkerPool:
    """Worker processes forked early, while this process is still small.

    A forked worker shares its parent's pages only until it touches them, and
    reading an object touches it (its reference count): workers forked from
    a process holding ten thousand records soon held copies of them. These
    are forked before the records are loaded; what they work on reaches them
    by pickling: `setup` once per worker (through a file), items by chunk.

    Not when the build expects to render a few pages (`early` False: an edit,
    which renders them here): forking and ending the workers, and the page
    copies this process then makes while they live, cost an edit 60 ms at ten
    thousand records. Should it find many to render after all, they are forked
    then, late.
    """

    def __init__(self, jobs: int, early: bool = True) -> None:
        self.size = jobs or os.cpu_count() or 1
        self.pool: Pool | None = None
        self.forkable = self.size > 1 and "fork" in multiprocessing.get_all_start_methods()
        if early and self.forkable:
            self.pool = forked_pool(self.size)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()

    def map(
        self,
        work: Callable[[State, list[Item]], list[Result]],
        start: Callable[[Setup], State],
        setup: Setup,
        items: Sequence[Item],
        chunk: int = 25,
    ) -> Iterator[Result]:
        """work(start(setup), chunk) over the items; results in any order, as they come."""
        if self.forkable and self.pool is None and worker_count(self.size, len(items)) > 1:
            self.pool = forked_pool(self.size)  # more to do than expected: forked late
        if self.pool is None or worker_count(self.size, len(items)) <= 1:
            state = start(setup)
            for index in range(0, len(items), chunk):
                yield from work(state, list(items[index : index + chunk]))
            return
        with tempfile.NamedTemporaryFile(prefix="errpages-setup-", suffix=".pickle") as stream:
            pickle.dump(setup, stream, protocol=pickle.HIGHEST_PROTOCOL)
            stream.flush()
            job = partial(_run_chunk, work, start, stream.name)
            chunks = [list(items[i : i + chunk]) for i in range(0, len(items), chunk)]
            for results in self.pool.imap_unordered(job, chunks):
                yield from results


_STATE: tuple[str, object] | None = None  # in a worker: the setup file it read, and its state


def _run_chunk(
    work: Callable[[State, list[Item]], list[Result]],
    start: Callable[[Setup], State],
    setup_file: str,
    chunk: list[Item],
) -> list[Result]:
    global _STATE
    if _STATE is None or _STATE[0] != setup_file:
        with open(setup_file, "rb") as stream:
            _STATE = (setup_file, start(pickle.load(stream)))
    return work(cast(State, _STATE[1]), chunk)


FORK_WORTH = 2000  # below this many records, a helper process costs more than it saves


# A helper runs at a lower priority than the build: with the build, the other helper and the
# render workers on two cores, the build's own work (reading the cache above all) is what an
# edit waits for. Measured: the cache read went from 0.17 s to 0.11-0.13 s at ten thousand
# errors, more than the build then waits at the end for a helper finishing later.
HELPER_NICENESS = 5


class Then(Generic[Result]):
    """A helper's result, and work its child does once the result is sent (keeping something
    for the next build): this process does not wait for it until the helper is done with."""

    def __init__(self, result: Result, then: Callable[[], object]) -> None:
        self.result, self.then = result, then


class Helper(Generic[Result]):
    """Work done in a forked child while this process goes on; its result comes back in a file.

    The child sees everything this process holds (without copying it), so
    what it needs is not sent; only the result is pickled back, into an
    unlinked temporary file rather than a pipe (a child with megabytes to
    send would wait on a pipe until this process asked for them); a byte
    down a pipe says it is there. Work that returns `Then` has its child go
    on after sending the result; the child is waited for when the helper is
    done with (its `with` block ends). Where fork is missing, or `worth` is
    False, the work is done here, at once. The work must not use this
    process's open database connections or print.
    """

    def __init__(self, work: Callable[[], Result | Then[Result]], worth: bool = True) -> None:
        self.pid = 0
        self.sent = False  # the result was taken: the child is doing what comes after
        self.value: Result | None = None
        if not worth or not hasattr(os, "fork"):
            value = work()
            if isinstance(value, Then):
                value.then()
                value = value.result
            self.value = value
            return
        # Closed by result() or __exit__.
        self.file = tempfile.TemporaryFile(prefix="errpages-helper-")  # noqa: SIM115
        self.ready, ready = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: run, send, and leave at once (no cleanup of the parent's)
            os.close(self.ready)
            with suppress(OSError):
                os.nice(HELPER_NICENESS)
            after: Then[Result] | None = None
            try:
                value = work()
                if isinstance(value, Then):
                    after, value = value, value.result
                outcome: tuple[bool, object] = (True, value)
            except BaseException:
                outcome = (False, traceback.format_exc())
            try:
                pickle.dump(outcome, self.file, protocol=pickle.HIGHEST_PROTOCOL)
                self.file.flush()
                os.write(ready, b".")
                os.close(ready)
                if after is not None:
                    after.then()
            finally:
                os._exit(0)
        os.close(ready)
        self.pid = pid

    def result(self) -> Result:
        """Wait for the child's result and return it (raise what it raised)."""
        if not self.pid:
            return cast(Result, self.value)
        try:
            os.read(self.ready, 1)  # the byte, or the end of the pipe: the child ended without
            self.sent = True
            self.file.seek(0)  # the child wrote through the same open file, offset and all
            data = self.file.read()
        finally:
            self.file.close()
            self.close_ready()
        if not data:
            raise RuntimeError("a helper process ended without a result")
        ok, value = pickle.loads(data)
        if not ok:
            raise RuntimeError(f"a helper process failed:\n{value}")
        return cast(Result, value)

    def close_ready(self) -> None:
        """Close this end of the pipe the child signals on, once (its number may be reused)."""
        if self.ready >= 0:
            with suppress(OSError):
                os.close(self.ready)
            self.ready = -1

    def __enter__(self) -> Helper[Result]:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.pid:
            return
        if not self.sent:  # given up on: stop it, and leave nothing behind
            with suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            self.file.close()
            self.close_ready()
        with suppress(OSError):  # (one that sent its result ends what it does after)
            os.waitpid(self.pid, 0)
        self.pid = 0


class WaitingHelper(Generic[Result]):
    """A `Helper` forked now whose work waits, partway, for word from this process (`send`).

    The work gets a `receive` to call: it returns the message sent, or None
    if this process decided it does not need the work (`cancel`). Until
    then the child does what needs no message, such as reading files. Forked
    early, while this process is small: every page a process writes after a
    fork costs it a fault and a copy while the child lives, and a child
    forked from a process holding the loaded cache cost that process
    tens of thousands of them. The message goes through an unlinked file, so
    sending it never waits for the child; a byte down a pipe says it is there.
    Needs fork (`available`).
    """

    def __init__(self, work: Callable[[Callable[[], Any]], Result | Then[Result]]) -> None:
        self.letter = tempfile.TemporaryFile(prefix="errpages-message-")  # noqa: SIM115
        reading, self.signal = os.pipe()
        self.signalled = False

        def run() -> Result | Then[Result]:  # in the child: close its copy of the signal end
            os.close(self.signal)
            return work(partial(_receive, reading, self.letter.fileno()))

        self.helper = Helper(run)
        os.close(reading)

    @staticmethod
    def available() -> bool:
        return hasattr(os, "fork")

    def send(self, message: object) -> None:
        os.pwrite(self.letter.fileno(), pickle.dumps(message, pickle.HIGHEST_PROTOCOL), 0)
        self._signal()

    def cancel(self) -> None:
        self._signal()  # with nothing written: the child receives None

    def _signal(self) -> None:
        # A byte, not just the end of the pipe: children forked meanwhile hold copies of it.
        if not self.signalled:
            self.signalled = True
            os.write(self.signal, b".")
            os.close(self.signal)

    def result(self) -> Result:
        self._signal()
        try:
            return self.helper.result()
        finally:
            self.letter.close()

    def __enter__(self) -> WaitingHelper[Result]:
        return self

    def __exit__(self, *exc: object) -> None:
        self._signal()
        self.helper.__exit__()
        self.letter.close()


def _receive(reading: int, letter: int) -> Any:
    """In a waiting helper: wait for the byte that says the message is written (or for the end
    of the pipe: the build ended without a word), then read the message."""
    os.read(reading, 1)
    os.close(reading)
    data = os.pread(letter, os.fstat(letter).st_size, 0)
    return pickle.loads(data) if data else None


# While a background thread runs Python, a thread back from a system call waits for the
# interpreter's lock until the switch interval (5 ms by default) has passed: staging files
# (hundreds of calls) beside the dump thread lost 15 ms on reading one template.
BACKGROUND_SWITCH_INTERVAL = 0.0005


class Background(Generic[Result]):
    """A call run in a thread: for work that mostly waits on the kernel (copying files),
    which lets this thread's Python run meanwhile. Until its result is taken, threads
    take turns more often (`BACKGROUND_SWITCH_INTERVAL`)."""

    def __init__(self, work: Callable[..., Result], *args: object) -> None:
        self.outcome: tuple[bool, object] | None = None
        self.interval = sys.getswitchinterval()
        sys.setswitchinterval(BACKGROUND_SWITCH_INTERVAL)
        self.thread = threading.Thread(target=self._run, args=(work, args), daemon=True)
        self.thread.start()

    def _run(self, work: Callable[..., Result], args: tuple[object, ...]) -> None:
        try:
            self.outcome = (True, work(*args))
        except BaseException as exc:
            self.outcome = (False, exc)

    def result(self) -> Result:
        self.thread.join()
        sys.setswitchinterval(self.interval)
        assert self.outcome is not None
        ok, value = self.outcome
        if not ok:
            raise cast(BaseException, value)
        return cast(Result, value)
