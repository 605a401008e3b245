"""A residential job's Estimate tab and its client Change Orders (Ressio): the list, one change
order with its lines, "Apply to budget", "Put on hold" with a reason and a note, and "Send to
client", which is guarded: the button stages the request and shows the banner. Each view is
registered only when the manifest lists its screen.
"""
from __future__ import annotations

from functools import partial

from flask import Blueprint, request, url_for

from portals.core.registry import AppSpec
from portals.core.ui import listing, render_view
from portals.core.views import list_args, ui_call, ui_form_post, ui_stage

from .client_changes import HOLD_REASONS

CO_SORT = {"number": ("number", "text"), "title": ("title", "text"), "sent": ("sent_date", "date"),
           "client_status": ("client_status", "text"), "budget_status": ("budget_status", "text")}


def register_client_changes(bp: Blueprint, spec: AppSpec, route) -> None:
    def project(project_number: str) -> dict:
        return ui_call(spec, "get_project", {"project_number": project_number})

    @route("/projects/<project_number>/estimate", "estimate")
    def estimate(project_number):
        found = project(project_number)
        data = ui_call(spec, "get_job_estimate", {"project_number": project_number})
        return render_view(spec, "pm/fin/estimate.html", project=found, estimate=data, tab="estimate",
                           title="Estimate")

    @route("/projects/<project_number>/change-orders", "client_change_orders")
    def client_change_orders(project_number):
        found = project(project_number)
        args = {**list_args("client_status", "budget_status", "search"), "project_number": project_number}
        result = listing(spec, "list_client_change_orders", args, CO_SORT)
        data = ui_call(spec, "get_job_estimate", {"project_number": project_number})
        return render_view(spec, "pm/fin/client_change_orders.html", 200, ("results",), project=found,
                           result=result, estimate=data, tab="client_change_orders", title="Change Orders")

    def order_page(project_number, number, status=200, **extra):
        found = project(project_number)
        order = ui_call(spec, "get_client_change_order", {"project_number": project_number, "number": number})
        data = ui_call(spec, "get_job_estimate", {"project_number": project_number})
        extra.setdefault("form", {})
        extra.setdefault("errors", {})
        return render_view(spec, "pm/fin/client_change_order.html", status, project=found, order=order,
                           estimate=data, reasons=HOLD_REASONS, tab="client_change_orders",
                           title=f"Change Order {order['number']}", **extra)

    @route("/projects/<project_number>/change-orders/<number>", "client_change_orders")
    def client_change_order(project_number, number):
        return order_page(project_number, number)

    def act(project_number, number, service, args, done_message):
        project(project_number)
        return ui_form_post(spec, service, {"project_number": project_number, "number": number, **args},
                            page=partial(order_page, project_number, number),
                            done_message=done_message,
                            back=url_for(".client_change_order", project_number=project_number, number=number))

    @route("/projects/<project_number>/change-orders/<number>/apply", "client_change_orders", methods=("POST",))
    def apply_change_order(project_number, number):
        return act(project_number, number, "apply_client_change_order", {},
                   lambda d: f"Change order {d['number']} was applied to the budget.")

    @route("/projects/<project_number>/change-orders/<number>/hold", "client_change_orders", methods=("POST",))
    def hold_change_order(project_number, number):
        return act(project_number, number, "hold_client_change_order",
                   {"reason": request.form.get("reason", ""), "note": request.form.get("note", "")},
                   lambda d: f"Change order {d['number']} was put on hold.")

    @route("/projects/<project_number>/change-orders/<number>/send", "client_change_orders", methods=("POST",))
    def send_change_order(project_number, number):
        project(project_number)
        return ui_stage(spec, "send_client_change_order", {"project_number": project_number, "number": number},
                        page=partial(order_page, project_number, number))
