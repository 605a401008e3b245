"""`cfab serve --wsgi gunicorn|werkzeug`: both serve every episode from one process; gunicorn's
worker is the one process, so losing it stops the server and SIGHUP does not replace it; the
request log holds only failures unless asked; templates' remembered links equal built ones.
No timing is asserted here (`cfab bench` measures the servers)."""
from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time

import pytest

from _server import ROOT, running_cfab

PAGE = "/procore/invoicing"


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as fh:
        return [int(p) for p in fh.read().split()]


@pytest.mark.parametrize("wsgi", ["gunicorn", "werkzeug"])
def test_both_servers_serve_an_episode_its_pages_and_its_tools(tmp_path, wsgi):
    with running_cfab(tmp_path, "--wsgi", wsgi) as server:
        made = server.open_episode(["procore"], PAGE)
        browser = server.browser()
        browser.enter(made["enter_url"])
        page = browser.get(PAGE)
        assert page.status_code == 200 and "Subcontractor invoices" in page.get_data(as_text=True)
        assert browser.get(PAGE + "?sort=amount").status_code == 200
        listed = server.tool(made["agent_token"], "procore.requisitions.list", {"per_page": 5})
        assert listed.status_code == 200 and len(listed.json()["items"]) == 5
        stranger = server.browser()  # no episode: a 403 page, the same on both servers
        assert stranger.get(PAGE).status_code == 403
        held = _children(server.proc.pid)
        assert (len(held) == 1) == (wsgi == "gunicorn")  # one worker process, or none
        assert not server.server_errors(), server.server_errors()


@pytest.mark.parametrize("wsgi", ["gunicorn", "werkzeug"])
def test_a_kept_connection_serves_the_next_request_after_a_body_refused_as_too_large(tmp_path, wsgi):
    """A client that reuses its connection (server.http is one requests.Session) gets the 413 and
    then an answer to its next requests, not a connection dropped without one."""
    with running_cfab(tmp_path, "--wsgi", wsgi) as server:
        made = server.open_episode(["procore"], PAGE)
        body = b'{"per_page": "' + b"x" * (2 * 1024 * 1024) + b'"}'
        for done in range(3):
            refused = server.tool(made["agent_token"], "procore.requisitions.list", data=body,
                                  headers={"Content-Type": "application/json"})
            assert refused.status_code == 413 and refused.json()["error"] == "too_large"
            assert len(server.admin("GET", f"/episodes/{made['episode_id']}/calls")) == done  # ran nothing
            listed = server.tool(made["agent_token"], "procore.requisitions.list", {"per_page": 1})
            assert listed.status_code == 200 and len(listed.json()["items"]) == 1
        assert not server.server_errors(), server.server_errors()


def test_sighup_keeps_the_worker_and_its_episodes(tmp_path):
    with running_cfab(tmp_path) as server:
        made = server.open_episode(["procore"], PAGE)
        worker = _children(server.proc.pid)
        server.proc.send_signal(signal.SIGHUP)
        time.sleep(1.5)  # the arbiter handles signals once a second
        assert server.alive() and _children(server.proc.pid) == worker
        assert server.tool(made["agent_token"], "procore.requisitions.list", {"per_page": 1}).status_code == 200
    assert "SIGHUP ignored" in server.log.read_text(errors="replace")


def test_losing_the_worker_stops_the_server_instead_of_serving_empty_episodes(tmp_path):
    with running_cfab(tmp_path) as server:
        made = server.open_episode(["procore"], PAGE)
        assert server.tool(made["agent_token"], "procore.requisitions.list", {"per_page": 1}).status_code == 200
        (worker,) = _children(server.proc.pid)
        os.kill(worker, signal.SIGKILL)
        assert server.proc.wait(timeout=30) == 1
    assert "holding every episode exited" in server.log.read_text(errors="replace")


def _access_lines(every_request: bool) -> list[str]:
    from gunicorn.config import Config

    from agent.serving import _EveryRequestLog, _Log

    class Resp:
        def __init__(self, code):
            self.status_code, self.status, self.sent, self.headers = code, f"{code} X", 0, []

    class Req:
        method, path, query, version, uri, headers = "GET", "/p", "", (1, 1), "/p", []

    log = (_EveryRequestLog if every_request else _Log)(Config())
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())

    log.access_log.addHandler(Keep())
    env = {"REMOTE_ADDR": "127.0.0.1", "REQUEST_METHOD": "GET", "RAW_URI": "/p", "SERVER_PROTOCOL": "HTTP/1.1"}
    for code in (200, 404, 500):
        log.access(Resp(code), Req(), env, __import__("datetime").timedelta(milliseconds=3))
    return lines


