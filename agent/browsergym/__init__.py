"""CFAgentBench as a BrowserGym benchmark: `browsergym/cfab.<instance_id>` tasks, played on a
running `cfab serve` over HTTP.

    pip install -e '.[browsergym]'          # browsergym-core and browsergym-experiments
    import agent.browsergym                 # registers every task, as browsergym.webarena does
    env = gymnasium.make("browsergym/cfab.cf_H_procore_erp_sync_1042")

As BrowserGym's own task packages do, importing this package registers its tasks (that is how
`gymnasium.make("browsergym/...")` finds them). Nothing else happens at import: no server is
contacted until a task is set up. The server comes from $CFAB_URL and $CFAB_ADMIN_TOKEN, or from
`task_kwargs={"server_url": ..., "admin_token": ...}`.

- `instances()`: the registered instances with their domain, family, difficulty, apps, guard
  and split (instances.json, written from the suite by `python -m agent.browsergym_instances`).
- `benchmark(...)`: AgentLab's benchmark object, a `bgym.Benchmark` (browsergym-experiments, the
  class AgentLab's studies take), with one `EnvArgs` per instance and the metadata above.
- `use_chromium(path)`: make every Chromium BrowserGym launches (its chat window too, which
  takes no launch options) this executable; for machines where Playwright's own download is
  missing, like Debian with its `chromium` package.
"""
from __future__ import annotations

import json
from importlib import resources

from browsergym.core.registration import register_task

from .task import CfabTask, ServerError, chromium_path

__all__ = ["ACTION_SET", "CfabTask", "ServerError", "benchmark", "chromium_path", "instances", "register_tasks",
           "use_chromium"]


# the benchmark's HighLevelActionSet: bid actions, chat, tabs and navigation, one action a step
ACTION_SET = {"subsets": ("chat", "infeas", "bid", "tab", "nav"), "multiaction": False, "strict": False,
              "retry_with_force": True, "demo_mode": "off"}


def instances() -> list[dict]:
    return json.loads(resources.files(__package__).joinpath("instances.json").read_text())


def register_tasks() -> list[str]:
    """Register `browsergym/cfab.<instance_id>` for every instance (idempotent); the task names."""
    import gymnasium

    names = []
    for row in instances():
        if f"browsergym/{row['task_name']}" not in gymnasium.registry:
            register_task(row["task_name"], CfabTask, task_kwargs={"instance_id": row["instance_id"]})
        names.append(row["task_name"])
    return names


def benchmark(name: str = "cfagentbench", *, max_steps: int = 50, seeds: tuple[int, ...] = (0,),
              n_repeats: int = 1):
    """AgentLab's `bgym.Benchmark` over every instance: `benchmark().subset_from_split("valid")`,
    `.subset_from_glob("family", "C_*")` and the rest work as on BrowserGym's own benchmarks.
    Episodes are deterministic (the seed changes nothing), so pass^k is `n_repeats=k`."""
    import pandas as pd
    from browsergym.experiments.benchmark.base import Benchmark, HighLevelActionSetArgs
    from browsergym.experiments.benchmark.utils import make_env_args_list_from_fixed_seeds

    rows = instances()
    register_tasks()
    return Benchmark(
        name=name,
        high_level_action_set_args=HighLevelActionSetArgs(**ACTION_SET),
        is_multi_tab=True,  # a policy link in the task's instruction opens a tab
        supports_parallel_seeds=True,  # each run is its own episode on the server
        backends=[],  # BrowserGym has no backend for us to prepare: the server is started by hand
        env_args_list=make_env_args_list_from_fixed_seeds([r["task_name"] for r in rows], max_steps=max_steps,
                                                          fixed_seeds=list(seeds), n_repeats=n_repeats),
        task_metadata=pd.DataFrame([{**r, "apps": " ".join(r["apps"])} for r in rows]),
    )


class _Chromium:
    def __init__(self, browser_type, executable: str):
        self._type, self._executable = browser_type, executable

    def launch(self, *args, **kwargs):
        kwargs.setdefault("executable_path", self._executable)
        return self._type.launch(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._type, name)


class _Playwright:
    def __init__(self, pw, executable: str):
        self._pw, self.chromium = pw, _Chromium(pw.chromium, executable)

    def __getattr__(self, name):
        return getattr(self._pw, name)


def use_chromium(path: str | None = None) -> str:
    """Start BrowserGym's global Playwright with Chromium launches defaulting to `path` (else
    $CFAB_CHROMIUM or Debian's); BrowserEnv's `pw_chromium_kwargs={"executable_path": ...}` alone
    does not reach the chat window it opens. Returns the executable used."""
    import browsergym.core

    path = path or chromium_path()
    if not path:
        raise ServerError("No Chromium found: install Debian's chromium or set CFAB_CHROMIUM.")
    pw = browsergym.core._get_global_playwright()
    if isinstance(pw, _Playwright):
        pw.chromium._executable = path
    else:
        browsergym.core._set_global_playwright(_Playwright(pw, path))
    return path


register_tasks()
