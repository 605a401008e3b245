"""Every read and write of the compliance archetype's sales-tax line (Avalara AvaTax and Returns)."""
from .salestax import (commit_transaction, create_transaction, get_company, get_transaction, list_tax_codes,
                       list_transactions, rates_by_address, resolve_address, void_transaction)
from .salestax_returns import approve_return, get_return, list_returns

__all__ = ["approve_return", "commit_transaction", "create_transaction", "get_company", "get_return",
           "get_transaction", "list_returns", "list_tax_codes", "list_transactions", "rates_by_address",
           "resolve_address", "void_transaction"]