def test_gunicorn_logs_only_failed_requests_unless_every_request_is_asked_for():
    quiet = _access_lines(every_request=False)
    assert len(quiet) == 1 and '"GET /p HTTP/1.1" 500 ' in quiet[0]  # the line tests/_server.py reads
    every = _access_lines(every_request=True)
    assert [line.split('" ')[1].split()[0] for line in every] == ["200", "404", "500"]


def test_gunicorn_trusts_no_forwarded_header_and_never_times_its_worker_out():
    import socket

    from agent.serving import GunicornServer

    with socket.socket() as listener:
        made = GunicornServer(lambda environ, start: [], listener)
        os.close(made.fd)
    cfg = made.cfg
    assert cfg.workers == 1 and cfg.worker_class_str == "gthread" and cfg.timeout == 0
    assert cfg.forwarded_allow_ips == [] and cfg.control_socket_disable


def test_portal_server_refuses_an_unknown_server_and_a_background_gunicorn():
    from flask import Flask

    from agent.browser import PortalServer

    with pytest.raises(ValueError):
        PortalServer(Flask("x"), wsgi="twisted")
    server = PortalServer(Flask("x"), wsgi="gunicorn")
    try:
        with pytest.raises(RuntimeError, match="main thread"):
            server.start()
    finally:
        server.stop()
    taken = PortalServer(Flask("x")).start()
    try:
        out = subprocess.run([sys.executable, "-m", "agent.cli", "serve", "--port", str(taken.port)],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert out.returncode == 2 and "cannot listen on" in out.stderr
    finally:
        taken.stop()


def test_templates_links_are_the_links_flask_builds(store):
    """The remembered url_for answers what Flask's builds, for the same endpoint in another
    blueprint, values of other types and query strings in the order given."""
    from flask import url_for as flask_url_for

    from portals.core.web import create_app

    app = create_app(store, secret_key="k" * 32, admin_token="a" * 32)
    cached = app.jinja_env.globals["url_for"]
    assert cached is not app.url_for
    calls = [(".invoicing", {"project_number": "1001"}), (".invoicing", {"project_number": 1001}),
             (".invoice", {"project_number": "1001", "requisition_id": 5}),
             (".invoicing", {"project_number": "1001", "status": "paid", "page": 2}),
             (".invoicing", {"project_number": "1001", "page": 2, "status": "paid"}),
             (".invoicing", {"project_number": "1001", "page": True}),
             (".invoicing", {"project_number": "1001", "_anchor": "results"}),
             ("static", {"filename": "app.css"})]
    absolute = [("procore.invoicing", {"project_number": "1001"}), ("static", {"filename": "app.css"})]
    for path, wanted in (("/procore/invoicing", calls + absolute), ("/box/", absolute)):
        with app.test_request_context(path):
            for endpoint, values in wanted * 2:  # the second round is answered from memory
                assert cached(endpoint, **values) == flask_url_for(endpoint, **values)
    with app.test_request_context("/procore/invoicing"):  # a failed build fails every time
        for _ in range(2):
            with pytest.raises(Exception, match="Could not build"):
                cached(".invoice", project_number="1001")
    with app.test_request_context("/procore/invoicing"):
        first = cached(".invoicing", project_number="1001", page=2, status="paid")
        assert first.endswith("page=2&status=paid")
        assert cached(".invoicing", project_number="1001", status="paid", page=2).endswith("status=paid&page=2")


def test_query_and_form_dicts_answer_as_werkzeugs_do(store):
    from portals.core.speedups import QueryDict
    from portals.core.web import create_app

    app = create_app(store, secret_key="k" * 32, admin_token="a" * 32)
    with app.test_request_context("/procore/invoicing?page=2&status=paid&status=draft&n=x",
                                  method="POST", data={"memo": "a", "memo2": ""}):
        from flask import request

        assert isinstance(request.args, QueryDict) and isinstance(request.form, QueryDict)
        assert request.args.get("page") == "2" and request.args.get("page", type=int) == 2
        assert request.args.get("status") == "paid" and request.args.getlist("status") == ["paid", "draft"]
        assert request.args.get("n", 7, type=int) == 7  # a failed conversion: the default
        assert request.args.get("missing") is None and request.args.get("missing", "d") == "d"
        assert request.form.get("memo") == "a" and request.form.get("memo2") == "" and request.form.get("x") is None
        with pytest.raises(KeyError):
            request.args["missing"]  # indexing still raises werkzeug's 400 KeyError


def test_a_killed_server_takes_its_worker_with_it(tmp_path):
    with running_cfab(tmp_path) as server:
        (worker,) = _children(server.proc.pid)
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait(timeout=30)
        for _ in range(100):
            if not os.path.exists(f"/proc/{worker}") or " Z" in open(f"/proc/{worker}/stat").read()[:64]:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the worker outlived its SIGKILLed server")
