/* The trajectory recorder: page visits, clicks, fills and selections on a task episode's portal
   pages, described by the element's stable id, role, accessible label and value so a replay can
   find the same element again. Events go to the episode's own endpoint (CSRF header, episode
   cookie); nothing inside the task panel is recorded: finishing is captured by the server. */
(function () {
  "use strict";
  var panel = document.getElementById("cfab-panel");
  if (!panel) return;
  var drawer = document.getElementById("cfab-drawer");
  var episode = panel.getAttribute("data-episode");
  var OPEN_KEY = "cfab-panel-open";

  // The drawer remembers being closed, across pages, for this tab.
  if (drawer) {
    if (sessionStorage.getItem(OPEN_KEY) === "0") drawer.open = false;
    drawer.addEventListener("toggle", function () { sessionStorage.setItem(OPEN_KEY, drawer.open ? "1" : "0"); });
  }
  if (panel.getAttribute("data-recording") !== "on") return;

  var url = panel.getAttribute("data-events-url");
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute("content") : "";
  // Server time at render minus this browser's clock: steps are timed on the server's clock.
  var offset = Number(panel.getAttribute("data-clock-ms")) - Date.now();
  var SEQ_KEY = "cfab-seq-" + episode, NAV_KEY = "cfab-nav-" + episode;
  var inflight = [];

  function nextSeq() {
    var n = Number(sessionStorage.getItem(SEQ_KEY) || "0") + 1;
    sessionStorage.setItem(SEQ_KEY, String(n));
    return n;
  }

  function here() { return location.pathname + location.search; }

  function send(event) {
    event.seq = nextSeq();
    event.at_ms = Date.now() + offset;
    event.url = event.url || here();
    // keepalive lets the request outlive the page a click is navigating away from
    var p = fetch(url, {method: "POST", keepalive: true, credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
      body: JSON.stringify({episode: episode, events: [event]})}).catch(function () {});
    inflight.push(p);
    p.then(function () { inflight.splice(inflight.indexOf(p), 1); });
  }

  function clean(s) { return (s || "").replace(/\s+/g, " ").trim(); }

  function visibleText(node) {
    var copy = node.cloneNode(true);
    copy.querySelectorAll('[aria-hidden="true"], input, select, textarea').forEach(function (n) { n.remove(); });
    return clean(copy.textContent);
  }

  function labelOf(el) {
    var v = el.getAttribute("aria-label");
    if (v) return clean(v);
    var ids = el.getAttribute("aria-labelledby");
    if (ids) return clean(ids.split(/\s+/).map(function (id) {
      var n = document.getElementById(id); return n ? visibleText(n) : "";
    }).join(" "));
    if (el.labels && el.labels.length) return visibleText(el.labels[0]);
    if (el.tagName === "INPUT" && /^(submit|button|reset)$/.test(el.type)) return clean(el.value);
    if (/^(A|BUTTON|SUMMARY)$/.test(el.tagName) || el.getAttribute("role")) return visibleText(el);
    return clean(el.getAttribute("title") || el.getAttribute("placeholder") || "");
  }

  var INPUT_ROLES = {checkbox: "checkbox", radio: "radio", submit: "button", button: "button", reset: "button",
    image: "button", search: "searchbox", number: "spinbutton", range: "slider", email: "textbox",
    tel: "textbox", text: "textbox", url: "textbox", password: "textbox"};

  function roleOf(el) {
    if (el.getAttribute("role")) return el.getAttribute("role");
    switch (el.tagName) {
      case "A": return el.hasAttribute("href") ? "link" : "";
      case "BUTTON": return "button";
      case "TEXTAREA": return "textbox";
      case "SELECT": return (el.multiple || el.size > 1) ? "listbox" : "combobox";
      case "INPUT": return INPUT_ROLES[el.type] || "";
      default: return "";
    }
  }

  function describe(el) {
    return {bid: el.getAttribute("data-bid") || "", id: el.id || "", role: roleOf(el), label: labelOf(el), name: el.getAttribute("name") || "",
      tag: el.tagName.toLowerCase(), type: el.getAttribute("type") || "", text: clean(el.innerText || "").slice(0, 200)};
  }

  // Where labels repeat (a "Invoicing" link in two menus), the position among the visible
  // look-alikes tells a replay which one was meant.
  function withPosition(el, target) {
    if (!target.label) return target;
    var peers = Array.from(document.querySelectorAll(el.tagName)).filter(function (x) {
      return !inPanel(x) && x.getClientRects().length && labelOf(x) === target.label && roleOf(x) === target.role;
    });
    if (peers.length > 1) { target.nth = peers.indexOf(el); target.of = peers.length; }
    return target;
  }

  function inPanel(el) { return !!(el && el.closest && el.closest("#cfab-panel")); }

  var FIELD = "input:not([type=submit]):not([type=button]):not([type=reset]):not([type=image])" +
    ":not([type=checkbox]):not([type=radio]):not([type=hidden]), textarea";
  var dirty = new Set();

  function recordFill(el) {
    dirty.delete(el);
    send({type: "fill", target: describe(el), value: el.type === "password" ? "" : el.value});
  }

  // A value typed but not yet committed by a change event is committed before the click it precedes.
  function flushDirty() { Array.from(dirty).forEach(recordFill); }

  document.addEventListener("input", function (e) {
    if (!inPanel(e.target) && e.target.matches && e.target.matches(FIELD)) dirty.add(e.target);
  }, true);

  document.addEventListener("change", function (e) {
    var el = e.target;
    if (inPanel(el) || !el.matches) return;
    if (el.matches(FIELD)) recordFill(el);
    else if (el.tagName === "SELECT") send({type: "select", target: describe(el), value: el.value});
    else if (el.matches("input[type=checkbox], input[type=radio]"))
      send({type: "check", target: describe(el), checked: el.checked});
  }, true);

  // A page load that follows a navigating click or a plain form post is that action's doing; any
  // other load (typed address, bookmark, back button) is a "goto" the replay must repeat itself.
  var lastClicked = null, navAt = 0;
  function isHtmx(form) {
    return !!(form.closest("[hx-boost=true]") || ["hx-get", "hx-post", "hx-put", "hx-patch", "hx-delete"]
      .some(function (a) { return form.hasAttribute(a); }));
  }
  function navigates(el) {
    if (el.tagName === "A") {
      var href = el.getAttribute("href") || "";
      return href.charAt(0) !== "#" && el.target !== "_blank" && !el.hasAttribute("hx-get");
    }
    var form = el.form;
    return !!(form && (el.type === "submit" || el.type === "image") && !isHtmx(form));
  }
  window.addEventListener("pagehide", function () {
    if (Date.now() - navAt < 3000) sessionStorage.setItem(NAV_KEY, "1");
    else sessionStorage.removeItem(NAV_KEY);
  });
  var CLICKABLE = "a[href], button, input[type=submit], input[type=button], input[type=image], input[type=reset]," +
    " summary, [role=button], [role=link], [role=tab], [role=menuitem]";

  document.addEventListener("click", function (e) {
    var el = e.target.closest ? e.target.closest(CLICKABLE) : null;
    if (!el || inPanel(el)) return;
    flushDirty();
    lastClicked = el;
    var step = {type: "click", target: withPosition(el, describe(el))};
    if (el.tagName === "A") step.target.href = el.getAttribute("href") || "";
    send(step);
    if (navigates(el)) navAt = Date.now();
  }, true);

  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (inPanel(form)) return;
    flushDirty();
    if (!isHtmx(form)) navAt = Date.now();
    if (e.submitter && e.submitter === lastClicked) return;  // the click already says it
    var target = e.submitter ? describe(e.submitter) :
      (document.activeElement && form.contains(document.activeElement) ? describe(document.activeElement) : null);
    send({type: "submit", target: target, form: describe(form)});
  }, true);

  // Finishing waits for the last events to land, so the recording is complete.
  var finishForm = document.getElementById("cfab-finish");
  if (finishForm) finishForm.addEventListener("submit", function (e) {
    if (!inflight.length) return;
    e.preventDefault();
    Promise.all(inflight.slice()).then(function () { finishForm.submit(); });
  });

  var cause = sessionStorage.getItem(NAV_KEY) ? "click" : "goto";
  sessionStorage.removeItem(NAV_KEY);
  send({type: "visit", title: document.title, cause: cause});
})();
