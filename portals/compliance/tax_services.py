"""Every read and write of the compliance archetype's tax line (Track1099's 1099 reporting)."""
from .tax import (add_form_to_cart, create_recipient, delete_form, deliver_copies, get_cart, get_form, get_payer,
                  get_recipient, list_forms, list_payers, list_recipients, list_tin_matches, list_w9_requests,
                  remove_form_from_cart, request_w9, schedule_efile, submit_tin_match, update_recipient, upsert_form)

__all__ = ["add_form_to_cart", "create_recipient", "delete_form", "deliver_copies", "get_cart", "get_form", "get_payer",
           "get_recipient", "list_forms", "list_payers", "list_recipients", "list_tin_matches", "list_w9_requests",
           "remove_form_from_cart", "request_w9", "schedule_efile", "submit_tin_match", "update_recipient",
           "upsert_form"]
