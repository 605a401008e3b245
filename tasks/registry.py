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


class UnknownSelector(LookupError):
    """A `tag:` or `app:` term naming no known tag or app (the message lists the known ones)."""


def _term_matcher(term: str):
    """A predicate for one selector term: `tag:NAME`, `app:NAME`, or a glob over ids and families."""
    from .tags import known_tags, tags_of

    if term.startswith("tag:"):
        tag = term[4:]
        if tag not in known_tags():
            raise UnknownSelector(f"unknown tag {tag!r}; known tags: {', '.join(known_tags())}")
        return lambda t: tag in tags_of(t.apps)
    if term.startswith("app:"):
        from portals.core.registry import load_apps

        app = term[4:]
        if app not in load_apps():
            raise UnknownSelector(f"unknown app {app!r}; known apps: {', '.join(load_apps())}")
        return lambda t: app in t.apps
    return lambda t: fnmatch.fnmatch(t.instance_id, term) or fnmatch.fnmatch(t.family, term)


def filter_tasks(tasks, pattern: str | None) -> list:
    """The tasks a `--tasks` selector names, in their given order: a comma-separated union of
    globs over instance ids or families ('cf_H_*', 'C_invoice_code'), tags ('tag:pm',
    'tag:pm:ressio', 'tag:cross-system'; tasks/tags.py) and apps ('app:ressio'). A term that
    selects nothing is an error, as is an unknown tag or app (UnknownSelector)."""
    tasks = list(tasks)
    if not pattern:
        return tasks
    terms = [term.strip() for term in pattern.split(",")]
    if not all(terms):
        raise UnknownSelector(f"empty term in --tasks {pattern!r}")
    chosen: set[int] = set()
    for term in terms:
        match = _term_matcher(term)
        hits = {n for n, t in enumerate(tasks) if match(t)}
        if not hits:
            raise LookupError(f"no task matches {term!r}", term)
        chosen |= hits
    return [t for n, t in enumerate(tasks) if n in chosen]


def select(pattern: str | None = None) -> list[Task]:
    """The suite's tasks a `--tasks` selector names (filter_tasks), e.g. 'cf_H_*' or 'tag:pm'."""
    return filter_tasks(all_tasks(), pattern)


def get(instance_id: str) -> Task:
    for task in all_tasks():
        if task.instance_id == instance_id:
            return task
    raise LookupError(f"no task {instance_id!r}")
