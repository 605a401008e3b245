"""The AIA G702/G703 arithmetic (DOMAIN.md section 3), as pure functions of Decimals.

G703, per line: D previous (the prior application's G), E this period, F stored materials,
G = D + E + F, % = G / C, balance = C - G, retainage = rate on work (D + E) + rate on stored (F),
each rounded half-up to the cent on the line. G702: line 4 is G703's G total, line 5 the
retainage total (5a on work, 5b on stored, the sums of the lines' parts, so the summary ties to
the schedule), line 6 = 4 - 5, line 7 the prior application's line 6, line 8 = 6 - 7 and line
9 = 3 - 6.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
ZERO = Decimal("0.00")


def cents(value: Decimal) -> Decimal:
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def percent(part: Decimal, whole: Decimal) -> str:
    """G / C as a percentage with one decimal ("83.3"), "0.0" for an empty line."""
    if not whole:
        return "0.0"
    return str((Decimal(part) * 100 / Decimal(whole)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


@dataclass(frozen=True)
class Line:
    item_no: int
    description: str
    scheduled_value: Decimal
    previous: Decimal
    this_period: Decimal
    stored: Decimal

    @property
    def completed_stored(self) -> Decimal:
        return self.previous + self.this_period + self.stored

    @property
    def balance(self) -> Decimal:
        return self.scheduled_value - self.completed_stored

    @property
    def percent(self) -> str:
        return percent(self.completed_stored, self.scheduled_value)

    def retainage_parts(self, work_pct: Decimal, stored_pct: Decimal) -> tuple[Decimal, Decimal]:
        work = cents((self.previous + self.this_period) * Decimal(work_pct) / 100)
        return work, cents(self.stored * Decimal(stored_pct) / 100)


def g702(original_sum: Decimal, net_change_orders: Decimal, lines: list[Line], work_pct: Decimal,
         stored_pct: Decimal, previous_certificates: Decimal) -> dict:
    """The G702 summary (its lines 1-9) and the G703 rows it is drawn from."""
    rows = []
    ret_work = ret_stored = ZERO
    for line in lines:
        work, stored = line.retainage_parts(work_pct, stored_pct)
        ret_work, ret_stored = ret_work + work, ret_stored + stored
        rows.append({"item_no": line.item_no, "description": line.description,
                     "scheduled_value": line.scheduled_value, "previous": line.previous,
                     "this_period": line.this_period, "stored": line.stored,
                     "completed_stored": line.completed_stored, "percent": line.percent,
                     "balance": line.balance, "retainage": work + stored})
    contract_sum = original_sum + net_change_orders
    completed = sum((line.completed_stored for line in lines), ZERO)
    retainage = ret_work + ret_stored
    earned = completed - retainage
    return {"original_sum": cents(original_sum), "net_change_orders": cents(net_change_orders),
            "contract_sum": cents(contract_sum), "completed_stored": cents(completed),
            "retainage_work": ret_work, "retainage_stored": ret_stored, "retainage_total": retainage,
            "earned_less_retainage": cents(earned), "previous_certificates": cents(previous_certificates),
            "current_due": cents(earned - previous_certificates),
            "balance_to_finish": cents(contract_sum - earned), "lines": rows}


def contract_rate(base_pct: Decimal, reduced_pct: Decimal | None, reduce_at_pct: Decimal | None,
                  completed: Decimal, contract_sum: Decimal) -> Decimal:
    """The retainage rate the owner contract sets for an application: the base rate, or the
    reduced rate on everything to date once completed and stored reaches the threshold."""
    if reduced_pct is not None and reduce_at_pct is not None and contract_sum and \
            completed * 100 >= Decimal(reduce_at_pct) * contract_sum:
        return Decimal(reduced_pct)
    return Decimal(base_pct)
