"""The Flask application factory: every app's portal, the tool API and the admin API in one server.

A browser is bound to exactly one episode by a signed session cookie set at `/enter`; every
portal page reads and writes only that episode. Agents on the tool API present a signed
episode token. The admin API (seed, reset, snapshot, diff, guard log) needs the admin token,
which is never handed to an agent's browser or tool surface.
"""
from __future__ import annotations

import hmac
import secrets
from pathlib import Path

from flask import Flask, abort, g, jsonify, redirect, render_template, request, session
from htmx_flask import Htmx
from itsdangerous import BadSignature, URLSafeTimedSerializer

from . import speedups, ui
from .errors import ReadOnly, ToolError
from .limits import Limits, RateWindow, StrictJSONProvider, check_rate, safe_next
from .registry import load_apps

ROOT = Path(__file__).resolve().parents[2]
ENTER_MAX_AGE = 24 * 3600


def create_app(store, *, secret_key: str | None = None, admin_token: str | None = None,
               limits: Limits | None = None) -> Flask:
    """The server; `limits` (body size and depth, episodes, rates) default to `Limits()`."""
    limits = limits or Limits()
    app = Flask("cfab", template_folder=str(ROOT / "templates"), static_folder=str(ROOT / "static"))
    app.config.update(SECRET_KEY=secret_key or secrets.token_hex(32),
                      SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_HTTPONLY=True,
                      MAX_CONTENT_LENGTH=limits.max_body_bytes)
    app.extensions["cfab_limits"] = limits
    app.extensions["cfab_new_episodes"] = RateWindow(limits.new_episodes_per_minute)
    app.extensions["cfab_client_episodes"] = RateWindow(max(1, limits.new_episodes_per_client_per_minute))
    app.extensions["cfab_episode_calls"] = RateWindow(max(1, limits.tool_calls_per_minute))
    app.json = StrictJSONProvider(app)  # every get_json(): bounded depth, never a RecursionError
    app.extensions["cfab_store"] = store
    app.extensions["cfab_admin_token"] = admin_token or secrets.token_urlsafe(24)
    app.extensions["cfab_signer"] = URLSafeTimedSerializer(app.config["SECRET_KEY"], salt="episode")
    app.jinja_env.globals.update(all_apps=load_apps)
    Htmx(app)  # request.htmx: whether a request is htmx's, and which element it refills
    ui.register(app)

    for spec in load_apps().values():
        app.register_blueprint(spec.archetype.blueprint(spec), url_prefix=spec.base_path)

    from .admin import admin_bp, api_bp
    from . import admin_tasks  # noqa: F401  the task endpoints join the admin API
    app.register_blueprint(admin_bp, url_prefix="/admin")
    app.register_blueprint(api_bp, url_prefix="/api")
    from .launcher import launcher_bp  # home page, task launcher, task panel, finish and verdict
    app.register_blueprint(launcher_bp)
    _register_shell(app)
    _register_errors(app)
    speedups.install(app)  # templates' url_for remembers its links; a missing query key raises nothing
    return app


# The blueprints a bearer token authorizes (no cookie, so no cross-site forgery): they answer
# JSON, errors included. "private" is the private split's API (agent/private.py).
TOKEN_APIS = ("admin", "api", "private")


def store_of(app: Flask | None = None):
    from flask import current_app
    return (app or current_app).extensions["cfab_store"]


def enter_url(app: Flask, episode_id: str, next_path: str = "/") -> str:
    """The one-time link that binds a browser to an episode (the runner hands it to the browser).

    It works once: its nonce is spent on the episode when a browser enters, and it only ever
    leads to a path on this site."""
    token = app.extensions["cfab_signer"].dumps({"e": episode_id, "n": safe_next(next_path),
                                                 "j": secrets.token_urlsafe(9)})
    return f"/enter?t={token}"


def agent_token(app: Flask, episode_id: str) -> str:
    """The bearer token an agent uses on the tool API: it names one episode, signed."""
    return app.extensions["cfab_signer"].dumps({"e": episode_id, "api": 1})


def read_token(app: Flask, token: str) -> dict | None:
    try:
        return app.extensions["cfab_signer"].loads(token, max_age=ENTER_MAX_AGE)
    except BadSignature:
        return None


def current_episode():
    """The episode this browser is bound to, or a 403 page explaining how to get one."""
    if "episode" not in g:
        episode_id = session.get("episode")
        episode = store_of().get(episode_id) if episode_id else None
        if episode is None:
            abort(403, description="This browser is not bound to an episode. "
                                   "Start one from the home page.")
        g.episode = episode
    return g.episode


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(16)
    return session["csrf"]


