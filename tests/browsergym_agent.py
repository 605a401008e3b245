"""A scripted BrowserGym agent, run inside BrowserGym's own virtualenv by
tests/test_browsergym_venv.py: `python browsergym_agent.py PLAN.json RESULTS.json`.

It plays `browsergym/cfab.<instance_id>` tasks through agent/browsergym/ (only browsergym-core,
the benchmark's action set and the server's HTTP API; no project code that needs the project's
Playwright). Each step of the plan names an element the way a person's recording does (role,
accessible name, position among equals); the agent finds that element in its own observation's
accessibility tree, takes BrowserGym's bid for it, and sends a HighLevelActionSet action:
click('123'), fill('45', '...'), select_option('67', '...'), goto('http://...'), and at the end
send_msg_to_user('...'), whose grade is the reward.
"""
from __future__ import annotations

import json
import sys
import time

import gymnasium as gym

import agent.browsergym as cfab_bgym
from agent.browsergym.oracle import document_id, play_oracle, spurious_timeout, typing_timed_out

SKIP_ROLES = {"StaticText", "LabelText", "InlineTextBox", "generic", "none", "paragraph", "cell",
              "gridcell", "rowheader", "columnheader", "row", "listitem", "heading", "option"}
TAG_ROLES = {"summary": "DisclosureTriangle"}


def _nodes(obs):
    for node in obs["axtree_object"]["nodes"]:
        bid = node.get("browsergym_id")
        if bid is None or node.get("ignored"):
            continue
        url = next((str((p.get("value") or {}).get("value", "")) for p in node.get("properties", [])
                    if p.get("name") == "url"), "")
        yield bid, (node.get("role") or {}).get("value", ""), (node.get("name") or {}).get("value", ""), url


def same_name(accessible: str, recorded: str) -> bool:
    """An accessible name is the label a recording named: without case, and without the "*" a
    required field's label shows (CSS generated content, part of Chromium's accessible name)."""
    def norm(text: str) -> str:
        return text.strip().removesuffix("*").strip().casefold()
    return norm(accessible) == norm(recorded)


def contains_name(accessible: str, wanted: str) -> bool:
    """Playwright's get_by_role(name=..., exact=False): the name holds the text, without case."""
    return wanted.strip().casefold() in accessible.casefold()


def find_bid(obs, step) -> str:
    """BrowserGym's bid of the element the step names, read off the observation's AX tree: by
    role and accessible name (and a link's address, when the recording has it), the nth of the
    visible ones. Names compare without case and a required field's "*": Chromium's tree carries a
    label's CSS text-transform (Procore's filter labels read STATUS) and generated content, a
    recording the DOM's text."""
    role = step.get("role") or TAG_ROLES.get(step.get("tag", ""))
    name = step["name"]
    href = step.get("href")
    match = same_name if step.get("exact", True) else contains_name
    found = [(bid, r) for bid, r, n, url in _nodes(obs) if match(n, name) and r not in SKIP_ROLES
             and (role is None or r == role) and (not href or url.split("#")[0].endswith(href))]
    nth = step.get("nth", 0)
    if step.get("of") and len(found) == step["of"] and nth < len(found):
        # the page holds exactly the equals the recording counted: the nth of them, scrolled to if
        # it is below the fold (BrowserGym's visibility is the share of it inside the viewport)
        return found[nth][0]
    props = obs["extra_element_properties"]
    visible = [bid for bid, _ in found if (props.get(bid) or {}).get("visibility", 0) > 0] or [b for b, _ in found]
    if not visible:
        near = [(r, n) for _b, r, n, _u in _nodes(obs) if name.lower() in n.lower()][:8]
        raise LookupError(f"no {role or 'element'} named {name!r} in the accessibility tree of {obs['url']}"
                          f" (named alike: {near})")
    return visible[nth] if nth < len(visible) else visible[0]


