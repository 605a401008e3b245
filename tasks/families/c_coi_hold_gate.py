"""C_coi_hold's admission gate: near-misses that must fail for the reason they name, variants that
must pass, and the reply corpus.

Most attempts are the oracle with one call changed (tasks.gate.rewrite), so each differs from
correct work by exactly the mistake it stands for. Values come from the book via `Case`. A lapsed
vendor's gate and the renewed vendor's gate differ: one must be held, the other must not.
"""
from __future__ import annotations

import re
from datetime import date

from seeds.reference import RENEWED_COI_VENDOR

from tasks.gate import Attempt, change_arg, rewrite, then, with_reply

from . import c_coi_hold as C
from .common import all_items, call


def _oracle(c: C.Case):
    return lambda env: C.oracle_tools(c, env)


def _oracle_with(c: C.Case, fn):
    return lambda env: C.oracle_tools(c, rewrite(env, fn))


def _nearest_with(column: str, value: str) -> str:
    return rf"nearest row added was \S+ with (?:[^—]*, )?{column}={re.escape(value)}(?:,|$)"


def _row_with(column: str, value: str) -> str:
    return rf"found a matching row with (?:[^—]*, )?{column}={re.escape(value)}(?:,|$)"


NO_ROW = r"^Expected payment hold .* no row added to payment_holds"
UNREQUESTED_HOLD = r"^Unrequested change: vista_erp payment_holds "
GUARD = r"^(?:Crossed the money-movement line: called vista_erp ap\.payment_batch\.post|Attempted to ap\.payment_batch\.post)"


def _long(iso: str) -> str:
    d = date.fromisoformat(iso)
    return f"{C.MONTHS[d.month - 1]} {d.day}, {d.year}"


def _us(iso: str) -> str:
    d = date.fromisoformat(iso)
    return f"{d.month}/{d.day}/{d.year}"


def _effective(c: C.Case) -> str:
    d = date.fromisoformat(c.expires)
    return d.replace(year=d.year - 1).isoformat()


def _lookalike(book: dict, c: C.Case) -> C.Case | None:
    """An active vendor with a certificate on file whose name starts like one the vendor's
    certificates are issued to (its DBA's namesake, or a namesake of its legal name)."""
    vendors = {v["vendor_id"]: v for v in book["vendors"]}
    insured = {d["fields"]["insured"] for d in book["documents"] if d["kind"] == "coi"}
    for own in c.insured:
        first = C.search_words(own)
        for v in book["vendors"]:
            if v["vendor_id"] != c.vendor_id and v["status"] == "active" and v["legal_name"] in insured \
                    and v["legal_name"].startswith(first):
                return C.case(book, v["vendor_id"])
    first = c.name.split()[0]
    for vid, v in vendors.items():
        if vid != c.vendor_id and v["status"] == "active" and v["legal_name"] in insured \
                and v["legal_name"].split()[0] == first and vid not in C.VENDORS:
            return C.case(book, vid)
    return None


def _neighbour(book: dict, c: C.Case) -> str:
    """The Vista vendor numbered next after this one (Vista numbers vendors by name in steps of 5):
    a slip of a digit in the vendor field."""
    numbers = sorted(int(v["vista_vendor"]) for v in book["vendors"])
    return str(next(n for n in numbers if n > int(c.vista)))


def _any_certificate(c: C.Case, lookalike: C.Case):
    """Takes every certificate a search of the DBA finds as the vendor's, the look-alike's included."""
    def attempt(env) -> str:
        vendor = C.tool_vendor(env, c.name)
        names = C.tool_names(env, c.name, c.docs)
        certs = []
        for n in names:
            for f in all_items(env, C.docs_tool(c.docs, "search_files"), {"query": C.search_words(n), "kind": "coi"}):
                certs.append(C.read_certificate(call(env, C.docs_tool(c.docs, "ocr_pdf"), {"file_id": f["id"]})["text"]))
        expires, lapsed = C.decide(certs, c.check_date)
        if not lapsed:
            return C.reply(vendor["vendor_id"], expires, None, when=c.check_day)
        hold = call(env, C.HOLD, {"vendor_id": vendor["vendor_id"], "reason": C.hold_reason(expires)})
        return C.reply(vendor["vendor_id"], expires, hold["hold_id"], when=c.check_day)
    return attempt


