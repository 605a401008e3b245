"""The field workforce and its certified payroll: workers, wage determinations, weekly timecards.

Every active public-works job is a prevailing-wage (Davis-Bacon) contract with a wage determination
(DOMAIN.md section 5): per classification a basic hourly rate and a fringe, an apprentice ratio, and
apprentice levels paid a share of the journeyworker rate. Eight weeks of timecards (weeks ending
Saturday) are paid the way a careful payroll pays them: at least the WD rate, overtime at 1.5 x the
basic rate, the fringe on every hour (to plans, or in cash added to the rate).

Identities differ by system (APPS.md identity facts 4 and 6): the company's worker id, Foundation's
five-digit employee number, LCPtracker's worker keyed by the last four of the SSN; Foundation's craft
code vs the WD classification; LCPtracker files each project under the agency's contract number.
"""
from __future__ import annotations

import base64
import hashlib
import random
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from . import names as N
from .util import CENT, add_days, iso, money, section_rng, unique_int

N_WORKERS = 320
WEEKS = 8
LAST_WEEK_ENDING = date(2026, 6, 27)  # the Saturday before the book's clock (2026-06-30)
APPRENTICE_LEVELS = {1: Decimal("0.50"), 2: Decimal("0.60"), 3: Decimal("0.70"), 4: Decimal("0.80")}
# Foundation craft code, the WD classification (LCPtracker's craft), base, fringe, ratio, share of crews
CRAFTS = [
    ("CARP", "Carpenter", "38.50", "14.20", "1:3", 5),
    ("LAB", "Laborer: Common or General", "24.10", "9.85", "1:4", 6),
    ("ELEC", "Electrician", "41.25", "17.60", "1:3", 3),
    ("OPER", "Power Equipment Operator: Backhoe/Excavator", "36.80", "13.45", "1:2", 2),
    ("IRON", "Ironworker, Reinforcing", "35.60", "18.05", "1:3", 2),
    ("CEMT", "Cement Mason/Concrete Finisher", "31.40", "11.90", "1:3", 2),
    ("PLUM", "Plumber", "39.90", "16.75", "1:3", 2),
]
CRAFT_BY_CODE = {c[0]: c for c in CRAFTS}
UNIONS = {"CARP": "Carpenters Local 1102", "LAB": "Laborers Local 1426", "ELEC": "IBEW Local 553",
          "OPER": "Operating Engineers Local 465", "IRON": "Ironworkers Local 848",
          "CEMT": "Cement Masons Local 889", "PLUM": "Plumbers Local 421"}


def q(value: Decimal) -> Decimal:
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def _agency_contract(rng: random.Random, job: dict) -> str:
    """The awarding agency's contract number, which LCPtracker files the project under."""
    prefix = "".join(w[0] for w in job["customer"].replace("of ", "").split() if w[0].isalpha()).upper()[:4]
    return f"{prefix}-{job['start_date'][:4]}-{rng.randint(100, 999)}-{job['state']}"


def build_wage_determinations(rng: random.Random, jobs: list[dict]) -> list[dict]:
    """One Davis-Bacon wage determination per active public-works job; rates vary by county."""
    return [_wage_determination(rng, job) for job in sorted(
        (j for j in jobs if j["job_type"] == "public_works" and j["status"] == "active"), key=lambda j: j["job"])]


# Two college buildings built with federal grant money (a Department of Education facilities grant):
# Davis-Bacon applies to federally assisted construction as to public works (29 CFR 5.1), so they
# carry a wage determination too. Their payroll runs through Rippling (P_certified_payroll).
FEDERALLY_ASSISTED = ("2728", "5240")


def build_assisted_wage_determinations(rng: random.Random, jobs: list[dict]) -> list[dict]:
    """The federally assisted jobs' wage determinations, from their own seed section (appended
    after the public-works ones, so nothing drawn before them moves)."""
    return [_wage_determination(rng, job) for job in sorted(
        (j for j in jobs if j["job"] in FEDERALLY_ASSISTED and j["status"] == "active"), key=lambda j: j["job"])]


