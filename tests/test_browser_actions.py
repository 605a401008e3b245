"""BrowserGym's action vocabulary as the browser agent and the gym env read it: every action's
written forms (positional, BrowserGym's keywords, this project's older names), what each is
refused for, and the pruned HTML and screenshot of the observation dict."""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from agent.llm.observe import ACTIONS, ActionError, normalize, parse_actions, prune_html, screenshot_array


def read(text: str):
    [(name, args)] = parse_actions(text)
    return name, normalize(name, args)


@pytest.mark.parametrize("text, name, args", [
    ("noop()", "noop", {"wait_ms": 1000.0}),
    ("noop(wait_ms=500)", "noop", {"wait_ms": 500.0}),
    ("click('e12')", "click", {"bid": "e12", "button": "left", "modifiers": []}),
    ("click(bid='invoice-X-sync', button='right', modifiers=['Shift', 'Alt'])", "click",
     {"bid": "invoice-X-sync", "button": "right", "modifiers": ["Shift", "Alt"]}),
    ("dblclick('a1', 'middle')", "dblclick", {"bid": "a1", "button": "middle", "modifiers": []}),
    ("hover(bid='nav-logo')", "hover", {"bid": "nav-logo"}),
    ("fill(bid='filter-search', value='HDA4')", "fill", {"bid": "filter-search", "value": "HDA4"}),
    ("fill('e3', '9140')", "fill", {"bid": "e3", "value": "9140"}),
    ("fill('e3', 9140)", "fill", {"bid": "e3", "value": "9140"}),
    ("fill(bid='e3', text='old name')", "fill", {"bid": "e3", "value": "old name"}),
    ("clear('filter-search')", "clear", {"bid": "filter-search"}),
    ("focus(bid='filter-search')", "focus", {"bid": "filter-search"}),
    ("press(bid='filter-search', key_comb='Enter')", "press", {"bid": "filter-search", "key_comb": "Enter"}),
    ("press('e4', 'Control+a')", "press", {"bid": "e4", "key_comb": "Control+a"}),
    ("select_option(bid='filter-status', options='Approved')", "select_option",
     {"bid": "filter-status", "options": "Approved"}),
    ("select_option('s1', ['a', 'b'])", "select_option", {"bid": "s1", "options": ["a", "b"]}),
    ("select_option(bid='s1', value='a')", "select_option", {"bid": "s1", "options": "a"}),
    ("scroll(0, 200)", "scroll", {"delta_x": 0.0, "delta_y": 200.0}),
    ("scroll(delta_x=-10.5, delta_y=0)", "scroll", {"delta_x": -10.5, "delta_y": 0.0}),
    ("scroll(dx=0, dy=300)", "scroll", {"delta_x": 0.0, "delta_y": 300.0}),
    ("keyboard_press('Enter')", "keyboard_press", {"key": "Enter"}),
    ("keyboard_press(key='Control+a')", "keyboard_press", {"key": "Control+a"}),
    ("keyboard_type(text='9140')", "keyboard_type", {"text": "9140"}),
    ("goto(url='/procore/')", "goto", {"url": "/procore/"}),
    ("go_back()", "go_back", {}),
    ("go_forward()", "go_forward", {}),
    ("new_tab()", "new_tab", {}),
    ("tab_focus(index=1)", "tab_focus", {"index": 1}),
    ("tab_close()", "tab_close", {}),
    ("send_msg_to_user(text='Synced 3')", "send_msg_to_user", {"text": "Synced 3"}),
    ("report_infeasible(reason='no such job')", "report_infeasible", {"reason": "no such job"}),
    ("finish('done')", "finish", {"reply": "done"}),
    ("finish(summary='done')", "finish", {"reply": "done"}),
])
def test_every_action_form_reads_as_browsergym_names(text, name, args):
    assert read(text) == (name, args)


