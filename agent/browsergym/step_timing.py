"""BrowserGym's step on the page `cfab bench` times its own browser step on, for the comparison.

Run in BrowserGym's virtualenv against a running `cfab serve` ($CFAB_URL, $CFAB_ADMIN_TOKEN):

    python -m agent.browsergym.step_timing --page /procore/invoicing --click page-next \
        --click page-previous --steps 30 --delay 0.5 --delay 0.05 > steps.json

For each `--delay` (BrowserEnv's `pre_observation_delay`: 0.5 s is what BrowserGym ships; this
project's BrowserGym tests use 0.05 s) it opens a task of this package, goes to the page, and
times `env.step("click('<bid>')")` on the elements with the given stable ids in turn: the whole
step (the action, BrowserGym's waits and its observation: DOM snapshot, accessibility tree,
screenshot) and, from the step's own info, the action alone. BrowserGym waits a fixed delay
after an action, not for htmx's swap, so with a short delay a step can observe the page as it
was before the click: such steps are counted (`stale_observations`; the next step first takes a
fresh observation, untimed). The first three steps warm up and are not counted. It prints one
JSON object with every step's seconds; `cfab bench` (agent/bench.py, which picks the page and
the clicks) sums them up.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

INSTANCE = "cf_H_procore_erp_sync_1042"  # a task with Procore among its apps
WARM_UP = 3


def time_steps(page_path: str, clicks: list[str], delay: float, steps: int) -> dict:
    import gymnasium as gym
    from browsergym.core.action.highlevel import HighLevelActionSet
    from browsergym.utils.obs import flatten_axtree_to_str

    from . import ACTION_SET
    from .task import server_settings

    base, _token = server_settings()
    action_set = HighLevelActionSet(**ACTION_SET)
    env = gym.make(f"browsergym/cfab.{INSTANCE}", action_mapping=action_set.to_python_code,
                   pre_observation_delay=delay, disable_env_checker=True, headless=True)
    try:
        env.reset(seed=0)
        obs, *_ = env.step(f"goto({json.dumps(base + page_path)})")
        if obs["last_action_error"]:
            raise RuntimeError(f"goto {page_path}: {obs['last_action_error']}")
        page = env.unwrapped.page
        totals, actions, stale = [], [], 0
        def marked(stable_id: str) -> str | None:  # BrowserGym's id for it, as its last observation marked it
            return page.locator(f'[data-bid="{stable_id}"]').get_attribute("bid")

        for i in range(steps + WARM_UP):
            bid = marked(clicks[i % len(clicks)])
            if bid is None:
                # the last observation was taken before htmx swapped the clicked page in (BrowserGym
                # waits a fixed delay, not for the swap): that step observed the old page
                stale += i > WARM_UP
                env.step("noop(0)")
                bid = marked(clicks[i % len(clicks)])
            t0 = time.perf_counter()
            obs, _reward, _done, _truncated, info = env.step(f"click({json.dumps(bid)})")
            elapsed = time.perf_counter() - t0
            if obs["last_action_error"]:
                raise RuntimeError(f"click({bid!r}): {obs['last_action_error'][:300]}")
            if i >= WARM_UP:
                totals.append(elapsed)
                actions.append(info["action_exec_stop"] - info["action_exec_start"])
        return {"step_s": totals, "action_s": actions, "pre_observation_delay_s": delay,
                "stale_observations": stale,
                "axtree_chars": len(flatten_axtree_to_str(obs["axtree_object"]))}
    finally:
        env.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", required=True, help="The portal page, e.g. /procore/invoicing")
    parser.add_argument("--click", action="append", required=True,
                        help="The stable id (data-bid) of an element to click (repeatable: clicked in turn)")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--delay", type=float, action="append",
                        help="BrowserEnv's pre_observation_delay in seconds (repeatable; default 0.5 and 0.05)")
    args = parser.parse_args(argv)
    import browsergym.core

    from . import use_chromium

    use_chromium()
    out = {"browsergym_core": getattr(browsergym.core, "__version__", "?"), "instance": INSTANCE,
           "runs": [time_steps(args.page, args.click, delay, args.steps) for delay in (args.delay or [0.5, 0.05])]}
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