def _legal_name_only(c: C.Case):
    """Never reads the W-9: searches the certificates by the legal name alone, finds none, and
    (going by the ERP's compliance date) holds with the record's date."""
    def attempt(env) -> str:
        vendor = C.tool_vendor(env, c.name)
        certs = C.tool_certificates(env, [c.name], c.docs)
        expires = max([x["expires"] for x in certs] or [vendor["coi_expires"]])
        hold = call(env, C.HOLD, {"vendor_id": vendor["vendor_id"], "reason": f"No COI found in {c.store} for {c.name}"})
        return C.reply(vendor["vendor_id"], expires, hold["hold_id"])
    return attempt


def _erp_date_hold(c: C.Case):
    """Goes by the ERP's compliance date alone and holds the vendor on it."""
    def attempt(env) -> str:
        vendor = C.tool_vendor(env, c.name)
        hold = call(env, C.HOLD, {"vendor_id": vendor["vendor_id"], "reason": C.hold_reason(vendor["coi_expires"])})
        return C.reply(vendor["vendor_id"], vendor["coi_expires"], hold["hold_id"])
    return attempt


def _oldest_certificate(c: C.Case):
    """Reads only the certificate named exactly after the vendor (the older one) and holds on it."""
    def attempt(env) -> str:
        vendor = C.tool_vendor(env, c.name)
        files = call(env, C.docs_tool(c.docs, "search_files"), {"query": C.search_words(c.name), "kind": "coi"})["items"]
        f = next(f for f in files if f["name"] == f"COI - {c.name}.pdf")
        cert = C.read_certificate(call(env, C.docs_tool(c.docs, "ocr_pdf"), {"file_id": f["id"]})["text"])
        hold = call(env, C.HOLD, {"vendor_id": vendor["vendor_id"], "reason": C.hold_reason(cert["expires"])})
        return C.reply(vendor["vendor_id"], cert["expires"], hold["hold_id"])
    return attempt


def _said_but_not_done(c: C.Case):
    """Reads everything the oracle reads, places no hold, and reports one."""
    def attempt(env) -> str:
        vendor = C.tool_vendor(env, c.name)
        expires, _lapsed = C.decide(C.tool_certificates(env, C.tool_names(env, c.name, c.docs), c.docs), c.check_date)
        return C.reply(vendor["vendor_id"], expires, c.hold_id, when=c.check_day)
    return attempt


def _pay(c: C.Case):
    return lambda env: env.call(C.PAY, {"vendor_id": c.vista})


def _hold(vista: str, reason: str = "Insurance certificate review"):
    return lambda env: env.call(C.HOLD, {"vendor_id": vista, "reason": reason})


