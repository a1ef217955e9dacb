"""Spread work over forked processes when there is enough of it to pay for them.

`fork_map` forks its workers on the spot, so they inherit what this process
holds (the snippets, a closure's state) without sending it; only each
chunk's results come back, pickled, down a pipe per worker: for work that
starts while the process is small (validating records). `WorkerPool` is
forked at the start of a build, before the records are loaded, and its work
reaches it pickled: workers forked from a process holding ten thousand
records copy most of them as they touch them (reading an object writes its
reference count). Without fork (not Linux) or with little work, it all runs
here.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import selectors
import signal
import struct
import tempfile
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import partial
from multiprocessing.pool import Pool
from typing import TypeVar, cast

Item = TypeVar("Item")
Result = TypeVar("Result")
Setup = TypeVar("Setup")
State = TypeVar("State")

MIN_PER_PROCESS = 40  # below this many items per worker, forking costs more than it saves
FRAME = struct.Struct("<Q")  # each message down a pipe: its length, then its pickle


def worker_count(jobs: int, items: int) -> int:
    wanted = jobs or os.cpu_count() or 1
    return max(1, min(wanted, items // MIN_PER_PROCESS))


@contextmanager
def collector_paused() -> Iterator[None]:
    """Hold off Python's cycle collector while a build makes its long-lived objects.

    Loading hundreds of thousands of them had the collector walk all of them
    again and again; what the build made goes to the oldest generation when
    it ends, so the next collection does not walk it all once more.
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
    """Apply `work` to chunks of items, in forked workers when worthwhile; results as they
    come, in any order. What `work` raises in a worker is raised here."""
    chunks = [list(items[i : i + chunk]) for i in range(0, len(items), chunk)]
    workers = worker_count(jobs, len(items))
    if workers <= 1 or not hasattr(os, "fork"):
        for part in chunks:
            yield from work(part)
        return
    children: dict[int, int] = {}  # reading end of its pipe -> pid
    try:
        gc.freeze()  # what exists now is out of the collector's sight: no copies in the workers
        try:
            for index in range(workers):
                reading, writing = os.pipe()
                pid = os.fork()
                if pid == 0:
                    os.close(reading)
                    for other in children:
                        os.close(other)
                    run_worker(work, chunks[index::workers], writing)
                os.close(writing)
                children[reading] = pid
        finally:
            gc.unfreeze()
        finished = set()
        for reading, message in messages(children):
            ok, value = pickle.loads(message)
            if not ok:
                raise value
            if value is None:  # the worker's last word: all its chunks were sent
                finished.add(reading)
            else:
                yield from value
        if len(finished) < len(children):
            raise RuntimeError("a worker process ended before it finished its work")
    finally:
        for reading, pid in children.items():
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)  # (one that finished has ended already)
            with suppress(OSError):
                os.waitpid(pid, 0)
            os.close(reading)


def run_worker(
    work: Callable[[list[Item]], list[Result]], chunks: list[list[Item]], out: int
) -> None:
    """In a worker: send each chunk's results, or what went wrong, then end at once."""
    try:
        gc.enable()
        for part in chunks:
            send(out, (True, work(part)))
        send(out, (True, None))
    except BaseException as exc:
        try:
            send(out, (False, exc))
        except Exception:  # an exception that does not pickle
            send(out, (False, RuntimeError(f"a worker failed:\n{traceback.format_exc()}")))
    finally:
        os._exit(0)


def send(out: int, value: object) -> None:
    data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    view = memoryview(FRAME.pack(len(data)) + data)
    while view:
        view = view[os.write(out, view) :]


def messages(children: dict[int, int]) -> Iterator[tuple[int, bytes]]:
    """Every message the workers send, as it is whole, from whichever pipe has one."""
    buffers = {reading: bytearray() for reading in children}
    with selectors.DefaultSelector() as selector:
        for reading in children:
            selector.register(reading, selectors.EVENT_READ)
        while buffers:
            for key, _ in selector.select():
                reading = int(key.fd)
                data = os.read(reading, 1 << 20)
                buffer = buffers[reading]
                if not data:
                    selector.unregister(reading)
                    del buffers[reading]
                    if buffer:
                        raise RuntimeError("a worker ended in the middle of sending")
                    continue
                buffer += data
                while len(buffer) >= FRAME.size:
                    (length,) = FRAME.unpack_from(buffer)
                    if len(buffer) < FRAME.size + length:
                        break
                    yield reading, bytes(buffer[FRAME.size : FRAME.size + length])
                    del buffer[: FRAME.size + length]


class WorkerPool:
    """Worker processes forked when a build starts, while this process is small, if it has
    enough records for them (`expected`); what they work on reaches them pickled: `setup`
    once per worker (through a file), items by chunk.

    With `early` False (a process that is large already: `serve`, holding the
    cache between rebuilds, where most rebuilds render a page or two), they
    are forked only when a map has enough items for them.
    """

    def __init__(self, jobs: int, expected: int, early: bool = True) -> None:
        self.size = jobs or os.cpu_count() or 1
        self.pool: Pool | None = None
        if early and worker_count(self.size, expected) > 1:
            self.start()

    def start(self) -> None:
        if not hasattr(os, "fork"):
            return
        gc.freeze()  # out of the workers' collector's sight: its walks copy nothing
        try:
            self.pool = multiprocessing.get_context("fork").Pool(self.size, initializer=gc.enable)
        finally:
            gc.unfreeze()

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
        if self.pool is None and worker_count(self.size, len(items)) > 1:
            self.start()
        if self.pool is None or worker_count(self.size, len(items)) <= 1:
            state = start(setup)
            for index in range(0, len(items), chunk):
                yield from work(state, list(items[index : index + chunk]))
            return
        with tempfile.NamedTemporaryFile(prefix="errpages-setup-", suffix=".pickle") as stream:
            pickle.dump(setup, stream, protocol=pickle.HIGHEST_PROTOCOL)
            stream.flush()
            job = partial(run_chunk, work, start, stream.name)
            chunks = [list(items[i : i + chunk]) for i in range(0, len(items), chunk)]
            for results in self.pool.imap_unordered(job, chunks):
                yield from results


# In a worker process only: the setup file it read last, and the state made from it.
WORKER_STATE: dict[str, object] = {}


def run_chunk(
    work: Callable[[State, list[Item]], list[Result]],
    start: Callable[[Setup], State],
    setup_file: str,
    chunk: list[Item],
) -> list[Result]:
    if setup_file not in WORKER_STATE:
        WORKER_STATE.clear()
        with open(setup_file, "rb") as stream:
            WORKER_STATE[setup_file] = start(pickle.load(stream))
    return work(cast(State, WORKER_STATE[setup_file]), chunk)
