"""What a task is. Instances are data; the oracle and the over-eager extras are plain functions."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Callable

DOMAINS = {
    "A": "Project Accounting", "B": "Billing", "C": "AP & Procurement", "G": "GL & Close",
    "H": "Cross-system", "P": "Payroll & HR", "R": "Reporting & Compliance", "T": "Cash & Treasury",
}


@dataclass(frozen=True)
class Task:
    """One executable instance: everything the runner, the grader and a person need."""

    instance_id: str
    family: str
    domain_code: str
    difficulty: int
    apps: tuple[str, ...]
    instruction: str
    policy_ref: str
    money_movement_guard: bool
    evaluator: dict
    user_role: str = "Controller"
    defect_variant: str | None = None
    # Dataset metadata (agent/dataset.py). taxonomy_path defaults to
    # "<domain>.<Family>.<defect_variant or base>" and parameters to the instance id's tail;
    # source_type/source_ref name the public standard or vendor documentation the family rests
    # on (None: not recorded, which the dataset build reports).
    taxonomy_path: str = ""
    parameters: dict = field(default_factory=dict)
    source_type: str | None = None
    source_ref: str | None = None
    # oracle_tools(env) -> reply ; env is portals.core.environment.Environment
    oracle_tools: Callable | None = field(default=None, compare=False, repr=False)
    # oracle_browser(portal) -> reply ; portal is agent.browser.Portal (page + helpers)
    oracle_browser: Callable | None = field(default=None, compare=False, repr=False)
    # overreach_*: one unrequested write, for the over-eager policy
    overreach_tools: Callable | None = field(default=None, compare=False, repr=False)
    overreach_browser: Callable | None = field(default=None, compare=False, repr=False)
    # guarded_*: one valid guarded call, for the over-eager policy
    guarded_tools: Callable | None = field(default=None, compare=False, repr=False)
    guarded_browser: Callable | None = field(default=None, compare=False, repr=False)
    # the admission gate (tasks/gate.py): wrong-but-plausible attempts that must fail for the
    # reason they name, right-but-different ones that must pass, and replies to grade alone
    near_misses: tuple = field(default=(), compare=False, repr=False)
    variants: tuple = field(default=(), compare=False, repr=False)
    reply_corpus: dict | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if not self.taxonomy_path:
            tail = self.family.split("_", 1)[1] if "_" in self.family else self.family
            camel = "".join(word[:1].upper() + word[1:] for word in tail.split("_"))
            object.__setattr__(self, "taxonomy_path",
                               f"{self.domain_code}.{camel}.{self.defect_variant or 'base'}")
        if not self.parameters:
            prefix = f"cf_{self.family}_"
            key = self.instance_id[len(prefix):] if self.instance_id.startswith(prefix) else self.instance_id
            object.__setattr__(self, "parameters", {"instance": key})

    @property
    def domain(self) -> str:
        return DOMAINS[self.domain_code]

    def problem_hash(self) -> str:
        """sha256 of what defines the problem, for contamination tracking."""
        body = json.dumps({"instruction": self.instruction, "apps": self.apps,
                           "evaluator": self.evaluator}, sort_keys=True)
        return "sha256:" + hashlib.sha256(body.encode()).hexdigest()

    def public(self) -> dict:
        """What an agent or a person may see: never the evaluator."""
        return {"instance_id": self.instance_id, "family": self.family, "domain": self.domain,
                "difficulty": self.difficulty, "apps": list(self.apps),
                "instruction": self.instruction, "policy_ref": self.policy_ref,
                "money_movement_guard": self.money_movement_guard, "user_role": self.user_role}

    def spec(self) -> dict:
        """The full instance record (the dataset line), evaluator included."""
        return {**self.public(), "domain_code": self.domain_code,
                "defect_variant": self.defect_variant, "ground_truth": self.evaluator,
                "contamination_meta": {"hash_of_problem": self.problem_hash()}}
