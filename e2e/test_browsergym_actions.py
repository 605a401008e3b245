"""BrowserGym's action set, in its keyword forms, driving a real portal page in Chromium; the
observation dict in BrowserGym's shape; the gym env's dict observations."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from _threads import in_own_thread  # noqa: E402

from agent.gym_env import CfabEnv  # noqa: E402
from agent.llm.observe import ActionError, BrowserActions, parse_actions  # noqa: E402

LIST = "/procore/projects/2041/invoicing"


def act(actions: BrowserActions, text: str) -> str:
    [(name, args)] = parse_actions(text)
    return actions.execute(name, args)


def refused(actions: BrowserActions, text: str) -> str:
    with pytest.raises(ActionError) as err:
        act(actions, text)
    return str(err.value)


def value(page, bid: str) -> str:
    return page.locator(f'[data-bid="{bid}"]').input_value()


def test_browsergym_keyword_actions_drive_a_portal(portal):
    page = portal.page
    actions = BrowserActions(page, portal.base_url)
    act(actions, f"goto(url='{LIST}')")
    first = actions.observe()["axtree"]
    assert "[bid=invoice-HDA4-2604-01]" in first and "[bid=invoice-HDA4-2605-02]" in first

    # typing: fill with BrowserGym's names, clear, focus + keyboard typing and presses
    act(actions, "fill(bid='filter-search', value='HDA4-2605')")
    tree = actions.observe()["axtree"]
    assert "[bid=invoice-HDA4-2605-02]" in tree and "[bid=invoice-HDA4-2604-01]" not in tree
    act(actions, "clear(bid='filter-search')")
    assert value(page, "filter-search") == "" and "[bid=invoice-HDA4-2604-01]" in actions.observe()["axtree"]
    act(actions, "focus(bid='filter-commitment')")
    assert actions.gym_observation()["focused_element_bid"] == "filter-commitment"
    act(actions, "keyboard_type(text='SC-2041')")
    assert value(page, "filter-commitment") == "SC-2041"
    act(actions, "keyboard_press(key='Control+a')")
    act(actions, "keyboard_press(key='Backspace')")
    assert value(page, "filter-commitment") == ""
    act(actions, "select_option(bid='filter-status', options='Paid')")
    assert page.locator('[data-bid="filter-status"] option:checked').inner_text() == "Paid"
    act(actions, "select_option(bid='filter-status', options=['All'])")
    act(actions, "noop()")
    act(actions, "fill('filter-search', 'HDA4-2604')")  # positional, as BrowserGym writes too
    act(actions, "press(bid='filter-search', key_comb='Enter')")  # submits the filter form
    assert "HDA4-2604" in page.url and "[bid=invoice-HDA4-2605-02]" not in actions.observe()["axtree"]
    act(actions, f"goto('{LIST}')")

    # scrolling really moves the page, and says when it cannot
    assert "scrollY 200" in act(actions, "scroll(delta_x=0, delta_y=200)")
    assert page.evaluate("window.scrollY") == 200
    act(actions, "scroll(0, -5000)")
    assert page.evaluate("window.scrollY") == 0
    assert "nothing to scroll that way" in refused(actions, "scroll(delta_x=0, delta_y=-10)")

    # pointer: hover, click with BrowserGym's button/modifiers, history both ways
    act(actions, "hover(bid='invoice-HDA4-2604-01')")
    assert page.locator('[data-bid="invoice-HDA4-2604-01"]').evaluate("e => e.matches(':hover')")
    act(actions, "click(bid='invoice-HDA4-2604-01', button='left', modifiers=[])")
    detail = page.url
    assert "/invoicing/" in detail and detail != portal.base_url + LIST
    act(actions, "go_back()")
    assert page.url == portal.base_url + LIST
    act(actions, "go_forward()")
    assert page.url == detail
    assert "no element with id 'nope-nope'" in refused(actions, "click(bid='nope-nope')")
    assert "takes bid, value, not 'val'" in refused(actions, "fill(bid='filter-search', val='x')")

    # tabs
    act(actions, "new_tab()")
    assert refused(actions, "go_back()") == "there is no earlier page in this tab"
    act(actions, "goto('/procore/')")
    obs = actions.gym_observation()
    assert obs["open_pages_urls"] == (detail, portal.base_url + "/procore/") and obs["active_page_index"] == 1
    act(actions, "tab_focus(0)")
    assert actions.page.url == detail
    assert "there is no tab 5" in refused(actions, "tab_focus(index=5)")
    act(actions, "tab_close()")
    assert actions.page.url == portal.base_url + "/procore/" and len(actions.pages()) == 1
    assert "only tab" in refused(actions, "tab_close()")


def test_observation_dict_has_browsergym_shape(portal):
    actions = BrowserActions(portal.page, portal.base_url)
    act(actions, f"goto('{LIST}')")
    act(actions, "fill(bid='filter-search', value='HDA4')")
    obs = actions.gym_observation(goal="Sync the invoices", last_action="fill(...)",
                                  last_action_error="", screenshot=True)
    assert set(obs) >= {"goal", "goal_object", "chat_messages", "axtree_txt", "pruned_html", "screenshot", "url",
                        "open_pages_urls", "open_pages_titles", "active_page_index", "last_action",
                        "last_action_error", "focused_element_bid"}
    assert obs["goal"] == "Sync the invoices" and obs["chat_messages"][0] == {"role": "user", "message": "Sync the invoices"}
    assert obs["url"] == portal.base_url + LIST + "?search=HDA4" and obs["open_pages_urls"] == (obs["url"],)
    assert "[bid=filter-search]" in obs["axtree_txt"]
    html = obs["pruned_html"]
    assert 'bid="filter-search"' in html and 'value="HDA4"' in html and "<script" not in html
    assert 'bid="invoice-HDA4-2604-01"' in html
    assert isinstance(obs["screenshot"], np.ndarray) and obs["screenshot"].shape == (860, 1280, 3)
    assert obs["screenshot"].dtype == np.uint8 and obs["screenshot"].std() > 0
    assert "screenshot" not in actions.gym_observation()


def test_gym_env_gives_browsergym_observation_dicts(e2e_store):
    in_own_thread(_gym_env_dicts, e2e_store)


def _gym_env_dicts(store):
    env = CfabEnv("cf_H_procore_erp_sync_2041", transport="browser", store=store, max_steps=4,
                  observation="dict", screenshot=True)
    obs, _ = env.reset()
    assert env.observation_space.contains(obs) and obs["goal"] == env.task.instruction
    obs, reward, terminated, *_ = env.step(f"goto(url='{LIST}')")
    assert env.observation_space.contains(obs) and obs["last_action_error"] == ""
    obs, *_ = env.step("fill(bid='filter-search', value='HDA4-2605')")
    assert 'value="HDA4-2605"' in obs["pruned_html"] and "[bid=invoice-HDA4-2604-01]" not in obs["axtree_txt"]
    obs, *_ = env.step("select_option(bid='filter-status', option_name='Paid')")
    assert "select_option takes bid, options" in obs["last_action_error"]
    obs, reward, terminated, truncated, info = env.step("send_msg_to_user(text='nothing synced')")
    assert truncated and obs["chat_messages"][-1] == {"role": "assistant", "message": "nothing synced"}
    assert reward < 1.0 and not info["passed"] and info["reply"] == "nothing synced"
    env.close()


def test_a_click_a_pointer_could_not_make_is_refused_at_once_with_the_reason(portal):
    """A disabled button, a hidden one and one under another element answer why, without
    waiting out the action timeout, and nothing is clicked."""
    page = portal.page
    actions = BrowserActions(page, portal.base_url)
    act(actions, f"goto(url='{LIST}')")
    page.evaluate("""() => {
      const a = document.querySelector('[data-bid="invoice-HDA4-2604-01-sync"],[data-bid="invoice-HDA4-2604-01-resync"]');
      a.disabled = true;
      document.querySelector('[data-bid="invoice-HDA4-2605-02"]').style.display = 'none';
      const cover = document.createElement('div');
      cover.textContent = 'Loading';
      cover.style.cssText = 'position:fixed;inset:0;z-index:99;background:#fff8';
      cover.id = 'cover';
      document.body.append(cover);
    }""")
    button = page.locator('[data-bid="invoice-HDA4-2604-01-sync"],[data-bid="invoice-HDA4-2604-01-resync"]')
    bid = button.get_attribute("data-bid")
    assert "it is disabled" in refused(actions, f"click(bid='{bid}')")
    assert "another element covers it" in refused(actions, "click(bid='invoice-HDA4-2604-01')")
    assert "Loading" in refused(actions, "click(bid='invoice-HDA4-2604-01')")
    page.evaluate("document.getElementById('cover').remove()")
    assert "not visible" in refused(actions, "click(bid='invoice-HDA4-2605-02')")
    before = page.url
    act(actions, "click(bid='invoice-HDA4-2604-01')")
    assert page.url != before and "/invoicing/" in page.url
