"""Every read, write and guarded action of the Bank archetype."""
from .admin import change_entitlement, list_users
from .payments import (approve_ach_payment, approve_payment, approve_wire_payment, draft_ach, draft_wire,
                       get_payment, list_payments, list_templates, release_payment)
from .positive_pay import (decide_exception, download_issue_file, get_exception, list_exceptions,
                           list_issue_files, search_issued_checks, stage_decision, submit_decisions, upload_issue_file)
from .reporting import download_bai2, get_balances, get_transaction, list_accounts, search_transactions

__all__ = ["approve_ach_payment", "approve_payment", "approve_wire_payment", "change_entitlement", "decide_exception",
           "download_bai2", "download_issue_file", "draft_ach", "draft_wire", "get_balances", "get_exception",
           "get_payment", "get_transaction", "list_accounts", "list_exceptions", "list_issue_files", "list_payments",
           "list_templates", "list_users", "release_payment", "search_issued_checks", "search_transactions",
           "stage_decision", "submit_decisions", "upload_issue_file"]
