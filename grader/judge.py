"""L3: an LLM judge scores a narrative reply against a written rubric.

Reported beside the grade (`judge` on a run) and never part of pass/fail: state decides the
grade, the judge only comments on prose the regexes cannot read. `cohen_kappa` measures how
far the judge agrees with human labels (`cfab judge-calibrate`).
"""
from __future__ import annotations

import json
import re

SYSTEM = """\
You grade one reply written by a finance operations agent to the person who gave it a task.
Score it against the rubric only: 1.0 when it fully meets the rubric, 0.0 when it does not,
and in between for partial credit. Judge what the reply says, not how well it is written.
Answer with one JSON object and nothing else: {"score": <number 0..1>, "reason": "<one sentence>"}"""


def _prompt(reply: str, rubric: str, instruction: str | None) -> str:
    task = f"Task given to the agent:\n{instruction}\n\n" if instruction else ""
    return f"{task}Rubric:\n{rubric}\n\nReply to grade:\n<<<\n{reply}\n>>>"


def json_objects(text: str):
    """Every JSON object embedded in a model's free text, in order (models wrap JSON in prose)."""
    decoder = json.JSONDecoder()
    for start in [m.start() for m in re.finditer(r"\{", text or "")]:
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value


def parse_verdict(text: str) -> tuple[float | None, str]:
    """The judge's score (clamped to 0..1) and reason, from JSON or a loose 'score: x' line."""
    for value in json_objects(text):
        if "score" in value:
            try:
                return min(1.0, max(0.0, float(value["score"]))), str(value.get("reason", ""))
            except (TypeError, ValueError):
                break
    loose = re.search(r"score\W{0,3}([01](?:\.\d+)?)", text or "", re.I)
    if loose:
        return float(loose.group(1)), (text or "").strip()[:300]
    return None, f"unreadable judge answer: {(text or '')[:200]!r}"


def judge_reply(client, reply: str, rubric: str, instruction: str | None = None) -> dict:
    """Score one reply. `client` is agent.llm.client.ChatClient; provider failures become
    `score: None` with the error as the reason, so a judge outage never breaks a sweep."""
    from agent.accounting import InfraError

    meter = client.meter()
    messages = [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": _prompt(reply or "", rubric, instruction)}]
    try:
        message = client.complete(messages, meter)
        score, reason = parse_verdict(getattr(message, "content", "") or "")
    except InfraError as err:
        score, reason = None, f"judge unavailable: {err}"
    return {"score": score, "reason": reason, "model": client.model,
            "tokens_in": meter.tokens_in, "tokens_out": meter.tokens_out,
            "cost_usd": round(meter.cost_usd, 6)}


def cohen_kappa(a: list[bool], b: list[bool]) -> float:
    """Cohen's kappa for two binary raters; 1.0 when both are constant and agree."""
    if len(a) != len(b) or not a:
        raise ValueError("kappa needs two equally long, non-empty label lists")
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    if expected == 1.0:
        return 1.0 if observed == 1.0 else 0.0
    return (observed - expected) / (1 - expected)


def calibrate(client, items: list[dict], threshold: float = 0.5) -> dict:
    """Judge every labelled item; agreement, accuracy and kappa against the human labels.

    An item the judge could not score counts as a judge 'fail' (and is listed), so outages
    lower agreement instead of silently shrinking the sample."""
    rows = []
    for item in items:
        verdict = judge_reply(client, item["reply"], item["rubric"], item.get("instruction"))
        judged = verdict["score"] is not None and verdict["score"] >= threshold
        rows.append({"id": item.get("id"), "label": item["label"], "judge_pass": judged,
                     "score": verdict["score"], "reason": verdict["reason"]})
    human = [row["label"] == "pass" for row in rows]
    judged = [row["judge_pass"] for row in rows]
    agree = sum(h == j for h, j in zip(human, judged))
    return {"model": client.model, "n": len(rows), "threshold": threshold,
            "accuracy": agree / len(rows), "kappa": cohen_kappa(human, judged),
            "unscored": [row["id"] for row in rows if row["score"] is None], "items": rows}


def load_items(path: str) -> list[dict]:
    with open(path) as fh:
        items = [json.loads(line) for line in fh if line.strip()]
    for item in items:
        if item.get("label") not in ("pass", "fail") or not item.get("rubric"):
            raise ValueError(f"calibration item {item.get('id')!r} needs a rubric and label pass|fail")
    return items