def test_every_action_has_a_form_above():
    forms = {case.split("(")[0] for case in ["noop(", "click(", "dblclick(", "hover(", "fill(", "clear(",
             "focus(", "press(", "select_option(", "scroll(", "keyboard_press(", "keyboard_type(", "goto(",
             "go_back(", "go_forward(", "new_tab(", "tab_focus(", "tab_close(", "send_msg_to_user(",
             "report_infeasible(", "finish("]}
    assert forms == set(ACTIONS)


def test_an_action_is_found_in_prose_and_code_blocks_one_per_turn():
    assert read("I will search first.\n```\nfill(bid='filter-search', value='x')\n```\nthen click('e1')") \
        == ("fill", {"bid": "filter-search", "value": "x"})
    assert read("The key is keyboard_press('Tab')")[0] == "keyboard_press"  # not press(
    assert read("dblclick('e2')")[0] == "dblclick"  # not click(
    assert parse_actions("nothing to do here") == []
    assert parse_actions("click(e12)") == []  # a bare name is not a value


@pytest.mark.parametrize("text, message", [
    ("fill(bid='e3', val='x')", "fill takes bid, value, not 'val'"),
    ("fill('e3')", "fill needs value"),
    ("click()", "click needs bid"),
    ("click('e1', button='side')", "button is one of left, middle, right"),
    ("click('e1', modifiers=['Hyper'])", "modifiers is a list of Alt"),
    ("click('e1', modifiers='Shift')", "modifiers is a list of Alt"),
    ("scroll('down', 200)", "delta_x is a number"),
    ("scroll(0, True)", "delta_y is a number"),
    ("tab_focus('1')", "index is a tab number"),
    ("tab_focus()", "tab_focus needs index"),
    ("select_option('s1', 3)", "options is an option's value or label"),
    ("select_option('s1', [])", "options is an option's value or label"),
    ("go_back('x')", "go_back takes at most 0 argument(s)"),
    ("noop(1, 2)", "noop takes at most 1 argument(s)"),
    ("press('e1', ['Enter'])", "key_comb is text"),
    ("goto(url=3)", "goto's url is text"),
])
def test_bad_arguments_are_refused_with_what_is_wrong(text, message):
    [(name, args)] = parse_actions(text)
    with pytest.raises(ActionError) as err:
        normalize(name, args)
    assert message in str(err.value)


def test_an_unknown_action_names_the_known_ones():
    with pytest.raises(ActionError, match="unknown action 'mouse_click'.*noop.*go_back"):
        normalize("mouse_click", {"x": 1, "y": 2})
    with pytest.raises(ActionError, match="an object of named values"):
        normalize("click", ["e1"])


PAGE = """<!doctype html><html><head><title>Invoices</title><meta charset="utf-8">
<link rel="stylesheet" href="/s.css"><script>var secret = 1;</script><style>.x{}</style></head>
<body class="skin-procore" style="margin:0"><!-- a comment -->
<div><div><nav aria-label="Company tools" class="nav"><a href="/p/" data-bid="nav-portfolio" class="l">Portfolio</a></nav></div></div>
<main><form method="get" action="/p/invoicing" hx-get="/p/invoicing" hx-trigger="input delay:300ms">
<label for="q">Search invoices</label><input id="q" name="q" type="search" data-bid="filter-search" value="">
<input type="hidden" name="csrf_token" value="tok">
<select name="status" data-bid="filter-status"><option value="">All</option><option value="approved" selected>Approved</option><option value="paid">Paid</option></select>
<input type="checkbox" name="mine" data-bid="filter-mine" checked>
<textarea name="note" data-bid="note"></textarea>
<button type="submit" data-bid="filter-submit" class="btn">Filter</button></form>
<p hidden>not shown</p><span aria-hidden="true">*</span>
<table><caption>Invoices</caption><tr><th scope="col">Invoice #</th></tr><tr><td><a href="/p/i/1" data-bid="invoice-A-1">A-1</a></td></tr></table>
<svg><path d="M0 0"/></svg></main></body></html>"""