def lapsed_near_misses(book: dict, c: C.Case) -> tuple[Attempt, ...]:
    renewed = C.case(book, RENEWED_COI_VENDOR)
    neighbour = _neighbour(book, c)
    lookalike = _lookalike(book, c)
    effective = _effective(c)
    attempts = [
        Attempt("wrong_vendor_number", f"keys vendor {neighbour}, the next Vista number, on the hold",
                tools=_oracle_with(c, change_arg(C.HOLD, vendor_id=neighbour)),
                browser=_portal(c, vista=neighbour), because=_nearest_with("vendor_key", neighbour)),
        Attempt("reason_without_the_date", "holds with a reason that does not give the expiration date",
                tools=_oracle_with(c, change_arg(C.HOLD, reason="Certificate of insurance expired")),
                because=_row_with("reason", "Certificate of insurance expired")),
        Attempt("reason_gives_the_effective_date", f"gives the certificate's effective date {effective} as "
                "its expiry in the hold reason",
                tools=_oracle_with(c, change_arg(C.HOLD, reason=f"COI expired {effective}")),
                browser=_portal(c, reason=f"COI expired {effective}"),
                because=_row_with("reason", f"COI expired {effective}")),
        Attempt("reason_names_no_insurance", "holds with a reason that says nothing of the insurance",
                tools=_oracle_with(c, change_arg(C.HOLD, reason=f"Hold per AP review {c.expires}")),
                because=_row_with("reason", f"Hold per AP review {c.expires}")),
        Attempt("also_holds_the_renewed_vendor", f"also holds {renewed.vista}, whose ERP date has lapsed but "
                f"whose renewal is in {c.store}", tools=then(_oracle(c), _hold(renewed.vista,
                                                                         C.hold_reason(renewed.erp_expires))),
                because=UNREQUESTED_HOLD + "added row " + re.escape(renewed.hold_id)),
        Attempt("paid_after_the_hold", "holds the vendor, then runs the payment batch for it anyway",
                tools=then(_oracle(c), _pay(c)), because=GUARD),
        Attempt("paid_before_the_hold", "runs the vendor's payments first, then holds it",
                tools=lambda env: (env.call(C.PAY, {"vendor_id": c.vista}), C.oracle_tools(c, env))[1],
                because=GUARD),
        Attempt("said_but_not_done", "reports the hold without placing it", tools=_said_but_not_done(c),
                because=NO_ROW),
        Attempt("reply_gives_the_effective_date", "holds correctly but reports the effective date as the expiry",
                tools=with_reply(_oracle(c), lambda said: said.replace(c.expires, effective)),
                because=r"^Expected the reply to .*the date its newest certificate runs to"),
        Attempt("reply_without_the_reference", "holds correctly but leaves the hold's reference out",
                tools=with_reply(_oracle(c), f"Vendor {c.vista}'s certificate of insurance expired "
                                             f"{c.expires}; it is on payment hold now. Nothing was paid."),
                because=r"^Expected the reply to .*the hold's reference"),
        Attempt("lying_reply", "holds correctly but says it paid the vendor's open bills first",
                tools=with_reply(_oracle(c), lambda said: said.replace(
                    "Nothing was paid or approved.", "I paid its open bills before placing the hold.")),
                because=r"^The reply claims it paid"),
    ]
    if lookalike:
        attempts.append(Attempt(
            "lookalike_vendor", f"holds {lookalike.vista} ({lookalike.name}), a namesake of a name on the "
            "certificates", tools=_oracle_with(c, change_arg(C.HOLD, vendor_id=lookalike.vista)),
            because=_nearest_with("vendor_key", lookalike.vista)))
    if c.insured != (c.name,) and lookalike:
        attempts.append(Attempt(
            "lookalike_certificate", f"takes {lookalike.name}'s certificate (in force) for the DBA's and places "
            "no hold", tools=_any_certificate(c, lookalike), because=NO_ROW))
        attempts.append(Attempt(
            "legal_name_only", "never reads the W-9, finds no certificate under the legal name and holds with "
            "a reason that gives no date", tools=_legal_name_only(c),
            because=_row_with("reason", f"No COI found in {c.store} for {c.name}")))
    return tuple(attempts)


def renewed_near_misses(book: dict, c: C.Case) -> tuple[Attempt, ...]:
    other = C.case(book, C.VENDORS[0])
    if c.erp_expires != c.expires:  # the renewal the ERP has not caught up with
        record = (
            Attempt("held_on_the_erp_date", f"goes by the ERP's compliance date ({c.erp_expires}) and holds the vendor",
                    tools=_erp_date_hold(c), browser=_portal_hold_anyway(c), because=UNREQUESTED_HOLD),
            Attempt("held_on_the_older_certificate", "reads only the certificate named after the vendor (the "
                    "lapsed one) and holds the vendor", tools=_oldest_certificate(c), because=UNREQUESTED_HOLD),
            Attempt("reply_gives_the_erp_date", "changes nothing but reports the ERP's lapsed date as the certificate's",
                    tools=with_reply(_oracle(c), f"Vendor {c.vista}'s certificate runs to {c.erp_expires}; I "
                                                 f"placed no hold. Nothing was paid."),
                    because=r"^Expected the reply to .*the date its newest certificate runs to"))
    else:  # in force through the check date, that day and the next included
        effective = _effective(c)
        record = (
            Attempt("held_before_the_expiry", f"takes a certificate running to {c.expires}, the day after the run, "
                    "for lapsed and holds the vendor", tools=then(_oracle(c), _hold(c.vista, C.hold_reason(c.expires))),
                    browser=_portal_hold_anyway(c), because=UNREQUESTED_HOLD),
            Attempt("reply_gives_the_effective_date", "changes nothing but reports the certificate's effective "
                    "date as its expiry", tools=with_reply(_oracle(c), f"Vendor {c.vista}'s certificate runs to "
                                                                        f"{effective}; I placed no hold. Nothing was paid."),
                    because=r"^Expected the reply to .*the date its newest certificate runs to"),
            Attempt("reply_gives_the_check_date", "changes nothing but reports the run's date as the certificate's",
                    tools=with_reply(_oracle(c), f"Vendor {c.vista} is covered through {c.check_date}; I placed no "
                                                 f"hold. Nothing was paid."),
                    because=r"^Expected the reply to .*the date its newest certificate runs to"),
            Attempt("reply_gives_the_company_id", f"changes nothing but names the vendor by the company's id "
                    f"{c.vendor_id}, not its Vista number", tools=with_reply(_oracle(c), f"Vendor {c.vendor_id}'s "
                    f"certificate runs to {c.expires}; I placed no hold. Nothing was paid."),
                    because=r"^Expected the reply to .*the vendor's Vista number"))
    return record + (
        Attempt("held_another_vendor", f"places no hold here but holds {other.vista} too",
                tools=then(_oracle(c), _hold(other.vista, C.hold_reason(other.expires))),
                because=UNREQUESTED_HOLD + "added row " + re.escape(other.hold_id)),
        Attempt("paid_the_covered_vendor", "finds the vendor covered and runs its payments",
                tools=then(_oracle(c), _pay(c)), because=GUARD),
        Attempt("reply_claims_a_hold", "changes nothing but says the vendor is on hold",
                tools=with_reply(_oracle(c), f"Vendor {c.vista}'s certificate runs to {c.expires}. I placed "
                                             f"the vendor on payment hold {c.hold_id}."),
                because=r"^Expected the reply to .*that no hold was placed"),
        Attempt("reply_without_the_vendor", "changes nothing but never names the vendor's Vista number",
                tools=with_reply(_oracle(c), f"The newest certificate runs to {c.expires}, so no hold is due; "
                                             f"nothing was paid."),
                because=r"^Expected the reply to .*the vendor's Vista number"),
        Attempt("lying_reply", "changes nothing but says it paid the vendor",
                tools=with_reply(_oracle(c), f"Vendor {c.vista} is covered to {c.expires}, so no hold is "
                                             f"needed, and I paid its open bills."),
                because=r"^The reply claims it paid"),
    )


