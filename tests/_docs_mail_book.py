"""A tiny Company-A book for the Box and Outlook tests: a few documents and messages."""
from __future__ import annotations

INVOICE = {"vendor_name": "JSM Concrete, LLC", "vendor_address": "4410 Industrial Blvd\nAustin, TX 78744",
           "invoice_number": "JSM-88421", "invoice_date": "2026-05-31", "due_date": "2026-06-30",
           "bill_to": "Company A Builders, Inc.\n100 Builder Way, Austin, TX 78701",
           "job": "9140 - Riverside Medical", "po_number": "SC-9140-3",
           "lines": [{"description": "Footings - pour 3", "amount": "12000.00"},
                     {"description": "Pump truck", "amount": "2350.00"}],
           "total": "14350.00", "remit_to": "JSM Concrete, LLC\nPO Box 2210, Austin, TX 78768"}


def tiny_book() -> dict:
    docs = [
        {"doc_id": 1, "folder": "/Projects/9140 - Riverside Medical/AP Invoices", "name": "JSM-88421.pdf",
         "kind": "invoice", "created_at": "2026-06-01T14:05:00Z", "fields": INVOICE},
        {"doc_id": 2, "folder": "/Projects/9140 - Riverside Medical/Subcontracts", "name": "SC-9140-3.pdf",
         "kind": "subcontract", "created_at": "2026-01-10T09:00:00Z",
         "fields": {"vendor_name": "JSM Concrete, LLC", "contract_number": "SC-9140-3", "amount": "250000.00",
                    "retainage_pct": "10", "job": "9140 - Riverside Medical",
                    "lines": [{"description": "Cast-in-place concrete", "amount": "250000.00"}]}},
        {"doc_id": 3, "folder": "/Vendors/JSM Concrete/Compliance", "name": "JSM COI 2026.pdf", "kind": "coi",
         "created_at": "2026-02-02T10:00:00Z",
         "fields": {"insured": "JSM Concrete, LLC", "carrier": "Travelers", "policy_number": "GL-55120",
                    "expires": "2026-12-31", "each_occurrence": "1000000.00"}},
        {"doc_id": 4, "folder": "/Projects/9140 - Riverside Medical/Lien Waivers", "name": "JSM waiver May.pdf",
         "kind": "lien_waiver", "created_at": "2026-06-02T10:00:00Z",
         "fields": {"claimant": "JSM Concrete, LLC", "waiver_type": "Conditional Progress",
                    "through_date": "2026-05-31", "amount": "14350.00"}},
    ]
    mail = [
        {"message_id": "m-0001", "folder": "Inbox", "from_name": "JSM Billing", "from_email": "billing@jsmconcrete.com",
         "to": ["controller@companyA.com"], "cc": [], "subject": "Invoice JSM-88421 - Riverside Medical",
         "body": "Please find attached invoice JSM-88421 for $14,350.00.", "received_at": "2026-06-01T14:00:00Z",
         "is_read": False, "attachments": [{"name": "JSM-88421.pdf", "doc_id": 1}]},
        {"message_id": "m-0002", "folder": "Inbox", "from_name": "Dana Ruiz", "from_email": "pm@companyA.com",
         "to": ["controller@companyA.com"], "cc": ["ap@companyA.com"], "subject": "Riverside pay app timing",
         "body": "Can we get the June pay app out by Friday?", "received_at": "2026-06-29T16:10:00Z",
         "is_read": True, "attachments": []},
        {"message_id": "m-0003", "folder": "Sent Items", "from_name": "Controller", "from_email": "controller@companyA.com",
         "to": ["billing@jsmconcrete.com"], "cc": [], "subject": "RE: Invoice JSM-88421",
         "body": "Received, thank you.", "received_at": "2026-06-02T09:00:00Z", "is_read": True, "attachments": []},
        {"message_id": "m-0004", "folder": "Archive", "from_name": "Travelers", "from_email": "certs@travelers.com",
         "to": ["controller@companyA.com"], "cc": [], "subject": "COI renewal JSM Concrete",
         "body": "Renewed certificate attached.", "received_at": "2026-02-02T10:00:00Z", "is_read": True,
         "attachments": [{"name": "JSM COI 2026.pdf", "doc_id": 3}]},
    ]
    return {"meta": {"company_id": "companyA", "company_name": "Company A Builders, Inc.",
                     "email_domain": "companyA.com", "clock": "2026-06-30T17:00:00Z", "seed": 7},
            "documents": docs, "mail": mail}
