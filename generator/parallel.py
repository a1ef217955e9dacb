"""Spread work over forked processes when there is enough of it to pay for them.

One way: a `WorkerPool`, forked at the start of a build, before the records
are loaded, to which work goes pickled (workers forked from a process
holding ten thousand records copy most of them as they touch them: reading
an object writes its reference count). Without fork (not Linux) or with
little work, it all runs here.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from multiprocessing.pool import Pool
from typing import TypeVar, cast

Item = TypeVar("Item")
Result = TypeVar("Result")
Setup = TypeVar("Setup")
State = TypeVar("State")

MIN_PER_PROCESS = 40  # below this many items per worker, forking costs more than it saves


def worker_count(jobs: int, items: int) -> int:
    wanted = jobs or os.cpu_count() or 1
    return max(1, min(wanted, items // MIN_PER_PROCESS))


@contextmanager
def collector_paused() -> Iterator[None]:
    """Hold off Python's cycle collector while a build, or a parse that is kept, makes its
    long-lived objects.

    Loading hundreds of thousands of them had the collector walk all of them
    again and again (a history's parses too: each one counted towards the next
    walk of everything held); what was made goes to the oldest generation when
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


class WorkerPool:
    """Worker processes forked when a build starts, while this process is small, if it has
    enough records for them (`expected`); what they work on reaches them pickled: `setup`
    once per worker (through a file), items by chunk."""

    def __init__(self, jobs: int, expected: int) -> None:
        self.size = jobs or os.cpu_count() or 1
        self.pool: Pool | None = None
        if worker_count(self.size, expected) > 1:
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
        here: State | None = None,
    ) -> Iterator[Result]:
        """work(start(setup), chunk) over the items; results in any order, as they come.
        `here`: the state to work with when the work stays in this process."""
        if self.pool is None and worker_count(self.size, len(items)) > 1:
            self.start()
        if self.pool is None or worker_count(self.size, len(items)) <= 1:
            state = start(setup) if here is None else here
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
