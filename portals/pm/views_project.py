"""Project tools: budget, prime contract, change events and orders, direct costs, daily log.

Lists refill their results in place (htmx) and sort by their columns; a change event or change
order row opens its own page.
"""
from __future__ import annotations

from flask import Blueprint, abort

from portals.core.registry import AppSpec
from portals.core.ui import listing, render_view
from portals.core.views import list_args, ui_call

BUDGET_COLUMNS = ("original_budget", "approved_changes", "revised_budget", "committed_costs", "direct_costs",
                  "pending_cost_changes", "projected_costs", "forecast_to_complete",
                  "estimated_cost_at_completion", "projected_over_under")

# column key on the page -> (row field, kind)
SORTS = {
    "budget": {"cost_code": ("cost_code", "text"), "description": ("description", "text"),
               "cost_type": ("cost_type", "text"), **{c: (c, "money") for c in BUDGET_COLUMNS}},
    "change_events": {"number": ("number", "text"), "title": ("title", "text"), "status": ("status", "text"),
                      "reason": ("change_reason", "text"), "created": ("created_date", "date"),
                      "rom": ("estimated_amount", "money")},
    "change_orders": {"id": ("change_order_id", "text"), "number": ("number", "text"), "title": ("title", "text"),
                      "kind": ("kind", "text"), "status": ("status", "text"),
                      "change_event": ("change_event", "text"), "created": ("created_date", "date"),
                      "amount": ("amount", "money")},
    "direct_costs": {"date": ("date", "date"), "vendor": ("vendor", "text"), "invoice": ("invoice_number", "text"),
                     "cost_code": ("cost_code", "text"), "type": ("cost_type", "text"),
                     "description": ("description", "text"), "erp_ref": ("erp_ref", "text"),
                     "amount": ("amount", "money")},
    "daily_log": {"date": ("date", "date"), "company": ("company", "text"), "workers": ("workers", "number"),
                  "hours": ("hours", "number"), "cost_code": ("cost_code", "text")},
}

# endpoint -> (path, service, query filters, template, page title)
PROJECT_TOOLS = {
    "budget": ("budget", "get_budget", ("search", "cost_type"), "pm/budget.html", "Budget"),
    "prime_contract": ("prime_contract", "get_prime_contract_sov", (), "pm/prime_contract.html",
                       "Prime Contract"),
    "change_events": ("change_events", "list_change_events", ("status", "search"), "pm/change_events.html",
                      "Change Events"),
    "change_orders": ("change_orders", "list_change_orders", ("kind", "status", "search"),
                      "pm/change_orders.html", "Change Orders"),
    "direct_costs": ("direct_costs", "list_direct_costs", ("vendor", "cost_code", "date_from", "date_to"),
                     "pm/direct_costs.html", "Direct Costs"),
    "daily_log": ("daily_log", "list_manpower", ("date_from", "date_to"), "pm/daily_log.html", "Daily Log"),
}


def register_project_tools(bp: Blueprint, spec: AppSpec, screens: set) -> None:
    for endpoint, (path, service_name, filters, template, title) in PROJECT_TOOLS.items():
        if endpoint not in screens:
            continue
        bp.add_url_rule(f"/projects/<project_number>/{path}", endpoint,
                        _tool_view(spec, endpoint, service_name, filters, template, title))

    _change_pages(bp, spec, screens)


def _change_pages(bp: Blueprint, spec: AppSpec, screens: set) -> None:
    def change_event(project_number, number):
        project = ui_call(spec, "get_project", {"project_number": project_number})
        event = _find(spec, "list_change_events", project_number, number, "number",
                      f"There is no change event #{number} on project {project_number}.")
        orders = ui_call(spec, "list_change_orders", {"project_number": project_number, "per_page": 100})
        related = [co for co in orders["items"] if co["change_event"] == event["number"]]
        return render_view(spec, "pm/change_event.html", project=project, event=event, orders=related,
                           title=f"Change Event #{event['number']}")

    def change_order(project_number, change_order_id):
        project = ui_call(spec, "get_project", {"project_number": project_number})
        order = _find(spec, "list_change_orders", project_number, change_order_id, "change_order_id",
                      f"There is no change order {change_order_id} on project {project_number}.")
        return render_view(spec, "pm/change_order.html", project=project, order=order,
                           title=f"Change Order {order['change_order_id']}")

    if "change_events" in screens:
        bp.add_url_rule("/projects/<project_number>/change_events/<number>", "change_event", change_event)
    if "change_orders" in screens:
        bp.add_url_rule("/projects/<project_number>/change_orders/<change_order_id>", "change_order", change_order)


def _find(spec: AppSpec, service_name: str, project_number: str, key: str, field: str, missing: str) -> dict:
    """One row of a project's list by its exact number, found through the list's own search."""
    rows = ui_call(spec, service_name, {"project_number": project_number, "search": key, "per_page": 100})
    match = next((r for r in rows["items"] if str(r[field]) == key), None)
    if match is None:
        abort(404, description=missing)
    return match


def _tool_view(spec: AppSpec, endpoint: str, service_name: str, filters: tuple, template: str, title: str):
    def view(project_number):
        project = ui_call(spec, "get_project", {"project_number": project_number})
        if service_name == "get_prime_contract_sov":  # one document, not a paged list
            result = ui_call(spec, service_name, {"project_number": project_number})
        else:
            args = {**list_args(*filters), "project_number": project_number}
            result = listing(spec, service_name, args, SORTS.get(endpoint))
        return render_view(spec, template, 200, ("results",), project=project, result=result, title=title)
    return view
