"""Spread work over forked processes when there is enough of it to pay for them.

Workers are forked, so they inherit the caller's state (the site, the
snippets) without pickling it; only each chunk's items and results cross the
process boundary. Without fork (not Linux) or with little work, it all runs here.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

MIN_PER_PROCESS = 40  # below this many items per worker, forking costs more than it saves


def worker_count(jobs: int, items: int) -> int:
    wanted = jobs or os.cpu_count() or 1
    return max(1, min(wanted, items // MIN_PER_PROCESS))


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
    # Objects that exist before the fork are moved out of the collector's sight, so
    # the workers' collections neither walk them nor copy the pages they live on.
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for results in pool.imap_unordered(work, chunks):
                yield from results
    finally:
        gc.unfreeze()