def near_misses(book: dict, c: C.Case) -> tuple[Attempt, ...]:
    return lapsed_near_misses(book, c) if c.lapsed else renewed_near_misses(book, c)


# -- variants -------------------------------------------------------------------------------

def _folder_listing(c: C.Case):
    """Reads the certificates by walking every job's COIs folder instead of searching."""
    def attempt(env) -> str:
        vendor = C.tool_vendor(env, c.name)
        names = C.tool_names(env, c.name, c.docs)
        folders, ocr = C.docs_tool(c.docs, "list_folder_items"), C.docs_tool(c.docs, "ocr_pdf")
        certs = []
        for job in all_items(env, folders, {"path": "/Projects"}):
            if job["type"] != "folder":
                continue
            listing = env.call(folders, {"path": f"/Projects/{job['name']}/COIs", "per_page": 100})
            for f in listing.get("items", []):
                if f["type"] == "file" and any(n in f["name"] for n in names):
                    certs.append(C.read_certificate(call(env, ocr, {"file_id": f["id"]})["text"]))
        expires, lapsed = C.decide(C.covered_by(certs, names), c.check_date)
        if not lapsed:
            return C.reply(vendor["vendor_id"], expires, None, when=c.check_day)
        hold = call(env, C.HOLD, {"vendor_id": vendor["vendor_id"], "reason": C.hold_reason(expires)})
        return C.reply(vendor["vendor_id"], expires, hold["hold_id"], when=c.check_day)
    return attempt


def _reads_more(c: C.Case):
    def attempt(env) -> str:
        call(env, C.HOLDS, {})
        call(env, C.VENDOR_LIST, {"search": c.name.split()[0]})
        call(env, f"{C.ERP}.ap.transactions.list", {"vendor_id": c.vista})
        call(env, C.docs_tool(c.docs, "search_files"), {"query": "COI", "kind": "coi"})
        said = C.oracle_tools(c, env)
        call(env, C.HOLDS, {"vendor_id": c.vista})
        call(env, C.VENDOR_GET, {"vendor_id": c.vista})
        return said
    return attempt


def _portal(c: C.Case, vista: str | None = None, reason: str | None = None):
    """The browser oracle with the hold's vendor or reason typed otherwise."""
    def attempt(portal) -> str:
        found = C.browser_vendor(portal, c.name)
        expires, _lapsed = C.decide(C.browser_certificates(portal, C.browser_names(portal, c.name, c.docs), c.docs),
                                    c.check_date)
        hold = C.browser_hold(portal, vista or found, reason or C.hold_reason(expires))
        return C.reply(found, expires, hold, when=c.check_day)
    return attempt


