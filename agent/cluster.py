"""`cfab run --backend ray`: a sweep's runs spread over the workers of a Ray cluster.

Each worker is a Ray actor that owns what one local sweep owns, a `Harness`: its own episode
store (or, for `--transport http`, its own client of the `--server` processes) and, for the
browser transport, its own portal server and Chromium. It runs one attempt at a time through
the same single episode lifecycle (`Harness.attempt`, the part of `run_one` before the judge)
and hands the run back. The driver, `agent.runner.run_suite`, does the rest exactly as for a
local sweep: judge, transcripts, journal, cost ceiling, tally. Nothing here grades or counts.

A worker that dies mid-run (its process killed, its node lost) loses only the run it held:
that run goes back to the front of the queue and is run again on another worker, up to
`retries` times; a run whose workers keep dying is recorded as an infrastructure error (left
out of pass^k, as a provider outage is). A dead worker is replaced while replacements last;
if none is left the sweep stops early, and `--resume` runs what was not run. A finished run
is delivered once: the runner refuses a second finish of the same (task, attempt).

Every worker must build the same world: the driver sends its clock and run seed, and each
worker answers with the world it built (clock, seeds, a digest of the book and of the
sweep's task records); a worker whose answer differs (another checkout on another node) is
refused before any run starts.

Without an address Ray starts on this machine (no dashboard, a small object store, as many
CPUs as workers); `address` joins a running cluster (`ray start --head` on one machine,
`ray start --address HEAD:6379` on the others, the same checkout installed on each).
"""
from __future__ import annotations

import hashlib
import json
import os
import socket
from collections import Counter
from types import SimpleNamespace

OBJECT_STORE_MB = 128  # runs are small JSON-like dicts; the default (30% of memory) is not needed
START_TIMEOUT_S = 300.0


class RayUnavailable(RuntimeError):
    """Ray is not installed (the `ray` extra)."""


class WorldMismatch(RuntimeError):
    """A worker built another world (clock, seeds, book or task records) than the driver."""


def _ray():
    try:
        import ray
    except ImportError:
        raise RayUnavailable("the Ray backend needs Ray: pip install 'cfagentbench[ray]'") from None
    return ray


def _loopback_only() -> None:
    """A Ray started for a one-machine sweep talks over 127.0.0.1, as Ray does on macOS; on
    Linux Ray would advertise the machine's network address to its own processes. (Set
    before Ray is imported, for the processes it starts; and on its constants if imported.)"""
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    import sys

    constants = sys.modules.get("ray._private.ray_constants")
    if constants is not None and os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] == "0":
        constants.ENABLE_RAY_CLUSTER = False