def _register_shell(app: Flask) -> None:
    app.jinja_env.globals.update(csrf_token=csrf_token)

    @app.before_request
    def _check_csrf():
        if request.method != "POST" or request.blueprint in TOKEN_APIS:
            return
        if request.routing_exception is not None:  # no such route or method: 404/405 say so
            return
        sent = request.form.get("csrf_token") or request.headers.get("X-CSRF-Token", "")
        if not hmac.compare_digest(str(sent), str(session.get("csrf", ""))) or not sent:
            abort(400, description="This form has expired or did not come from this site. "
                                   "Reload the page and try again.")

    @app.get("/enter")
    def enter():
        data = read_token(app, request.args.get("t", ""))
        episode = store_of().get(data["e"]) if data and "n" in data and "j" in data else None
        if episode is None:
            abort(403, description="This link is not valid for any open episode.")
        with episode.lock:  # one use, even when two browsers open it at the same moment
            spent = episode.meta.setdefault("spent_links", set())
            if data["j"] in spent:
                abort(403, description="This link was already used; an enter link works once. "
                                       "Ask for a new one.")
            spent.add(data["j"])
        session.clear()
        session["episode"] = data["e"]
        return redirect(safe_next(data["n"]))

    @app.before_request
    def _only_this_episodes_apps():
        """A portal the episode does not have is a 404 page, and a finished episode takes no writes."""
        spec = load_apps().get(request.blueprint or "")
        if spec is None:
            return
        episode = current_episode()
        if spec.name not in episode.apps:
            have = ", ".join(load_apps()[n].label for n in sorted(episode.apps)) or "no apps"
            abort(404, description=f"{spec.label} is not part of this episode; it has {have}.")
        checking = (request.endpoint or "").endswith(".check_field")  # validates a field, writes nothing
        if request.method == "POST" and not checking:  # a form post counts as the tool call it makes
            check_rate("cfab_episode_calls", episode.id, app.extensions["cfab_limits"].tool_calls_per_minute,
                       "tool calls and form posts per episode")
        if request.method == "POST" and episode.meta.get("finished") and not checking:
            raise ReadOnly("This task is finished, so its episode is read-only: nothing was changed. "
                           "Use Start over in the task panel to work it again.")

    @app.get("/healthz")
    def healthz():
        return jsonify(ok=True)

    @app.before_request
    def _admin_bodies_may_be_larger():
        if request.blueprint == "admin":  # a whole-episode restore (read only after the token check)
            request.max_content_length = app.extensions["cfab_limits"].max_admin_body_bytes


def _wants_json() -> bool:
    """The APIs answer JSON, a route or method they lack too (no blueprint is matched then)."""
    under_api = any(request.path == f"/{name}" or request.path.startswith(f"/{name}/") for name in ("api", "admin"))
    return request.blueprint in TOKEN_APIS or under_api or request.accept_mimetypes.best == "application/json"


def _error_page(title: str, message: str) -> str:
    """An error inside an app keeps that app's skin; elsewhere (or if the skin cannot render) plain."""
    spec = next((s for s in load_apps().values()
                 if request.path == s.base_path or request.path.startswith(s.base_path + "/")), None)
    if spec is not None:
        try:
            return _render_outside_blueprint("app_error.html", spec=spec, skin=spec.skin, word=spec.word,
                                             errors={}, form={}, title=title, message=message)
        except Exception:  # a skin that needs its blueprint's context: the plain page still says why
            pass
    return _render_outside_blueprint("error.html", title=title, message=message)


def _render_outside_blueprint(template: str, **context) -> str:
    """Render with the app-wide context only. A blueprint's context processors may need the
    episode (the ERP's batch bar reads its clock), and an error page must render without one:
    it is often the page that says there is none."""
    from flask import current_app

    app = current_app
    values: dict = {}
    for processor in app.template_context_processors[None]:
        values.update(processor())
    spec = context.get("spec")
    blueprint = app.blueprints.get(spec.name) if spec is not None else None
    values.update(getattr(blueprint, "chrome", dict)())  # the product's menus, episode or none
    values.update(context)
    return app.jinja_env.get_template(template).render(values)


def _register_errors(app: Flask) -> None:
    @app.errorhandler(ToolError)
    def _tool_error(err: ToolError):
        if _wants_json():
            return jsonify(err.to_dict()), err.status
        return _error_page("That did not work", err.message), err.status

    for code, title in ((400, "Bad request"), (401, "Not signed in"), (403, "Not allowed"),
                        (404, "Not found"), (405, "Not allowed"), (413, "Too large"),
                        (429, "Too many"), (500, "Server error")):
        def handler(err, code=code, title=title):
            message = getattr(err, "description", None) or title
            if code == 500:  # a bug: say so plainly, never with a stack trace
                message = "The server failed on this request; nothing more is shown here."
            headers = {"Retry-After": str(err.retry_after)} if getattr(err, "retry_after", None) else {}
            if getattr(err, "valid_methods", None):
                headers["Allow"] = ", ".join(err.valid_methods)
            if _wants_json():
                return jsonify(error=title.lower().replace(" ", "_"), message=message), code, headers
            return _error_page(title, message), code, headers
        app.register_error_handler(code, handler)
