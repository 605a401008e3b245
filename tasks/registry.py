"""The executable suite: every family's instances, checked before anyone runs them."""
from __future__ import annotations

import fnmatch
from functools import lru_cache

from grader.evaluator import validate_evaluator
from grader.grade import noop_would_pass

from .families import FAMILIES
from .model import Task


@lru_cache(maxsize=1)
def all_tasks() -> tuple[Task, ...]:
    """Every instance of every family, in a stable order; refuses a task a do-nothing agent passes."""
    from seeds.book import load_book

    book = load_book()
    tasks: list[Task] = []
    for family in FAMILIES:
        tasks.extend(family.instances(book))
    seen = set()
    for task in tasks:
        if task.instance_id in seen:
            raise ValueError(f"duplicate instance id {task.instance_id}")
        seen.add(task.instance_id)
        validate_evaluator(task.evaluator)
        if noop_would_pass(task.evaluator):
            raise ValueError(f"{task.instance_id}: a do-nothing agent would pass this evaluator")
    return tuple(sorted(tasks, key=lambda t: t.instance_id))


def select(pattern: str | None = None) -> list[Task]:
    """Tasks whose instance id or family matches a glob (e.g. 'cf_H_*' or 'C_invoice_code')."""
    tasks = list(all_tasks())
    if not pattern:
        return tasks
    chosen = [t for t in tasks if fnmatch.fnmatch(t.instance_id, pattern) or fnmatch.fnmatch(t.family, pattern)]
    if not chosen:
        raise LookupError(f"no task matches {pattern!r}")
    return chosen


def get(instance_id: str) -> Task:
    for task in all_tasks():
        if task.instance_id == instance_id:
            return task
    raise LookupError(f"no task {instance_id!r}")