def _wage_determination(rng: random.Random, job: dict) -> dict:
    bump = Decimal(rng.randint(-60, 90)) / 100
    rates = []
    for code, cls, base, fringe, ratio, _share in CRAFTS:
        jbase = q(Decimal(base) + bump)
        jfringe = q(Decimal(fringe) + Decimal(rng.randint(-20, 30)) / 100)
        rates.append({"craft": code, "classification": cls, "level": "J", "base": money(jbase),
                      "fringe": money(jfringe), "apprentice_ratio": ratio})
        for level, share in APPRENTICE_LEVELS.items():
            rates.append({"craft": code, "classification": cls, "level": f"A{level}",
                          "base": money(q(jbase * share)), "fringe": money(jfringe),
                          "apprentice_ratio": ratio, "pct_of_journeyworker": str(int(share * 100))})
    return {"job": job["job"], "contract_number": _agency_contract(rng, job),
            "wd_number": f"{job['state']}{job['start_date'][:4]}{rng.randint(1, 60):04d}",
            "modification": rng.randint(0, 4), "awarding_agency": job["customer"],
            "county": rng.choice(N.COUNTIES), "state": job["state"], "rates": rates}


def adp_aoid(worker_id: str) -> str:
    """ADP's Associate OID for a worker: "G" and fifteen letters and digits, hashed from the
    worker (no draw from the book's random stream, so nothing else in the book moves)."""
    digest = base64.b32encode(hashlib.sha256(f"aoid:{worker_id}".encode()).digest()).decode()
    return "G" + digest[:15]


def rippling_id(worker_id: str) -> str:
    """Rippling's worker (role) id: twenty-four lowercase hex digits, as its API returns them,
    hashed from the worker like the aoid (no draw from the book's random stream)."""
    return hashlib.sha256(f"rippling:{worker_id}".encode()).hexdigest()[:24]


def build_workers(rng: random.Random) -> list[dict]:
    """The field workforce: journeyworkers and registered apprentices in each craft."""
    used_emp, used_ssn, out = set(), set(), []
    weights = [c[5] for c in CRAFTS]
    for i in range(N_WORKERS):
        worker_id = f"W{1001 + i}"
        craft = rng.choices(CRAFTS, weights)[0][0]
        level = "J" if rng.random() < 0.8 else f"A{rng.randint(1, 4)}"
        ssn = unique_int(f"ssn:{worker_id}", 8, used_ssn)  # 9xx-xx-xxxx: never issued as an SSN
        first, last = rng.choice(N.FIRST_NAMES), rng.choice(N.LAST_NAMES)
        out.append({
            "worker_id": worker_id, "first_name": first, "last_name": last,
            "ssn": f"9{str(ssn)[:2]}-{str(ssn)[2:4]}-{str(ssn)[4:]}",
            "foundation_employee": str(unique_int(f"emp:{worker_id}", 5, used_emp)),
            "adp_aoid": adp_aoid(worker_id),
            "rippling_id": rippling_id(worker_id),
            "craft": craft, "level": level,
            "apprentice_program": (f"{rng.choice(['NC', 'SC'])}-RAP-{rng.randint(10000, 99999)}"
                                   if level != "J" else None),
            "union_local": UNIONS[craft] if rng.random() < 0.55 else None,
            "hire_date": iso(add_days(date(2019, 1, 7), rng.randint(0, 2300))),
        })
    return out


def _crew(rng: random.Random, workers: list[dict], taken: set[str], size: int) -> list[dict]:
    """A job's crew: journeyworkers first, then apprentices within every craft's ratio."""
    free = [w for w in workers if w["worker_id"] not in taken]
    journey = [w for w in free if w["level"] == "J"]
    crew = rng.sample(journey, size)
    counts = {}
    for w in crew:
        counts[w["craft"]] = counts.get(w["craft"], 0) + 1
    for w in [w for w in free if w["level"] != "J"]:
        ratio = int(CRAFT_BY_CODE[w["craft"]][4].split(":")[1])
        allowed = counts.get(w["craft"], 0) // ratio
        have = sum(1 for c in crew if c["craft"] == w["craft"] and c["level"] != "J")
        if have < allowed and rng.random() < 0.7:
            crew.append(w)
    taken.update(w["worker_id"] for w in crew)
    return sorted(crew, key=lambda w: w["worker_id"])


def _within_ratio(present: list[dict]) -> list[dict]:
    """The week's crew on site: an apprentice works only under the craft's ratio of journeyworkers
    present that week, so when a journeyworker is off, the apprentices beyond the ratio are off too
    (lowest level first kept, by worker id)."""
    journey: dict[str, int] = {}
    for w in present:
        if w["level"] == "J":
            journey[w["craft"]] = journey.get(w["craft"], 0) + 1
    kept, apprentices = [], {}
    for w in sorted(present, key=lambda w: (w["level"] != "J", w["level"], w["worker_id"])):
        if w["level"] != "J":
            allowed = journey.get(w["craft"], 0) // int(CRAFT_BY_CODE[w["craft"]][4].split(":")[1])
            if apprentices.get(w["craft"], 0) >= allowed:
                continue
            apprentices[w["craft"]] = apprentices.get(w["craft"], 0) + 1
        kept.append(w)
    return sorted(kept, key=lambda w: w["worker_id"])


