"""The Plaid Dashboard's few pages (Plaid has no portal: it is an API): Items (each linked
institution login), an Item's accounts with balances, every account's balances, Transactions
(filtered, sorted, paged, each one's detail) and the API Logs. The dashboard only reads: creating
a transfer is an API call (guarded), with no button here, as on the product's dashboard."""
from __future__ import annotations

from flask import Blueprint

from portals.core.ui import listing, render_view
from portals.core.views import list_args, ui_call

from .plaid import LOG_SORT, TXN_SORT

ENDPOINTS = ("/transactions/sync", "/accounts/balance/get")


def make_plaid_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)

    def all_accounts() -> list[dict]:
        items = ui_call(spec, "list_items")["items"]
        return [a | {"institution_name": i["institution_name"]}
                for i in items for a in ui_call(spec, "get_balances", {"item_id": i["item_id"]})["accounts"]]

    @bp.get("/")
    def index():
        return render_view(spec, "plaid/items.html", items=ui_call(spec, "list_items")["items"])

    @bp.get("/items/<item_id>")
    def item(item_id: str):
        return render_view(spec, "plaid/item.html", item=ui_call(spec, "get_item", {"item_id": item_id}))

    @bp.get("/accounts")
    def accounts():
        return render_view(spec, "plaid/accounts.html", accounts=all_accounts())

    @bp.get("/transactions")
    def transactions():
        args = list_args("account_id", "start_date", "end_date", "pending", "query")
        result = listing(spec, "get_transactions", args, TXN_SORT)
        names = {a["account_id"]: f"{a['name']} ••••{a['mask']}" for a in all_accounts()}
        return render_view(spec, "plaid/transactions.html", 200, ("results",), result=result, accounts=names)

    @bp.get("/transactions/<transaction_id>")
    def transaction(transaction_id: str):
        return render_view(spec, "plaid/transaction.html",
                           t=ui_call(spec, "get_transaction", {"transaction_id": transaction_id}))

    @bp.get("/logs")
    def logs():
        result = listing(spec, "list_api_logs", list_args("endpoint", "item_id"), LOG_SORT)
        return render_view(spec, "plaid/logs.html", 200, ("results",), result=result, endpoints=ENDPOINTS)

    return bp