def action_for(obs, step, base: str) -> str:
    op = step["op"]
    if op == "goto":
        return f"goto({json.dumps(base + step['path'])})"
    bid = find_bid(obs, step)
    if op == "click":
        return f"click({json.dumps(bid)})"
    if op == "fill":
        return f"fill({json.dumps(bid)}, {json.dumps(step['value'])})"
    if op == "select":
        return f"select_option({json.dumps(bid)}, {json.dumps(step['value'])})"
    raise ValueError(f"unknown step {op!r}")


def play(run: dict, base: str, action_set) -> dict:
    env = gym.make(f"browsergym/cfab.{run['instance_id']}", action_mapping=action_set.to_python_code,
                   pre_observation_delay=0.05, disable_env_checker=True, headless=run.get("headless", True))
    started, actions, out = time.monotonic(), [], {"instance_id": run["instance_id"], "variant": run["variant"]}
    try:
        obs, info = env.reset(seed=0)
        out["goal_starts"] = obs["goal"][:80]
        out["start_url"] = obs["url"]
        reward, terminated = 0.0, False
        if run["variant"] == "oracle":  # the suite's browser oracle, through BrowserGym's actions
            played = play_oracle(env, run["instance_id"], base, obs, actions=actions)
            out.update({k: played[k] for k in ("reward", "terminated", "task_info", "slow_navigations")})
            return out
        for step in [*run["steps"], {"op": "reply"}]:
            for wait in range(8):  # a list an htmx request is refilling: wait, as an agent would
                try:
                    action = (f"send_msg_to_user({json.dumps(run['reply'])})" if step["op"] == "reply"
                              else action_for(obs, step, base))
                    break
                except LookupError:
                    if wait == 7:
                        raise
                    actions.append("noop(500)")
                    obs, reward, terminated, truncated, info = env.step("noop(500)")
            actions.append(action)
            before = document_id(env.unwrapped.page)
            obs, reward, terminated, truncated, info = env.step(action)
            for _ in range(3):
                # the element was read off a list that an htmx request (a search typed a moment
                # ago) has since replaced: read the page again and act on the new element
                if step["op"] == "reply" or "Could not find element with bid" not in obs["last_action_error"]:
                    break
                actions.append("noop(500)")
                obs, reward, terminated, truncated, info = env.step("noop(500)")
                action = action_for(obs, step, base)
                actions.append(action)
                before = document_id(env.unwrapped.page)
                obs, reward, terminated, truncated, info = env.step(action)
            for _ in range(2):  # typing that took longer than BrowserGym's 500 ms: type it again
                if not typing_timed_out(obs["last_action_error"], action):
                    break
                actions.append(action)
                obs, reward, terminated, truncated, info = env.step(action)
            if obs["last_action_error"]:
                # a click whose page took longer than BrowserGym's 500 ms reports a timeout
                # although it was made: the page shows a new document (maybe at the same address)
                if spurious_timeout(obs["last_action_error"], before, env.unwrapped.page):
                    out.setdefault("slow_navigations", []).append(action)
                    continue
                raise RuntimeError(f"{action} on {obs['url']}: {obs['last_action_error'][:300]}")
            if terminated and step["op"] != "reply":
                raise RuntimeError(f"the episode ended early, after {action}")
        out.update(reward=reward, terminated=terminated, task_info=info["task_info"])
    except Exception as exc:  # reported to the test, which fails with it
        out["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        env.close()
        out.update(actions=out.get("actions") or actions, seconds=round(time.monotonic() - started, 1))
    return out


def main(plan_path: str, results_path: str) -> None:
    plan = json.loads(open(plan_path).read())
    cfab_bgym.use_chromium()
    bench = cfab_bgym.benchmark()
    action_set = bench.high_level_action_set_args.make_action_set()
    meta = {"benchmark": bench.name, "n_env_args": len(bench.env_args_list),
            "families": sorted(set(bench.task_metadata["family"])),
            "valid": len(bench.subset_from_split("valid").env_args_list)}
    runs = [play(run, plan["server_url"], action_set) for run in plan["runs"]]
    with open(results_path, "w") as fh:
        json.dump({"benchmark": meta, "runs": runs}, fh, indent=1, default=str)


if __name__ == "__main__":
    main(*sys.argv[1:3])