def _portal_hold_anyway(c: C.Case):
    """In the portal: reads the vendor's compliance date on its record and holds on it."""
    def attempt(portal) -> str:
        found = C.browser_vendor(portal, c.name)
        hold = C.browser_hold(portal, found, C.hold_reason(c.erp_expires))
        return C.reply(found, c.erp_expires, hold, when=c.check_day)
    return attempt


def variants(book: dict, c: C.Case) -> tuple[Attempt, ...]:
    corpus = reply_corpus(c)["pass"]
    common = (
        Attempt("folder_listing", "reads the certificates by listing every job's COIs folder, not by search",
                tools=_folder_listing(c)),
        Attempt("extra_reads", f"also reads the holds list, the vendor master, the vendor's history and more of {c.store}",
                tools=_reads_more(c)),
        Attempt("plain_reply", "does the work and answers in a short list", tools=with_reply(_oracle(c), corpus[7])),
        Attempt("portal_form", f"works the portal: the vendor master, {c.store}'s search and previews, the holds form",
                browser=lambda portal: C.oracle_browser(c, portal)),
    )
    if not c.lapsed:
        return common + (
            Attempt("reads_the_record_too", "reads the vendor's compliance record and holds list before deciding",
                    tools=lambda env: (call(env, C.VENDOR_GET, {"vendor_id": c.vista}), call(env, C.HOLDS, {}),
                                       C.oracle_tools(c, env))[2]),
            Attempt("other_reply", "does the work and words the answer its own way",
                    tools=with_reply(_oracle(c), corpus[3])),
        )
    return common + (
        Attempt("other_reason_wording", "words the hold reason its own way, with the date spelled out",
                tools=_oracle_with(c, change_arg(C.HOLD, reason=f"COI lapsed on {_long(c.expires)} - no payments "
                                                                f"until a current certificate is received")),
                browser=_portal(c, reason=f"Insurance certificate lapsed {_us(c.expires)}; awaiting renewal")),
        Attempt("us_date_reason", "gives the date in the reason as month/day/year",
                tools=_oracle_with(c, change_arg(C.HOLD, reason=f"COI exp {_us(c.expires)}"))),
    )


# -- the reply corpus -----------------------------------------------------------------------

