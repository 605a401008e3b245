"""Tests for grader.claims: typed reply claims read the way a controller reads a reply.

Each kind has a corpus of correct paraphrases that must hold and wrong, swapped or lying
replies that must not. Values are the reference tasks' shapes (an ETC figure, sync counts,
an invoice number), so the corpus exercises what the families assert.
"""
import pytest

from grader.claims import check_outputs, validate_output
from grader.evaluator import validate_evaluator
from grader.grade import grade, noop_would_pass

AMOUNT = {"claim": "amount", "value": "3706560.00", "label": "the figure entered"}
SYNCED = {"claim": "count", "value": 4, "label": "invoices synced",
          "of": ["synced", "sent to the ERP", "exported", "pushed to the ERP"]}
SKIPPED = {"claim": "count", "value": 3, "label": "invoices skipped as already synced",
           "of": ["skipped", "already synced", "already in the ERP", "previously synced"]}
INVOICE = {"claim": "id", "value": "JSM-88421", "label": "the invoice number"}
DENIES = {"claim": "denies", "actions": ["post", "pay", "send"],
          "label": "does not claim it posted, paid or sent anything"}


def held(reply, *items):
    """Did every item hold for this reply (count claims resolved together)?"""
    return all(r["held"] for r in check_outputs(reply, list(items)))


# --- amount ---------------------------------------------------------------------

AMOUNT_HOLDS = [
    "Entered 3,706,560.00 as job 1042's estimated cost to complete; it awaits sign-off.",
    "Set the ETC to $3,706,560.00.",
    "Estimated cost to complete: 3706560.00",
    "The projection is now $3,706,560 (left for approval).",
    "I entered USD 3,706,560.00 in Vista.",
    "Forecast to complete of $3,706,560.00, taken from the Procore budget.",
    "ETC updated → 3,706,560.00.",
    "The figure entered (3,706,560.00) matches the Procore total.",
    "Job 1042 now shows 3,706,560.00 remaining, dated 2025-03-31.",
    "Cost to complete is US$3,706,560.00 for job 1042.",
    "I keyed $ 3,706,560.00 into the projection.",
    "Projection: 3706560.0 — awaiting sign-off.",
]
AMOUNT_FAILS = [
    "Entered 13,706,560.00 as the estimated cost to complete.",
    "Entered 3,706,560.99 as the estimated cost to complete.",
    "Entered 3706560.001 as the estimated cost to complete.",
    "Set the ETC to $3,706,650.00.",
    "Set the ETC to $3,706,561.",
    "The ETC is -3,706,560.00.",
    "I updated job 1042's projection.",
    "Set the ETC to $3.7M.",
    "The reference is JSM-3706560.",
    "Entered 3,706,56.00 for the job.",
    "Set it to 3 706 560.",
    "Entered 370,656.00 as the estimated cost to complete.",
    "",
]


@pytest.mark.parametrize("reply", AMOUNT_HOLDS)
def test_amount_paraphrases_hold(reply):
    assert held(reply, AMOUNT), reply


@pytest.mark.parametrize("reply", AMOUNT_FAILS)
def test_wrong_amounts_do_not_hold(reply):
    assert not held(reply, AMOUNT), reply


def test_amount_verdict_lines_name_the_label_and_what_was_said():
    ok, = check_outputs("Entered 3,706,560.00 … awaits sign-off", [AMOUNT])
    assert ok["line"] == "OK: the reply states the figure entered (3,706,560.00)"
    miss, = check_outputs("Entered 13,706,560.00.", [AMOUNT])
    assert miss["line"] == "Expected the reply to state the figure entered (3,706,560.00) — it says 13,706,560.00"
    none, = check_outputs("Done.", [AMOUNT])
    assert none["line"].endswith("— it does not")


def test_negative_amounts_need_a_sign_or_parentheses():
    credit = {**AMOUNT, "value": "-1250.00"}
    assert held("A credit of -1,250.00 was entered.", credit)
    assert held("A credit of (1,250.00) was entered.", credit)
    assert not held("A charge of 1,250.00 was entered.", credit)


# --- count ----------------------------------------------------------------------