def _reachable(address: str, timeout: float = 10.0) -> None:
    """A HOST:PORT that nothing answers is refused at once (Ray itself would retry for minutes)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return  # 'auto', ray://...: Ray finds or reaches those itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as err:
        raise ConnectionError(f"nothing answers at {address}: {err.strerror or err}") from None


def _digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _commit() -> str | None:
    import subprocess

    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=os.path.dirname(os.path.abspath(__file__)),
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def world_of(store, tasks_by_id: dict, ids: list[str]) -> dict:
    """What a store's episodes are built from, and the sweep's task records, as digests."""
    book = getattr(store, "book", {}) or {}
    return {"clock": store.clock.iso(), "seed": store.seed,
            "book_seed": (book.get("meta") or {}).get("seed"),
            "book": None if hasattr(store, "servers") else _digest(book),  # a server's book is its own
            "tasks": _digest([tasks_by_id[i].spec() if i in tasks_by_id else None for i in ids])}


class EpisodeWorker:
    """One Ray actor: a harness of its own, one attempt at a time (wrapped by `ray.remote`)."""

    def __init__(self, transport: str, clock: str, seed: int, servers: list | None = None,
                 tokens: list | None = None, env: dict | None = None):
        os.environ.update(env or {})  # the driver's world and a model policy's key, on any node
        self.transport, self.clock, self.seed = transport, clock, seed
        self.servers, self.tokens = servers, tokens
        self.harness = None
        self.policies: dict = {}
        self.tasks: dict | None = None

    def _ready(self):
        if self.harness is None:
            from portals.core.clock import Clock
            from portals.core.episode import EpisodeStore
            from tasks.registry import all_tasks

            from .runner import Harness

            if self.servers:
                from .remote import RemoteStore

                store = RemoteStore(list(self.servers), list(self.tokens))
            else:
                store = EpisodeStore(seed=self.seed, clock=Clock.at(self.clock))
            # Entered here, on the thread every later call runs on (Playwright's objects
            # belong to the thread that made them).
            self.harness = Harness(self.transport, store).__enter__()
            self.tasks = {t.instance_id: t for t in all_tasks()}
        return self.harness

    def hello(self, ids: list[str]) -> dict:
        """Start the harness; the world this worker built, and where it runs."""
        import ray

        harness = self._ready()
        if not self.servers:
            for app in sorted({a for i in ids if i in self.tasks for a in self.tasks[i].apps}):
                harness.store.template(app)  # seeded (or read from the cache) before the first run
        from importlib import metadata

        try:
            version = metadata.version("cfagentbench")
        except metadata.PackageNotFoundError:
            version = None
        return {"world": world_of(harness.store, self.tasks, ids), "pid": os.getpid(),
                "host": socket.gethostname(), "node": ray.get_runtime_context().get_node_id(),
                "version": version, "commit": _commit()}

    def run(self, policy_box: list, instance_id: str, attempt: int) -> dict:
        """One attempt through the single episode lifecycle: the run, unjudged, and its transcript."""
        import ray

        harness = self._ready()
        ref = policy_box[0]
        key = ref.hex()
        if key not in self.policies:
            self.policies = {key: ray.get(ref)}  # one sweep's policy at a time
        task = self.tasks[instance_id]
        run, transcript = harness.attempt(task, self.policies[key])
        return {"run": run, "transcript": transcript, "pid": os.getpid()}

    def close(self) -> None:
        if self.harness is not None:
            self.harness.__exit__(None, None, None)
            self.harness = None


class SweepReport:
    """What the backend tells the runner after a sweep."""

    def __init__(self, backend: "RayBackend", infos: list[dict], stats: Counter, stopped: dict | None,
                 world: dict):
        self.backend, self.infos, self.stats, self.stopped = backend, infos, stats, stopped
        self.world = world  # the driver's, which every admitted worker matched

    def world_store(self):
        """Enough of a store for the results' provenance (clock, seeds), from the workers' word."""
        from portals.core.clock import Clock

        world = {**self.world, **(self.infos[0]["world"] if self.infos else {})}
        return SimpleNamespace(clock=Clock.at(world["clock"]), seed=world.get("seed"),
                               book={"meta": {"seed": world.get("book_seed")}})

    def summary(self) -> dict:
        hosts = Counter(info["host"] for info in self.infos)
        return {"address": self.backend.address or "local", "workers": self.backend.workers,
                "hosts": dict(sorted(hosts.items())), "nodes": len({i["node"] for i in self.infos}),
                "lost_workers": self.stats["lost_workers"], "retried_runs": self.stats["retried_runs"],
                "lost_runs": self.stats["lost_runs"], "replaced_workers": self.stats["replaced_workers"],
                "commits": sorted({str(i.get("commit")) for i in self.infos})}


class RayBackend:
    """Ray workers for `run_suite(..., backend=...)`; a context manager (starts Ray if needed,
    kills its workers and the Ray it started on exit). The pool is kept between sweeps of the
    same transport and servers (`cfab bench` times warm workers)."""

    name = "ray"

    def __init__(self, workers: int = 2, address: str | None = None, retries: int = 1,
                 replacements: int | None = None, num_cpus: int | None = None,
                 object_store_mb: int = OBJECT_STORE_MB, start_timeout: float = START_TIMEOUT_S):
        if workers < 1:
            raise ValueError("a Ray sweep needs at least one worker")
        self.workers, self.address, self.retries = workers, address, retries
        self.replacements = 4 * workers if replacements is None else replacements
        self.num_cpus, self.object_store_mb, self.start_timeout = num_cpus, object_store_mb, start_timeout
        self.actors: list = []
        self.infos: dict = {}  # actor id -> its hello
        self._key = None
        self._started_ray = False

    # -- Ray itself ------------------------------------------------------------------------

    def start(self) -> "RayBackend":
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report leaves the machine
        if not self.address:
            _loopback_only()
        else:
            _reachable(self.address)
        ray = _ray()
        if ray.is_initialized():
            return self
        if self.address:
            ray.init(address=self.address, log_to_driver=True, logging_level="warning")
        else:
            ray.init(address="local", num_cpus=self.num_cpus or max(self.workers, os.cpu_count() or 1),
                     include_dashboard=False, object_store_memory=self.object_store_mb * 1024 * 1024,
                     log_to_driver=True, logging_level="warning")
        self._started_ray = True
        return self

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        ray = _ray()
        self._drop_pool()
        if self._started_ray and ray.is_initialized():
            ray.shutdown()
        self._started_ray = False

    # -- the pool --------------------------------------------------------------------------

    def _spawn(self, ids: list[str]):
        ray = _ray()
        transport, clock, seed, servers, tokens, env = self._key[1]
        actor = ray.remote(num_cpus=1, max_restarts=0)(EpisodeWorker).remote(
            transport, clock, seed, servers, tokens, env)
        return actor, actor.hello.remote(ids)

    def _drop_pool(self) -> None:
        ray = _ray()
        for actor in self.actors:
            try:
                ray.get(actor.close.remote(), timeout=30)
            except Exception:  # noqa: BLE001  (already dead, or stuck: killed below either way)
                pass
            ray.kill(actor)
        self.actors, self.infos, self._key = [], {}, None

    def _pool(self, transport: str, store, ids: list[str], driver_world: dict, env: dict) -> None:
        """`workers` live actors for this transport and these servers, each checked for its world."""
        ray = _ray()
        servers = tokens = None
        if store is not None:
            servers = [s.url for s in store.servers]
            tokens = [s._token for s in store.servers]
        key = (transport, (transport, driver_world["clock"], driver_world["seed"], servers, tokens, env))
        if self._key != key:
            self._drop_pool()
            self._key = key
        from ray import exceptions as rex

        for round_ in range(2):  # a kept worker that died between sweeps is replaced once
            while len(self.actors) < self.workers:
                self.actors.append(self._spawn(ids)[0])
            hellos = {actor.hello.remote(ids): actor for actor in self.actors}
            ready, pending = ray.wait(list(hellos), num_returns=len(hellos), timeout=self.start_timeout)
            if pending:
                raise RuntimeError(f"only {len(ready)} of {self.workers} Ray workers started within "
                                   f"{self.start_timeout:.0f} s: the cluster has no room for the rest "
                                   "(each worker takes one CPU)")
            dead = []
            for ref in ready:
                try:
                    info = ray.get(ref)
                except rex.RayActorError:
                    if round_:
                        raise
                    dead.append(hellos[ref])
                    continue
                self._admit(hellos[ref], info, driver_world)
            for actor in dead:
                self._lose(actor)
            if not dead:
                return

    def _admit(self, actor, info: dict, driver_world: dict) -> None:
        theirs = info["world"]
        differs = [k for k in ("clock", "seed", "book_seed", "book", "tasks")
                   if driver_world.get(k) is not None and theirs.get(k) != driver_world[k]]
        if differs:
            raise WorldMismatch(f"the Ray worker on {info['host']} (pid {info['pid']}) built another world "
                                f"than this driver (its {', '.join(differs)} differ): install the same "
                                "checkout on every node and run them with the same CFAB_CLOCK and CFAB_SEED")
        self.infos[id(actor)] = info

    # -- a sweep ---------------------------------------------------------------------------

    def sweep(self, policy, transport: str, store, queue, deliver) -> SweepReport:
        """Run `queue`'s jobs on the workers; `deliver(task, attempt, run, transcript)` each."""
        ray = _ray()
        from ray import exceptions as rex

        from .runner import infra_run

        if store is not None and not hasattr(store, "servers"):
            raise ValueError("with the Ray backend each worker builds its own episode store: pass no "
                             "store (or an agent.remote.RemoteStore for the http transport)")
        self.start()
        pending = []
        while (job := queue.take()) is not None:
            pending.append(job)
        for job in reversed(pending):
            queue.put_back(job)
        ids = sorted({task.instance_id for task, _ in pending})
        driver_world, env = self._driver_world(store, policy, ids, pending)
        if not pending:  # everything finished already (a resume), or the ceiling is reached
            return SweepReport(self, list(self.infos.values()), Counter(), None, driver_world)
        self._pool(transport, store, ids, driver_world, env)
        policy_box = [ray.put(policy)]
        idle = list(self.actors)
        running: dict = {}   # run ref -> (actor, task, attempt)
        starting: dict = {}  # hello ref -> a replacement actor
        tries: Counter = Counter()
        stats: Counter = Counter()
        spare = self.replacements  # dead workers this sweep may replace
        failure = None
        while True:
            while idle and failure is None and (job := queue.take()) is not None:
                actor = idle.pop(0)
                task, attempt = job
                running[actor.run.remote(policy_box, task.instance_id, attempt)] = (actor, task, attempt)
            if not running and not starting:
                break
            (ref,), _ = ray.wait(list(running) + list(starting), num_returns=1)
            if ref in starting:
                actor = starting.pop(ref)
                try:
                    self._admit(actor, ray.get(ref), driver_world)
                except (rex.RayError, WorldMismatch):
                    spare = 0  # a replacement that cannot start: start no more
                    ray.kill(actor)
                    continue
                self.actors.append(actor)
                idle.append(actor)
                continue
            actor, task, attempt = running.pop(ref)
            try:
                result = ray.get(ref)
            except (rex.RayActorError, rex.WorkerCrashedError, rex.ObjectLostError, rex.NodeDiedError) as err:
                stats["lost_workers"] += self._lose(actor)
                if spare > 0 and failure is None:
                    spare -= 1
                    stats["replaced_workers"] += 1
                    fresh, hello = self._spawn(ids)
                    starting[hello] = fresh
                tries[(task.instance_id, attempt)] += 1
                if failure is not None:
                    continue  # the sweep is failing: left unrun, for --resume
                if tries[(task.instance_id, attempt)] <= self.retries:
                    stats["retried_runs"] += 1
                    queue.put_back((task, attempt))
                else:
                    stats["lost_runs"] += 1
                    reason = f"the Ray worker running it was lost ({type(err).__name__})"
                    deliver(task, attempt, infra_run(reason, f"Not scored: {reason}, on all "
                                                     f"{tries[(task.instance_id, attempt)]} tries"), None)
                continue
            except rex.RayTaskError as err:  # not the policy's failure (that is graded): a bug
                failure = failure or err
                idle.append(actor)
                continue
            idle.append(actor)
            deliver(task, attempt, result["run"], result["transcript"])
        if failure is not None:
            raise failure.as_instanceof_cause() if hasattr(failure, "as_instanceof_cause") else failure
        stopped = None
        if len(queue) and not self.actors:
            stopped = {"reason": "ray_workers_lost", "lost_workers": stats["lost_workers"],
                       "runs_not_started": len(queue)}
        infos = [self.infos[id(a)] for a in self.actors if id(a) in self.infos] or list(self.infos.values())
        return SweepReport(self, infos, stats, stopped, driver_world)

    def _lose(self, actor) -> int:
        ray = _ray()
        if actor not in self.actors:
            return 0
        self.actors.remove(actor)
        self.infos.pop(id(actor), None)
        try:
            ray.kill(actor)
        except Exception:  # noqa: BLE001  (gone already)
            pass
        return 1

    def _driver_world(self, store, policy, ids: list[str], pending: list) -> tuple[dict, dict]:
        """The world every worker must build, and the environment each is started with."""
        from portals.core.clock import Clock
        from portals.core.ids import run_seed

        tasks_by_id = {task.instance_id: task for task, _ in pending}
        if store is not None:  # the servers' world: the workers' RemoteStores read the same
            world = {"clock": store.clock.iso(), "seed": store.seed,
                     "tasks": _digest([tasks_by_id[i].spec() for i in ids])}
        else:
            from seeds.book import load_book

            shell = SimpleNamespace(clock=Clock.from_env(), seed=run_seed(), book=load_book())
            world = world_of(shell, tasks_by_id, ids)
        env = {name: os.environ[name] for name in ("CFAB_CLOCK", "CFAB_SEED", "CFAB_TEMPLATE_CACHE")
               if name in os.environ}
        client = getattr(policy, "client", None)
        if client is not None:  # a model policy's key and endpoint, for workers on other nodes
            for name in (getattr(client, "api_key_env", None), "OPENAI_BASE_URL"):
                if name and name in os.environ:
                    env[name] = os.environ[name]
        return world, env