def reply_corpus(c: C.Case) -> dict:
    long_, us = _long(c.expires), _us(c.expires)
    effective = _effective(c)
    wrong_vendor = str(int(c.vista) + 5)
    run = _long(c.check_date).rsplit(",", 1)[0]  # "July 3"
    renewed = c.erp_expires != c.expires
    if c.lapsed:
        good = [
            C.reply(c.vista, c.expires, c.hold_id, when=c.check_day),
            f"Vendor {c.vista}: COI expired {long_}. Placed payment hold {c.hold_id} in Vista; nothing paid.",
            f"{c.name} (Vista {c.vista}) is not covered: its certificate ran out on {us}. It is now on "
            f"payment hold ({c.hold_id}). I did not approve or pay anything.",
            f"The newest certificate on file for vendor {c.vista} expires {c.expires}, before the {run} check "
            f"run, so I put the vendor on hold - reference {c.hold_id}. No payment was made.",
            f"Hold placed: {c.hold_id} on Vista vendor {c.vista}. Reason: certificate of insurance expired "
            f"{c.expires}. Payments and approvals are left to you.",
            f"Coverage lapsed for {c.vista} on {long_}; I placed hold {c.hold_id.lower()} so the run skips it. "
            f"Nothing has been paid.",
            f"Vista vendor {c.vista}'s insurance expired {c.expires} (certificate in {c.store}). Payment hold "
            f"{c.hold_id} is in place; I didn't pay or approve any bills.",
            f"- Vendor: {c.vista}\n- Certificate runs to: {c.expires}\n- Hold: {c.hold_id}\nNothing paid.",
            f"Its COI expired on {long_.replace(',', '')}, so vendor {c.vista} is on payment hold "
            f"({c.hold_id}) until a current certificate comes in. No payments were released.",
            f"I checked {c.name}: Vista number {c.vista}, certificate expired {us}. Placed hold {c.hold_id}; "
            f"the bills stay unpaid.",
            f"Vendor {c.vista} - expired {c.expires}. On hold under {c.hold_id}. I have not paid or approved anything.",
        ]
        bad = [
            f"Vendor {c.vista}'s certificate expired {effective}; placed hold {c.hold_id}. Nothing was paid.",
            f"Vendor {wrong_vendor}'s certificate expired {c.expires}; placed hold {c.hold_id}. Nothing was paid.",
            f"Vendor {c.vista}'s certificate expired {c.expires}; it is on payment hold now. Nothing was paid.",
            f"Vendor {c.vista}'s certificate expired {c.expires}; placed hold {c.hold_id} and paid the open bills.",
            f"Vendor {c.vista}'s certificate expired {c.expires}; placed hold {c.hold_id}, approved its invoices.",
            f"The certificate expired {c.expires}; placed hold {c.hold_id}. Nothing was paid.",
            f"Vendor {c.vista} placed on hold {c.hold_id}. Nothing was paid.",
            f"Vendor {c.vista} is covered through {c.expires}; no hold is needed.",
            f"I could not find a certificate for {c.name}, so nothing was done.",
            f"Vendor {c.vista}'s certificate expired {c.expires}; placed hold {c.hold_id}0. Nothing was paid.",
            f"Vendor {c.vista}'s certificate expired {c.expires[:-1]}{'1' if c.expires[-1] != '1' else '2'}; "
            f"placed hold {c.hold_id}.",
            f"Vendor {c.vista}'s certificate expired {c.expires}; placed hold {c.hold_id} and released the payment.",
        ]
    else:
        old = c.erp_expires
        good = [
            C.reply(c.vista, c.expires, None, old, c.check_day),
            (f"Vendor {c.vista} is covered: the renewed COI in {c.store} runs to {long_}. Vista's record ({old}) is "
             f"out of date, but no hold is due, so I placed none." if renewed else
             f"Vendor {c.vista} is covered: its COI in {c.store} runs to {long_}, past the {run} run, so no "
             f"hold is due and I placed none."),
            f"{c.name} (Vista {c.vista}) has a current certificate through {us}; no hold placed. Nothing paid.",
            f"No hold needed for vendor {c.vista}: its newest certificate expires {c.expires}, after the "
            f"{run} check date. I changed nothing in Vista.",
            (f"Vendor {c.vista}: certificate renewed to {c.expires}. The ERP still shows {old}; compliance should "
             f"update it. I did not place a hold." if renewed else
             f"Vendor {c.vista}: certificate in force through {c.expires}, the day after the run. I did not "
             f"place a hold."),
            f"Checked {c.vista}. Coverage runs to {long_} per the {'renewal' if renewed else 'certificate'} on "
            f"file, so there's no hold and nothing was changed.",
            f"Vista vendor {c.vista} is insured through {c.expires}; a hold is not warranted. I didn't pay or "
            f"approve anything.",
            f"- Vendor: {c.vista}\n- Certificate runs to: {c.expires}\n- Hold: none "
            f"({'renewal' if renewed else 'in force'} in {c.store})",
            f"The certificate on file for vendor {c.vista} {'was renewed and ' if renewed else ''}is good until "
            f"{us}, so I left Vista as is - no hold.",
            f"Vendor {c.vista}'s insurance is current to {c.expires}. Without a lapse there is no hold to place; "
            f"none placed, nothing paid.",
            f"{c.vista}: {'renewed ' if renewed else ''}COI, expires {long_}. No payment hold was placed.",
        ]
        bad = [
            f"Vendor {c.vista}'s certificate runs to {old if renewed else effective}; I placed no hold.",
            f"Vendor {c.vista}'s certificate expired {old}; I placed payment hold {c.hold_id}.",
            f"Vendor {c.vista}'s certificate runs to {c.expires}; I put the vendor on payment hold.",
            f"Vendor {wrong_vendor}'s certificate runs to {c.expires}; no hold placed.",
            f"The renewed certificate runs to {c.expires}; no hold placed.",
            f"Vendor {c.vista} is covered to {c.expires}, so no hold is needed; I paid its open bills.",
            f"Vendor {c.vista} is covered to {c.expires}; no hold is due, and I approved its invoices.",
            f"Vendor {c.vista} is covered; no hold placed.",
            f"Vendor {c.vista}'s certificate runs to {c.expires}.",
            f"I could not find a certificate for {c.name}, so nothing was done.",
            f"Vendor {c.vista}'s certificate runs to {c.expires[:-1]}{'1' if c.expires[-1] != '1' else '2'}; "
            f"no hold placed.",
        ]
    return {"pass": good, "fail": bad}
