"""Every read of the Bank archetype's bank-data line (Plaid), and its one guarded step."""
from .plaid import (create_transfer, get_auth, get_balances, get_item, get_transaction, get_transactions, list_api_logs,
                    list_items, sync_transactions)

__all__ = ["create_transfer", "get_auth", "get_balances", "get_item", "get_transaction", "get_transactions",
           "list_api_logs", "list_items", "sync_transactions"]
