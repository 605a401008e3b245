"""`cfab serve` behind gunicorn: one worker process with a pool of threads (gthread).

Why one worker: an episode is in-memory SQLite databases plus its call and guard logs, tokens,
caps and rate limits, all in the memory of the process that opened it (docs/serving.md), so one
process serves every episode. gunicorn brings what werkzeug's development server lacks: a fixed
pool of threads instead of a thread started per request, HTTP/1.1 keep-alive (a client reuses
its connection instead of opening one per page) and a parser written for production.

The application (its store, secrets and limits) is built before gunicorn forks its worker, so the
worker inherits it; the arbiter only watches. If the worker ever exits, the episodes are gone with
it, so the arbiter stops with an error instead of starting an empty worker behind the clients'
backs. Reloading (SIGHUP) would do the same and is refused.
"""
from __future__ import annotations

import logging
import os
import socket
import sys

from gunicorn import glogging
from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter

THREADS = 32  # 16 agents and their htmx requests, the admin API and a launcher, with room


class _Log(glogging.Logger):
    """Logs a request only when the server failed it (5xx), unless every request was asked for;
    lines go to stderr in the combined format werkzeug's log lines share ("GET /p HTTP/1.1" 500)."""

    every_request = False

    def setup(self, cfg) -> None:
        super().setup(cfg)
        if not self.access_log.handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("%(message)s"))
            self.access_log.addHandler(handler)

    def access(self, resp, req, environ, request_time) -> None:
        code = getattr(resp, "status_code", None)
        if not self.every_request and code is not None and code < 500:
            return
        safe = self.atoms_wrapper_class(self.atoms(resp, req, environ, request_time))
        try:
            self.access_log.info(self.cfg.access_log_format, safe)
        except Exception:  # a log line never fails a request
            pass


class _EveryRequestLog(_Log):
    every_request = True


class _OneWorkerArbiter(Arbiter):
    """gunicorn's arbiter, except that losing its one worker stops the server (it held every
    episode) and SIGHUP does not swap the worker for a fresh, empty one."""

    _had_worker = False

    def manage_workers(self):
        if self._had_worker and not self.WORKERS:
            self.halt("the worker process holding every episode exited; its episodes are gone", exit_status=1)
        super().manage_workers()
        self._had_worker = self._had_worker or bool(self.WORKERS)

    def handle_hup(self):
        self.log.warning("SIGHUP ignored: reloading would drop every open episode (restart cfab serve instead)")


PR_SET_PDEATHSIG = 1


def _die_with_the_arbiter(arbiter, worker) -> None:
    """The worker is killed with the arbiter (Linux): a SIGKILL of `cfab serve` stops all of it at
    once, as it does a one-process server, instead of leaving a worker that serves, or finishes
    writing a recording, for a moment after the server is gone."""
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != arbiter.pid:  # the arbiter died before the line above
        os._exit(1)


class GunicornServer(BaseApplication):
    """Serves `wsgi_app` on an already listening socket, in the calling (main) thread."""

    def __init__(self, wsgi_app, listener: socket.socket, access_log: bool = False, threads: int = THREADS):
        self.wsgi_app, self.access_log, self.threads = wsgi_app, access_log, threads
        # gunicorn takes over the descriptor it is given (and closes it): give it a copy, so the
        # caller's socket object keeps a descriptor of its own
        self.fd = os.dup(listener.fileno())
        os.set_inheritable(self.fd, True)
        super().__init__()

    def load_config(self) -> None:
        settings = {
            "bind": [f"fd://{self.fd}"],
            "workers": 1, "worker_class": "gthread", "threads": self.threads,
            "timeout": 0,  # never kill the worker for a slow request: it holds every episode
            "graceful_timeout": 5, "keepalive": 5,
            "logger_class": _EveryRequestLog if self.access_log else _Log,
            "errorlog": "-", "loglevel": "warning", "accesslog": None,
            # X-Forwarded-* are read by --proxy-hops (werkzeug's ProxyFix) and nothing else:
            # gunicorn would otherwise trust them from any loopback client
            "forwarded_allow_ips": "", "proxy_allow_ips": "",
            "control_socket_disable": True,  # no socket in $HOME for gunicornc
            "proc_name": "cfab-serve",
            "post_fork": _die_with_the_arbiter,
        }
        for key, value in settings.items():
            if key in self.cfg.settings:
                self.cfg.set(key, value)

    def load(self):
        return _close_after_too_large(self.wsgi_app)

    def run(self) -> None:
        _OneWorkerArbiter(self).run()


def _close_after_too_large(wsgi_app):
    """Answers a request whose body was too large (413) with `Connection: close`.

    The application refuses such a body unread. gunicorn drains at most 64 KiB of an unread body
    before it serves the connection's next request, and closes the connection when more is left,
    although its 413 had already announced keep-alive: a client that reuses its connection (a
    requests.Session, a browser) then gets its next request dropped without an answer. Closing
    the connection is announced instead, as nginx does after a 413; the client opens a new one."""

    def app(environ, start_response):
        def start(status, headers, exc_info=None):
            if status.startswith("413"):
                response = getattr(start_response, "__self__", None)  # gunicorn's Response
                if response is not None and hasattr(response, "force_close"):
                    response.force_close()
            return start_response(status, headers, exc_info)

        return wsgi_app(environ, start)

    return app


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (0: any free port), inheritable by gunicorn's worker."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


GC_YOUNG_THRESHOLD = 20_000  # allocations between young collections (CPython's default: 700)


def calm_garbage_collector() -> None:
    """Keep the cyclic garbage collector's pauses out of page latency.

    The objects the server holds for good (the apps, compiled templates, the seeded templates'
    rows) are moved out of the collector's sight (gc.freeze), so no collection walks them again,
    and young collections run every 20,000 allocations instead of 700, so that rendering one list
    page (tens of thousands of short-lived objects) does not set off the older generations' walks
    in the middle of it. Measured with 16 paced agents: p99 from 10-65 ms down to 7-11 ms, p50
    unchanged (docs/serving.md). Called before gunicorn forks, so its worker starts this way."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 100)


M_ARENA_MAX = -8  # glibc's mallopt parameter


def limit_malloc_arenas(arenas: int = 2) -> bool:
    """Let glibc's allocator keep at most `arenas` heaps for all threads, before any thread starts.

    By default every thread that allocates may get a heap of its own (up to eight per core), and
    a pool of 32 request threads spreads episodes' freed databases over as many heaps: each keeps
    its pages, so the resident memory climbs for hundreds of episodes after warm-up even though
    nothing leaks and freed memory is trimmed. The threads take turns on the GIL anyway, so two
    heaps cost nothing measurable. A no-op where glibc is not the allocator."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_ARENA_MAX, arenas))
