"""Every read and write of the compliance archetype's payments line (Corpay's AP payments)."""
from .pay import (apply_bank_change, get_bank_change, get_supplier, hold_supplier, list_bank_changes, list_suppliers,
                  reject_bank_change, release_supplier_hold, update_payment_method)
from .pay_payments import (approve_payment, get_payment, get_payment_file, list_payment_files, list_payments,
                           list_pending_approval, upload_payment_file)

__all__ = ["apply_bank_change", "approve_payment", "get_bank_change", "get_payment", "get_payment_file",
           "get_supplier", "hold_supplier", "list_bank_changes", "list_payment_files", "list_payments",
           "list_pending_approval", "list_suppliers", "reject_bank_change", "release_supplier_hold",
           "update_payment_method", "upload_payment_file"]