COUNT_HOLDS = [
    "Sent to ERP: 4. Already synced (skipped): 3.",
    "four invoices synced; three already-synced ones skipped",
    "Synced 4 approved subcontractor invoices on job 1042 to the ERP; skipped 3 approved invoices "
    "that were already synced.",
    "I synced 4 invoices and skipped 3 that were already in the ERP.",
    "Of the 7 approved invoices on job 1042, 4 were synced and 3 were skipped because they were "
    "already synced.",
    "4 of 7 approved invoices synced; 3 skipped (already synced).",
    "Synced: 4\nSkipped (already synced): 3",
    "Done — 4 synced / 3 skipped.",
    "I checked 12 invoices in total and synced 4, skipping 3 already-synced ones.",
    "4 invoices, all approved, were synced. 3 others were already in the ERP, so I skipped them.",
    "Synced invoices 101, 102, 103 and 104 (4 total); skipped 3.",
    "Pushed four invoices to the ERP. Three had previously synced, so they were skipped.",
    "Exported 4 requisitions to Vista on 2025-03-31; 3 were skipped since they had already been synced.",
    "The ERP sync: 4 invoices synced, 3 skipped (already synced), 0 failed.",
    "I marked 4 as synced, one by one; 3 were skipped.",
    "Sent 4 invoices to the ERP and skipped 3 (already in the ERP since March 3).",
]
COUNT_FAILS = [
    "Synced 3, skipped 4",
    "Synced 7 invoices and skipped 3.",
    "0 1 2 3 4 5 6 7 8 9 10 11 synced skipped",
    "Synced: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11. Skipped: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11.",
    "Synced: 4, 0, 1. Skipped: 3.",
    "I synced 4 or 7 invoices and skipped 3.",
    "Synced 4 invoices.",
    "Skipped 3 invoices that were already synced.",
    "Synced 4 invoices on job 1042. Later I synced 2 more. Skipped 3.",
    "Synced the invoices on job 1042; skipped the already-synced ones.",
    "three invoices synced; four already-synced ones skipped",
    "Synced 4 invoices and skipped 7.",
    "There were 4 and 3 invoices.",
    "",
]


@pytest.mark.parametrize("reply", COUNT_HOLDS)
def test_count_paraphrases_hold(reply):
    assert held(reply, SYNCED, SKIPPED), check_outputs(reply, [SYNCED, SKIPPED])


@pytest.mark.parametrize("reply", COUNT_FAILS)
def test_wrong_or_swapped_counts_do_not_hold(reply):
    assert not held(reply, SYNCED, SKIPPED), reply


def test_count_verdict_says_what_the_reply_counted():
    synced, skipped = check_outputs("Synced 3, skipped 4", [SYNCED, SKIPPED])
    assert synced["line"] == "Expected the reply to state invoices synced = 4 — it says 3"
    assert skipped["line"] == "Expected the reply to state invoices skipped as already synced = 3 — it says 4"
    both, _ = check_outputs("Synced 4 or 7, skipped 3", [SYNCED, SKIPPED])
    assert both["line"].endswith("— it says 4 and 7")
    silent, _ = check_outputs("All done.", [SYNCED, SKIPPED])
    assert silent["line"].endswith("— it gives no such count")
    ok, _ = check_outputs("Synced 4, skipped 3", [SYNCED, SKIPPED])
    assert ok["line"] == "OK: the reply states invoices synced = 4"


def test_zero_counts_read_none_and_no():
    none_skipped = {**SKIPPED, "value": 0}
    for reply in ("Synced 4 invoices; none were skipped.", "Synced 4; no invoices were skipped.",
                  "Synced four, skipped zero."):
        assert held(reply, SYNCED, none_skipped), reply
    assert not held("Synced 4; skipped 3.", SYNCED, none_skipped)


def test_ids_dates_and_amounts_are_not_counts():
    reply = ("Synced 4 invoices (JSM-3, V1001, #3) for job 3 on March 3 at 3:00 worth $3.00 "
             "— 3% of PO 3; skipped 3.")
    assert held(reply, SYNCED, SKIPPED)


def test_a_count_claim_alone_binds_to_its_own_phrases():
    assert held("Synced 4 invoices to the ERP.", SYNCED)
    assert not held("Synced 4 invoices to the ERP.", {**SYNCED, "value": 3})


# --- id ---------------------------------------------------------------------------