def test_pruned_html_keeps_structure_bids_and_current_values_only():
    fields = {"filter-search": {"value": "HDA4"}, "filter-status": {"selected": ["paid"]},
              "filter-mine": {"checked": False}, "note": {"value": "see <b>"}}
    html = prune_html(PAGE, fields)
    for gone in ("<script", "secret", "<style", "<link", "<meta", "comment", "class=", "style=", "hx-get",
                 "csrf_token", "not shown", "<svg", "aria-hidden"):
        assert gone not in html, gone
    assert "<title>Invoices</title>" in html
    assert '<a bid="nav-portfolio" href="/p/">Portfolio</a>' in html
    assert '<nav aria-label="Company tools">' in html
    assert 'bid="filter-search"' in html and 'value="HDA4"' in html
    assert '<option selected="" value="paid">' in html and '<option value="approved">' in html
    assert 'bid="filter-mine" name="mine" type="checkbox"/>' in html  # unchecked now
    assert "see &lt;b&gt;</textarea>" in html
    assert '<th scope="col">Invoice #</th>' in html and 'bid="invoice-A-1"' in html
    assert "<div>" not in html  # attribute-less wrappers of one element are unwrapped
    served = prune_html(PAGE)  # without the page's state: the values it was served with
    assert '<option selected="" value="approved">' in served and 'checked="" name="mine"' in served


def test_screenshot_is_an_rgb_array():
    buffer = io.BytesIO()
    Image.new("RGBA", (7, 3), (10, 20, 30, 255)).save(buffer, format="PNG")
    shot = screenshot_array(buffer.getvalue())
    assert shot.shape == (3, 7, 3) and shot.dtype == np.uint8 and tuple(shot[1, 2]) == (10, 20, 30)


TREE = """- generic [active] [ref=e1]:
  - main [ref=e14]:
    - heading "Invoicing" [level=1] [ref=e16]
    - generic "Select a Project" [ref=e8] [bid=nav-project-picker] [cursor=pointer]
    - 'columnheader "Invoice #" [ref=e40]':
      - 'link "Invoice #" [ref=e41] [bid=sort-invoice] [cursor=pointer]':
        - /url: /p?sort=invoice
    - row [ref=e60]:
      - cell "$63,257.79" [ref=e71]
      - cell [ref=e77]:
        - button "Re-sync invoice WE-1 to ERP" [ref=e79] [cursor=pointer]
        - textbox "Note" [ref=e80]"""


def test_the_agent_s_tree_drops_refs_of_read_only_structure_and_keeps_every_text():
    from agent.llm.observe import compact

    assert compact(TREE).splitlines() == [
        "- generic [active]:",
        "  - main:",
        '    - heading "Invoicing" [level=1]',
        '    - generic "Select a Project" [ref=e8] [bid=nav-project-picker]',  # marked: clickable
        "    - 'columnheader \"Invoice #\"':",
        "      - 'link \"Invoice #\" [ref=e41] [bid=sort-invoice]':",
        "        - /url: /p?sort=invoice",
        "    - row:",
        '      - cell "$63,257.79"',
        "      - cell:",
        '        - button "Re-sync invoice WE-1 to ERP" [ref=e79]',
        '        - textbox "Note" [ref=e80]']


def test_a_tree_too_long_loses_lines_from_its_middle_and_says_how_many():
    from agent.llm.observe import cut_to_fit

    lines = [f"- row: line {i:04d}" for i in range(2000)]
    tree = "\n".join(lines)
    assert cut_to_fit(tree, limit=len(tree)) == tree
    cut = cut_to_fit(tree, limit=4000, tail=1000).splitlines()
    note = next(line for line in cut if "left out here" in line)
    kept = [line for line in cut if line != note]
    assert len("\n".join(cut)) <= 4000 + len(note) + 1
    assert kept[0] == lines[0] and kept[-1] == lines[-1]  # its head and its end (the pager)
    assert all(line in lines for line in kept)  # whole lines only
    assert note.startswith(f"… [{2000 - len(kept)} lines of this page left out here")