def _hours(rng: random.Random) -> list[str]:
    """Sunday..Saturday hours worked: a 40-hour week, sometimes a long day or a Saturday."""
    days = [Decimal(0), *(Decimal(8) for _ in range(5)), Decimal(0)]
    if rng.random() < 0.3:
        days[rng.randint(1, 5)] += Decimal(rng.choice([1, 2, 2.5]))
    if rng.random() < 0.2:
        days[6] = Decimal(rng.choice([4, 6, 8]))
    if rng.random() < 0.1:
        days[rng.randint(1, 5)] = Decimal(0)
    return [str(d.normalize()) if d != d.to_integral() else str(int(d)) for d in days]


def timecard(job: str, week: date, worker: dict, rate: dict, hours: list[str], cash_fringe: bool) -> dict:
    """One worker's week on one job, paid correctly: OT at 1.5 x base, the fringe on every hour."""
    total = sum(Decimal(h) for h in hours)
    st, ot = min(total, Decimal(40)), max(total - 40, Decimal(0))
    base, fringe = Decimal(rate["base"]), Decimal(rate["fringe"])
    cash = fringe if cash_fringe else Decimal(0)
    st_rate, ot_rate = base + cash, q(base * Decimal("1.5")) + cash
    gross = q(st * st_rate + ot * ot_rate)
    fica, fwt = q(gross * Decimal("0.0765")), q(gross * Decimal("0.11"))
    return {"job": job, "week_ending": iso(week), "worker_id": worker["worker_id"], "craft": worker["craft"],
            "level": worker["level"], "hours": hours, "st_hours": str(st), "ot_hours": str(ot),
            "base_rate": money(base), "st_rate": money(st_rate), "ot_rate": money(ot_rate),
            "fringe_plan": money(Decimal(0) if cash_fringe else fringe), "fringe_cash": money(cash),
            "fringe_method": "4(b)" if cash_fringe else "4(a)", "gross": money(gross),
            "fica": money(fica), "withholding": money(fwt), "net": money(gross - fica - fwt)}


def build_timecards(seed: int, workers: list[dict], wds: list[dict]) -> list[dict]:
    """Eight weeks of certified-payroll timecards on every prevailing-wage job (the last week of
    P_certified_payroll's jobs with its planted findings). The public-works jobs' weeks come first,
    as they always have; the federally assisted jobs' crews are drawn after them from their own
    seed section among the workers on no public-works payroll, so nothing of the rest moves."""
    public, assisted = _split(wds)
    cards = plant_findings(generate_timecards(section_rng(seed, "timecards"), workers, public), workers, public)
    cards += _assisted_timecards(seed, workers, assisted, cards)
    return plant_findings(cards, workers, assisted)


def fresh_timecards(seed: int, workers: list[dict], wds: list[dict]) -> list[dict]:
    """Every job's timecards as payroll paid them, before any finding is planted (the private
    split regenerates a week from them: tasks/families/p_certified_payroll.py)."""
    public, assisted = _split(wds)
    cards = generate_timecards(section_rng(seed, "timecards"), workers, public)
    planted = plant_findings([dict(c) for c in cards], [dict(w) for w in workers], public)
    return cards + _assisted_timecards(seed, workers, assisted, planted)


def _split(wds: list[dict]) -> tuple[list[dict], list[dict]]:
    return ([wd for wd in wds if wd["job"] not in FEDERALLY_ASSISTED],
            [wd for wd in wds if wd["job"] in FEDERALLY_ASSISTED])


def _assisted_timecards(seed: int, workers: list[dict], assisted: list[dict], public_cards: list[dict]) -> list[dict]:
    busy = {c["worker_id"] for c in public_cards}
    return generate_timecards(section_rng(seed, "timecards_assisted"),
                              [w for w in workers if w["worker_id"] not in busy], assisted)


def generate_timecards(rng: random.Random, workers: list[dict], wds: list[dict]) -> list[dict]:
    """The timecards as payroll paid them, before any finding is planted (the private split
    regenerates a week from them: tasks/families/p_certified_payroll.py)."""
    taken: set[str] = set()
    out = []
    for wd in wds:
        rates = {(r["craft"], r["level"]): r for r in wd["rates"]}
        crew = _crew(rng, workers, taken, rng.randint(12, 20))
        cash = {w["worker_id"] for w in crew if w["union_local"] is None and rng.random() < 0.25}
        for k in range(WEEKS):
            week = add_days(LAST_WEEK_ENDING, -7 * (WEEKS - 1 - k))
            present = [w for w in crew if rng.random() >= 0.06]  # the rest are off that week
            for w in _within_ratio(present):
                out.append(timecard(wd["job"], week, w, rates[(w["craft"], w["level"])], _hours(rng),
                                    w["worker_id"] in cash))
    return out


