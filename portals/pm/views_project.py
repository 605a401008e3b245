"""Read-only project tools: budget, prime contract, change events and orders, direct costs, daily log."""
from __future__ import annotations

from flask import Blueprint

from portals.core.registry import AppSpec
from portals.core.views import list_args, render, ui_call

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


def register_project_tools(bp: Blueprint, spec: AppSpec) -> None:
    for endpoint, (path, service_name, filters, template, title) in PROJECT_TOOLS.items():
        bp.add_url_rule(f"/projects/<project_number>/{path}", endpoint,
                        _tool_view(spec, service_name, filters, template, title))


def _tool_view(spec: AppSpec, service_name: str, filters: tuple, template: str, title: str):
    def view(project_number):
        project = ui_call(spec, "get_project", {"project_number": project_number})
        # the prime contract SOV is one document, not a paged list
        args = {} if service_name == "get_prime_contract_sov" else list_args(*filters)
        result = ui_call(spec, service_name, {**args, "project_number": project_number})
        return render(spec, template, project=project, result=result, title=title)
    return view