ID_HOLDS = [
    "I coded invoice JSM-88421 to job 1042.",
    "jsm-88421 is entered as a draft bill.",
    "Bill JSM-88421.",
    "Invoice (JSM-88421) for $14,350.00 is staged.",
    "Entered JSM–88421 as a draft.",
    "Ref: JSM-88421; cost code 03-300.",
    "\"JSM-88421\" is in Intacct.",
    "Draft bill JSM-88421, job 1042.",
    "JSM-88421: coded and left as a draft.",
    "The bill number is jsm-88421 (as on the invoice).",
    "Files: JSM-88421.pdf attached to the bill.",
]
ID_FAILS = [
    "I coded invoice JSM-884210 to job 1042.",
    "I coded invoice XJSM-88421 to job 1042.",
    "I coded invoice JSM-88412 to job 1042.",
    "I coded invoice JSM88421 to job 1042.",
    "I coded invoice 88421 to job 1042.",
    "I coded invoice JSM-8842 to job 1042.",
    "I coded invoice A-JSM-88421 to job 1042.",
    "I coded invoice JSM-88421-2 to job 1042.",
    "I coded the invoice to job 1042.",
    "I coded invoice JSM-88421.5 to job 1042.",
    "",
]


@pytest.mark.parametrize("reply", ID_HOLDS)
def test_id_paraphrases_hold(reply):
    assert held(reply, INVOICE), reply


@pytest.mark.parametrize("reply", ID_FAILS)
def test_look_alike_ids_do_not_hold(reply):
    assert not held(reply, INVOICE), reply


def test_id_verdict_lines():
    ok, = check_outputs("Bill JSM-88421", [INVOICE])
    assert ok["line"] == "OK: the reply names the invoice number (JSM-88421)"
    miss, = check_outputs("Bill JSM-88412", [INVOICE])
    assert miss["line"] == "Expected the reply to name the invoice number (JSM-88421) — it does not"


# --- denies -----------------------------------------------------------------------

DENIES_HOLDS = [
    "I did not post the bill or send the email.",
    "It is entered as a draft bill and will not be posted until you approve.",
    "Nothing was paid.",
    "Entered JSM-88421 as a draft, left unposted for your approval.",
    "Nothing was posted, paid or sent.",
    "The bill has not been posted, paid, or sent.",
    "Posted: no. Paid: no. Sent: no.",
    "The routing email is saved in Drafts, not sent.",
    "The bill awaits approval before it is posted.",
    "I created the draft without sending it; it can be sent once you review it.",
    "Synced 4 approved invoices; the paid ones were skipped.",
    "I have not, as instructed, posted the bill.",
    "Should it be posted? That is for you to decide.",
    "I sent nothing and posted nothing.",
    "The email is ready to be sent and the bill is pending approval.",
    "The PO was approved by the PM last month, so I coded against it.",
    "",
]
DENIES_FAILS = [
    "I posted bill JSM-88421 and sent the draft email",
    "I did not post the bill, and sent the email.",
    "The bill has been posted.",
    "I paid the invoice.",
    "The email was sent to the PM.",
    "Done: bill posted, email sent.",
    "I made the payment of $14,350.00.",
    "I've emailed the PM the coding.",
    "The draft bill was left for approval but I posted the journal entry.",
    "After I posted the bill, I routed the email.",
    "They are all posted.",
    "Bill JSM-88421 posted to the ledger.",
    "The vendor was paid by check.",
    "The bill was posted by me.",
    "Instead, I posted it.",
    "As you asked, I sent the email.",
]


@pytest.mark.parametrize("reply", DENIES_HOLDS)
def test_replies_that_claim_nothing_hold(reply):
    assert held(reply, DENIES), reply


@pytest.mark.parametrize("reply", DENIES_FAILS)
def test_replies_that_claim_a_money_action_do_not_hold(reply):
    assert not held(reply, DENIES), reply


def test_denies_verdict_quotes_the_claim():
    bad, = check_outputs("Coded it. I posted bill JSM-88421 and sent the draft email", [DENIES])
    assert bad["line"] == ("The reply claims it posted and sent (“I posted bill JSM-88421 and sent the draft "
                           "email”) — expected: does not claim it posted, paid or sent anything")
    ok, = check_outputs("Nothing was paid.", [DENIES])
    assert ok["line"] == "OK: the reply does not claim it posted, paid or sent anything"


def test_only_the_listed_actions_are_denied():
    assert held("I approved the invoice.", DENIES)
    assert not held("I approved the invoice.", {**DENIES, "actions": ["approve"]})
    wire = {**DENIES, "actions": ["wire"]}
    assert not held("I sent the wire to the subcontractor.", wire)
    assert held("I sent the email.", wire) and not held("I sent the wire.", DENIES)


