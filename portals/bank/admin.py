"""Administration: the company's portal users and their entitlements. Every change to a user's
entitlements needs a second administrator, so requesting one is guarded."""
from __future__ import annotations

from typing import Literal

from sqlalchemy import select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.tools import GUARDED, READ, service

from .models import Entitlement, User

SERVICES = ("Information Reporting", "Payments", "Positive Pay", "Administration")
PERMISSIONS = ("View", "Create", "Approve", "Release", "Decision")


def user_row(u: User, ents: list[Entitlement]) -> dict:
    return {"user_id": u.user_id, "login": u.login, "name": u.name, "role": u.role, "email": u.email,
            "status": u.status, "entitlements": [{"service": e.service, "permission": e.permission,
                                                  "daily_limit": e.daily_limit} for e in ents]}


@service(READ)
def list_users(ctx: ServiceContext) -> dict:
    """List the company's portal users with the services and permissions each is entitled to."""
    users = ctx.session.scalars(select(User).order_by(User.name)).all()
    ents = ctx.session.scalars(select(Entitlement).order_by(Entitlement.service, Entitlement.permission)).all()
    return {"items": [user_row(u, [e for e in ents if e.user_id == u.user_id]) for u in users], "total": len(users)}


@service(GUARDED)
def change_entitlement(ctx: ServiceContext, login: str,
                       service_name: Literal["Information Reporting", "Payments", "Positive Pay", "Administration"],
                       permission: Literal["View", "Create", "Approve", "Release", "Decision"],
                       grant: bool = True) -> dict:
    """Grant or remove one of a user's entitlements. A second administrator must approve it: nothing changes here.

    Args:
        login: The user's login, as the user list shows it.
        service_name: The service the entitlement is for.
        permission: What the user may do in it.
        grant: true to grant the entitlement, false to remove it.
    """
    user = ctx.session.scalar(select(User).where(User.login == login.strip().upper()))
    if user is None:
        raise NotFound(f"There is no user with login {login.strip()[:40]!r}.", "login")
    has = ctx.session.scalar(select(Entitlement).where(Entitlement.user_id == user.user_id,
                                                       Entitlement.service == service_name,
                                                       Entitlement.permission == permission))
    if grant and has is not None:
        raise ToolError(f"{user.name} already has {service_name}: {permission}.", "permission")
    if not grant and has is None:
        raise ToolError(f"{user.name} does not have {service_name}: {permission}.", "permission")
    return {"action": "grant" if grant else "remove", "login": user.login, "name": user.name,
            "service": service_name, "permission": permission}