# --- the week P_certified_payroll checks: findings planted in the last week --------------------------
# Each job's last week carries its own mix of defects (kinds and counts differ, so no fixed pattern
# finds them), and some records that look wrong but are not (fringe paid in cash, overtime overpaid).
# Everything else of the week stays paid as the WD requires. DOMAIN.md section 5.
PLANTED = {
    "1042": ("over_ratio", "ot_straight_time"),
    "1990": ("unregistered_apprentice", "below_base"),
    "2014": ("misclassified", "cash_fringe"),
    "2041": ("over_ratio", "ot_without_cash_fringe", "fringe_short"),
    "2200": ("not_on_wd", "below_base"),
    "3100": ("extra_apprentice", "ot_straight_time", "cash_fringe_ot_overpaid"),
    # the jobs whose certified payroll is reviewed against ADP Workforce Now (P_certified_payroll)
    "7481": ("misclassified", "ot_without_cash_fringe"),
    "9427": ("below_base", "fringe_short", "cash_fringe"),
    # the federally assisted jobs whose certified payroll is reviewed against Rippling
    "2728": ("unregistered_apprentice", "ot_straight_time"),
    "5240": ("misclassified", "fringe_short", "cash_fringe_ot_overpaid"),
}
OFF_WD_CLASSIFICATION = {"OPER": "Operator"}  # a payroll's shorthand the WD does not list


def _repay(card: dict, st_rate: Decimal, ot_rate: Decimal, plan: Decimal, cash: Decimal) -> None:
    """Pay a card at these rates, its gross and net following from them (the arithmetic stays right)."""
    gross = q(Decimal(card["st_hours"]) * st_rate + Decimal(card["ot_hours"]) * ot_rate)
    fica, fwt = q(gross * Decimal("0.0765")), q(gross * Decimal("0.11"))
    card.update(st_rate=money(st_rate), ot_rate=money(ot_rate), fringe_plan=money(plan), fringe_cash=money(cash),
                fringe_method="4(b)" if cash and not plan else "4(a)", gross=money(gross), fica=money(fica),
                withholding=money(fwt), net=money(gross - fica - fwt))