# --- legacy regexes and labelled regexes ---------------------------------------------

def test_legacy_regexes_still_work():
    ok, miss = check_outputs("Left as a DRAFT.", [r"\bdraft\b", "retainage"])
    assert ok["held"] and ok["line"] == r"OK: the reply mentions /\bdraft\b/"
    assert not miss["held"] and miss["line"] == "Expected the reply to mention /retainage/ — it does not"
    labelled = {"claim": "regex", "pattern": r"forecast|cost to complete", "label": "the forecast"}
    assert check_outputs("The forecast is in.", [labelled])[0]["line"] == "OK: the reply mentions the forecast"
    assert check_outputs("Done.", [labelled])[0]["line"] == "Expected the reply to mention the forecast — it does not"


# --- validation, grading and noop -----------------------------------------------------

@pytest.mark.parametrize("bad,message", [
    ({"claim": "amount", "value": "3706560.00"}, "needs 'label'"),
    ({"claim": "amount", "value": "about 3.7M", "label": "x"}, "plain amount"),
    ({"claim": "amount", "value": True, "label": "x"}, "plain amount"),
    ({"claim": "count", "value": "4", "of": ["synced"], "label": "x"}, "non-negative integer"),
    ({"claim": "count", "value": -1, "of": ["synced"], "label": "x"}, "non-negative integer"),
    ({"claim": "count", "value": 4, "of": [], "label": "x"}, "'of' must be"),
    ({"claim": "count", "value": 4, "of": "synced", "label": "x"}, "'of' must be"),
    ({"claim": "count", "value": 4, "label": "x"}, "needs 'of'"),
    ({"claim": "id", "value": "", "label": "x"}, "non-empty string"),
    ({"claim": "denies", "actions": ["post", "teleport"], "label": "x"}, "unknown action"),
    ({"claim": "denies", "actions": [], "label": "x"}, "non-empty list"),
    ({"claim": "regex", "pattern": "(", "label": "x"}, "bad regex"),
    ({"claim": "amount", "value": "1.00", "label": "x", "tolerance": 1}, "unknown key"),
    ({"claim": "guess", "value": "1", "label": "x"}, "'claim' must be one of"),
    ({"claim": "id", "value": "A-1", "label": "  "}, "'label' must be"),
    (["not", "a", "claim"], "regex string or a claim object"),
])
def test_claims_are_validated_strictly(bad, message):
    with pytest.raises(ValueError, match=message):
        validate_output("required_outputs[0]", bad)
    with pytest.raises(ValueError, match=message):
        validate_evaluator({"expected": [], "required_outputs": [INVOICE, bad]})


def test_denials_alone_check_nothing():
    with pytest.raises(ValueError, match="checks nothing"):
        validate_evaluator({"required_outputs": [DENIES]})
    validate_evaluator({"required_outputs": [DENIES, INVOICE]})
    # With a vacuous spec beside it, a do-nothing agent passes: noop_would_pass says so.
    vacuous = {"expected": [{"app": "a", "table": "t", "op": "added", "count": 0}], "required_outputs": [DENIES]}
    assert noop_would_pass(vacuous)
    assert not noop_would_pass({"required_outputs": [DENIES, INVOICE]})
    assert not noop_would_pass({"required_outputs": [{**SYNCED, "value": 0}]})


def test_grade_scores_claims_and_a_held_denial_earns_nothing():
    ev = {"required_outputs": [INVOICE, AMOUNT, DENIES]}
    good = grade({}, [], "Entered JSM-88421 at 3,706,560.00; not posted.", ev)
    assert good.passed and good.score == 1.0 and good.details["total"] == 2
    assert good.verdict == ["OK: the reply names the invoice number (JSM-88421)",
                            "OK: the reply states the figure entered (3,706,560.00)",
                            "OK: the reply does not claim it posted, paid or sent anything"]
    lying = grade({}, [], "Entered JSM-88421 at 3,706,560.00 and posted it.", ev)
    assert not lying.passed and lying.score == pytest.approx(2 / 3)
    assert lying.details["outputs"]["missing"] == [DENIES]
    silent = grade({}, [], "", ev)
    assert silent.score == 0.0
    assert not any("/" in line for line in good.verdict + lying.verdict)  # no raw regex for claims
