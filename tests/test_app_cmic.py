"""CMiC: what only CMiC has among the ERP vendors; the archetype's tests run for it in
test_erp_vendors.py."""
from __future__ import annotations

APP = "cmic"
APPS = [APP, "procore"]
VENDOR = "301560"  # V1001 in the book


def test_a_pay_when_paid_hold_is_a_normal_write(env, episode):
    hold = env.call(f"{APP}.ap.pwp_hold.place", {"vendor_id": VENDOR, "reason": "Pay when paid: owner draw 7 unpaid"})
    assert "error" not in hold and hold["vendor_id"] == VENDOR, hold
    assert set(episode.diff()[APP]) == {"payment_holds"} and episode.guard_log == []