def _plant(kind: str, week: list[dict], rates: dict, workers: dict, free: list[dict], job: str,
           touched: set, rank: dict | None = None) -> list[dict]:
    """Plant one defect in a job's week (cards edited in place); returns the week's cards, or
    raises LookupError before changing anything when the week has no card the defect needs.
    Among the cards (or free workers) a defect could take, the first by worker id, or by `rank`
    (worker id -> a number; the private split's salted order) when given."""
    order = (lambda w: rank[w["worker_id"]]) if rank else (lambda w: w["worker_id"])  # noqa: E731

    def pick(ok, first=lambda c: 0):
        cards = sorted((c for c in week if c["worker_id"] not in touched and ok(c)), key=lambda c: (first(c), order(c)))
        if not cards:
            raise LookupError(kind)
        touched.add(cards[0]["worker_id"])
        return cards[0]

    def wd(c):
        r = rates[(c["craft"], c["level"])]
        return Decimal(r["base"]), Decimal(r["fringe"])

    plan_paid = lambda c: c["fringe_method"] == "4(a)"  # noqa: E731
    journey = lambda c: c["level"] == "J" and plan_paid(c)  # noqa: E731
    if kind == "over_ratio":  # a journeyworker off this week, the craft's apprentices still on site
        def drops(craft):
            j = sum(c["level"] == "J" for c in week if c["craft"] == craft)
            a = sum(c["level"] != "J" for c in week if c["craft"] == craft)
            ratio = int(CRAFT_BY_CODE[craft][4].split(":")[1])
            return j - (a * ratio - 1) if a else 99
        craft = min(CRAFT_BY_CODE, key=lambda k: (drops(k), list(CRAFT_BY_CODE).index(k)))
        if drops(craft) == 99:
            raise LookupError(kind)
        for _ in range(drops(craft)):
            off = pick(lambda c: c["craft"] == craft and journey(c))
            week = [c for c in week if c is not off]
        touched.update(c["worker_id"] for c in week if c["craft"] == craft and c["level"] != "J")
        return week
    if kind in ("extra_apprentice", "unregistered_apprentice"):
        on_site = {c["craft"] for c in week if c["level"] == "J"}
        new = next((w for w in sorted(free, key=order) if w["level"] != "J" and w["craft"] in on_site), None)
        if new is None:
            raise LookupError(kind)
        free.remove(new)
        if kind == "unregistered_apprentice":
            new["apprentice_program"] = None
        card = timecard(job, date.fromisoformat(week[0]["week_ending"]), new, rates[(new["craft"], new["level"])],
                        ["0", "8", "8", "8", "8", "8", "0"], False)
        touched.add(new["worker_id"])
        return sorted(week + [card], key=lambda c: c["worker_id"])
    if kind == "ot_straight_time":  # overtime hours paid at the straight-time rate: no premium
        c = pick(lambda c: journey(c) and Decimal(c["ot_hours"]) > 0, first=lambda c: -Decimal(c["ot_hours"]))
        base, fringe = wd(c)
        _repay(c, base, base, fringe, Decimal(0))
    elif kind == "ot_without_cash_fringe":  # DOMAIN.md's common error: OT at 1.5 x base, no fringe on OT hours
        c = pick(lambda c: c["fringe_method"] == "4(b)" and Decimal(c["ot_hours"]) > 0)
        base, fringe = wd(c)
        _repay(c, base + fringe, q(base * Decimal("1.5")), Decimal(0), fringe)
    elif kind == "cash_fringe_ot_overpaid":  # OT at 1.5 x (base + cash fringe): more than owed, no finding
        c = pick(lambda c: c["level"] == "J" and Decimal(c["ot_hours"]) > 0)
        base, fringe = wd(c)
        _repay(c, base + fringe, q((base + fringe) * Decimal("1.5")), Decimal(0), fringe)
    elif kind == "cash_fringe":  # fringe paid in cash on the rate, OT right: no finding
        c = pick(lambda c: journey(c) and Decimal(c["ot_hours"]) > 0)
        base, fringe = wd(c)
        _repay(c, base + fringe, q(base * Decimal("1.5")) + fringe, Decimal(0), fringe)
    elif kind == "below_base":
        c = pick(lambda c: journey(c) and Decimal(c["ot_hours"]) == 0)
        base, fringe = wd(c)
        paid = base - Decimal("0.85")
        _repay(c, paid, q(paid * Decimal("1.5")), fringe, Decimal(0))
    elif kind == "fringe_short":
        c = pick(lambda c: journey(c) and Decimal(c["ot_hours"]) == 0)
        base, fringe = wd(c)
        _repay(c, base, q(base * Decimal("1.5")), fringe - Decimal("2.40"), Decimal(0))
    elif kind == "misclassified":  # a skilled journeyworker paid as a laborer
        trained = {c["craft"] for c in week if c["level"] != "J"}  # his craft's ratio stays as it was
        c = pick(lambda c: journey(c) and c["craft"] not in trained | {"LAB"} and Decimal(c["ot_hours"]) == 0)
        c["craft"] = "LAB"
        base, fringe = Decimal(rates[("LAB", "J")]["base"]), Decimal(rates[("LAB", "J")]["fringe"])
        _repay(c, base, q(base * Decimal("1.5")), fringe, Decimal(0))
    elif kind == "not_on_wd":  # the classification is payroll's shorthand, not the WD's (rates right)
        c = pick(lambda c: journey(c) and c["craft"] in OFF_WD_CLASSIFICATION)
        c["craft"] = OFF_WD_CLASSIFICATION[c["craft"]]
    else:
        raise ValueError(kind)
    return week


def plant_findings(timecards: list[dict], workers: list[dict], wds: list[dict]) -> list[dict]:
    """The last week of each P_certified_payroll job with its planted defects (deterministic: picks
    by worker id, no randomness, so the rest of the book is unchanged)."""
    last = iso(LAST_WEEK_ENDING)
    on_cards = {t["worker_id"] for t in timecards}
    free = [w for w in workers if w["worker_id"] not in on_cards]
    jobs = {wd["job"] for wd in wds}
    out = [t for t in timecards if not (t["job"] in PLANTED and t["job"] in jobs and t["week_ending"] == last)]
    for wd in wds:
        if wd["job"] not in PLANTED:
            continue
        rates = {(r["craft"], r["level"]): r for r in wd["rates"]}
        week = [t for t in timecards if t["job"] == wd["job"] and t["week_ending"] == last]
        touched: set[str] = set()
        for kind in PLANTED[wd["job"]]:
            try:
                week = _plant(kind, week, rates, workers, free, wd["job"], touched)
            except LookupError:  # another seed's crew may have no card this kind needs
                continue
        out += week
    return sorted(out, key=lambda t: (t["job"], t["week_ending"], t["worker_id"]))
