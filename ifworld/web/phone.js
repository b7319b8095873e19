// The participant's phone page (ui/phone_server.py). Everything a person or a model wrote is set with
// textContent: this script never builds markup from data. The server pushes this phone's view (JSON) over
// server-sent events whenever it changed; the page keeps what is being typed across every redraw.
(function () {
  "use strict";
  const app = document.getElementById("app");
  const start = JSON.parse(document.getElementById("start").textContent);
  const base = location.pathname.replace(/\/+$/, "");  // "/p", or "/class/p" under a path prefix
  let token = start.token || "";
  let actionKey = null, lastTried = "", source = null, current = null;

  function el(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => {
      if (v === false || v === null || v === undefined) return;
      if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k in node && k !== "list") node[k] = v;
      else node.setAttribute(k, v === true ? "" : v);
    });
    kids.flat().forEach((kid) => kid !== null && kid !== undefined &&
      node.append(typeof kid === "string" ? document.createTextNode(kid) : kid));
    return node;
  }
  const $ = (id) => document.getElementById(id);

  async function post(action, body) {
    try {
      const reply = await fetch(base + "/" + action, {
        method: "POST", credentials: "same-origin", body: JSON.stringify(body),
        headers: { "content-type": "application/json", "x-ifworld-phone": "1" } });
      const data = await reply.json().catch(() => ({ ok: false, message: "The server answered " + reply.status }));
      return data;
    } catch (e) {
      return { ok: false, network: true,
        message: "The connection dropped before the server answered. What you typed is kept: press again." };
    }
  }

  function say(node, text, kind) {  // a status line under a form: "ok" or "error"
    node.textContent = text || "";
    node.className = "say " + (kind || "");
  }

  // -- before the room: a code, then a name ----------------------------------------------------------------
  function codeScreen(error) {
    const status = el("p", { id: "find-status", role: "status" });
    const input = el("input", { id: "code", name: "code", maxLength: 12, autocomplete: "off",
      placeholder: "e.g. K7QX3M", required: true, autocapitalize: "characters" });
    const form = el("form", { id: "find", onsubmit: async (e) => {
      e.preventDefault();
      say(status, "Looking…");
      const r = await post("find", { code: input.value });
      if (r.ok) location.assign(base + "/?w=" + encodeURIComponent(r.token));
      else say(status, r.message, "error");
    } }, el("label", { htmlFor: "code", text: "Workshop code" }), input,
      el("button", { type: "submit", className: "primary", text: "Find the workshop" }), status);
    app.replaceChildren(el("h1", { text: "👥 Join a workshop" }),
      el("p", { text: "No account needed: give the code shown by the facilitator (or open their link), then a display name." }),
      form);
    if (error) say(status, error, "error");
  }

  function joinScreen(s) {
    const status = el("p", { id: "join-status", role: "status" });
    const input = s.roster
      ? el("input", { id: "given", maxLength: 20, autocomplete: "off", required: true,
        placeholder: "the code on your card, e.g. K7QX3MPA" })
      : el("input", { id: "given", maxLength: s.max_name, autocomplete: "nickname", required: true });
    const form = el("form", { id: "join", onsubmit: async (e) => {
      e.preventDefault();
      form.querySelector("button").disabled = true;
      say(status, "Joining…");
      const r = await post("join", { token: s.token, given: input.value, roster: !!s.roster });
      form.querySelector("button").disabled = false;
      if (r.ok) { token = r.token; room(); } else say(status, r.message, "error");
    } }, el("label", { htmlFor: "given", text: s.roster ? "Your personal code" : "Your display name" }), input,
      el("p", { className: "help", text: s.roster
        ? "This workshop uses the facilitator's class list: your code signs you in under your own name."
        : "Use " + s.name_help + "; the facilitator sees it beside what you send." }),
      el("button", { type: "submit", className: "primary", text: "Join" }), status);
    app.replaceChildren(el("h1", { text: "👥 Join a workshop" }),
      el("p", { className: "proposition", text: "Workshop for: " + s.proposition }), form);
    const query = new URLSearchParams(location.search);  // a card's QR link carries the personal code
    if (s.roster && query.get("personal")) {
      input.value = query.get("personal").slice(0, 20);
      query.delete("personal");
      history.replaceState(null, "", location.pathname + "?" + query.toString());  // it leaves the address bar
    }
    input.focus();
  }

  // -- the room ------------------------------------------------------------------------------------------
  function room() {
    history.replaceState(null, "", base + "/?w=" + encodeURIComponent(token));
    app.replaceChildren(
      el("h1", { id: "proposition" }), el("p", { id: "status" }), el("p", { id: "banner", role: "status" }),
      el("section", { id: "action" }), el("section", { id: "reveal" }),  // the reveal first: it is the point then
      el("section", { id: "scenario" }), el("section", { id: "deliberation" }),
      el("section", { id: "room", "aria-labelledby": "room-heading" },
        el("h2", { id: "room-heading" }), el("ol", { className: "rows" })));
    connect();
  }

  function connect() {
    if (source) source.close();
    source = new EventSource(base + "/events?w=" + encodeURIComponent(token));
    source.addEventListener("open", () => { document.body.dataset.live = "1"; say($("banner"), ""); });
    current = null;  // a new stream starts with the whole view
    source.addEventListener("patch", (e) => draw(merge(JSON.parse(e.data))));
    source.addEventListener("status", (e) => say($("banner"), JSON.parse(e.data).error, "error"));
    source.addEventListener("gone", () => { source.close(); location.reload(); });
    source.addEventListener("error", () => {
      document.body.dataset.live = "0";
      if (source.readyState === EventSource.CLOSED) {  // refused (not joined, too many pages): start again
        setTimeout(() => location.reload(), 2000);
      }
      say($("banner"), "Reconnecting… what you type is kept.", "error");
    });
  }

  // A patch holds the fields that changed, and of the room the rows that changed with the rows' order
  // (ui/phone_view.py Patcher); the first patch of a stream is the whole view.
  function merge(patch) {
    const rows = patch.rows;
    delete patch.rows;
    current = Object.assign(current || { rows: [] }, patch);
    if (rows) {
      const byId = new Map(current.rows.map((r) => [r.id, r]));
      rows.changed.forEach((r) => byId.set(r.id, r));
      current.rows = rows.order.map((id) => byId.get(id)).filter(Boolean);
    }
    return current;
  }

  function draw(v) {
    document.title = v.proposition + " · IF-World";
    $("proposition").textContent = v.proposition;
    $("status").textContent = v.status_line;
    drawAction(v);
    drawDetails($("scenario"), "🗺️ The refined scenario", v.scenario, v.scenario_open);
    const report = v.report.length > 0;  // blocks: an empty list is "no report" (and [] is truthy in JS)
    drawDetails($("deliberation"), report ? "📝 The panel's report" :
      "🧭 The panel's shared frame after round " + v.frame_round, report ? v.report : v.frame, false);
    drawReveal(v);
    drawRoom(v);
    document.body.dataset.digest = String(v.rows.length) + ":" + v.form;
  }

  // A document (the scenario, the frame, the report) comes as blocks of text runs (ui/phone_doc.py): each block
  // a heading, paragraph, list item, code or table row, each run's text set with textContent, bold or not.
  function drawDetails(slot, title, blocks, open) {
    if (!blocks || !blocks.length) { slot.replaceChildren(); return; }
    const key = JSON.stringify(blocks);
    let d = slot.querySelector("details");
    if (!d || d.dataset.title !== title) {
      d = el("details", { open: !!open }, el("summary", { text: title }), el("div", { className: "doc" }));
      d.dataset.title = title;
      slot.replaceChildren(d);
    }
    if (d.dataset.wanted !== String(!!open)) {  // opened for the review, closed after it; a hand's choice holds
      d.dataset.wanted = String(!!open);          // until the run's state asks otherwise
      d.open = !!open;
    }
    const doc = d.querySelector(".doc");
    if (doc.dataset.key === key) return;
    doc.dataset.key = key;
    const tags = { h: "h3", p: "p", li: "p", pre: "pre", row: "p" };
    doc.replaceChildren(...blocks.map((b) => el(tags[b.kind] || "p", { className: "doc-" + b.kind },
      b.runs.map(([text, bold]) => bold ? el("strong", { text }) : text))));
  }

  // The form of this state. Rebuilt only when the state's form changes, so typing survives every redraw; a
  // form that goes away with text in it leaves that text on the page, marked as not sent.
  function drawAction(v) {
    const key = [v.form, v.branches.join("\u0001"), v.indicators.join("\u0001")].join("\u0002");
    if (key === actionKey) return;
    actionKey = key;
    const slot = $("action");
    const box = slot.querySelector("textarea");
    const typed = box ? { text: box.value, kind: (slot.querySelector("input[name=kind]:checked") || {}).value,
      tag: (slot.querySelector("#tag") || {}).value } : null;
    if (v.form === "predict") slot.replaceChildren(predictForm(v));
    else if (v.form === "scenario_pending") slot.replaceChildren(el("p", { className: "info",
      text: "The refiner is writing the scenario; its branches appear here for your prediction." }));
    else if (v.form === "contribute" || v.form === "closed") slot.replaceChildren(sendForm(v, typed));
    else slot.replaceChildren();
    if (typed && typed.text.trim() && v.form !== "contribute" && v.form !== "closed") {
      slot.append(el("p", { className: "say error", text: "The run moved on before this was sent. What you typed (not sent):" }),
        el("pre", { className: "unsent", text: typed.text }));
    }
  }

  function sendForm(v, typed) {
    const closed = v.form === "closed";
    const status = el("p", { id: "send-status", role: "status", className: "say" });
    const text = el("textarea", { id: "text", name: "text", maxLength: v.max_text, rows: 4 });
    const tag = el("input", { id: "tag", name: "tag", maxLength: v.max_tag, autocomplete: "off" });
    const kinds = el("fieldset", {}, el("legend", { text: "Kind" }),
      v.kinds.map(([k, label], i) => el("label", { className: "choice" },
        el("input", { type: "radio", name: "kind", value: k, checked: i === 0 }), " " + label)));
    if (typed) {
      text.value = typed.text || "";
      tag.value = typed.tag || "";
      const kind = kinds.querySelector(`input[value="${CSS.escape(typed.kind || "")}"]`);
      if (kind) kind.checked = true;
    }
    const send = el("button", { type: "submit", className: "primary", text: "Send", disabled: closed });
    const form = el("form", { id: "send", onsubmit: async (e) => {
      e.preventDefault();
      const said = text.value;
      if (!said.trim()) { say(status, "Write something first.", "error"); return; }
      send.disabled = true;
      lastTried = said;
      say(status, "Sending…");
      const kind = (form.querySelector("input[name=kind]:checked") || {}).value || "claim";
      const r = await post("send", { token, text: said, kind, tag: tag.value });
      send.disabled = closed;
      // the room may have shown it stored before this answer came (reconcile): the box is already cleared
      // and the status already says so, whatever this answer (or the lost one) says
      const reconciled = lastTried !== said;
      if (r.ok && !reconciled) {
        if (text.value === said) { text.value = ""; tag.value = ""; }
        else if (text.value.startsWith(said)) text.value = text.value.slice(said.length).trimStart();
        lastTried = "";
        say(status, "✅ Sent to the facilitator.", "ok");
      } else if (!r.ok && !reconciled) say(status, r.message, "error");
    } }, el("h2", { text: "✍️ Add to the deliberation" }),
      closed ? el("p", { className: "say error",
        text: "The workshop is closed: what is in the box below was not sent. Copy it if you want to keep it." }) : null,
      kinds, el("label", { htmlFor: "text", text: "Your contribution" }), text,
      el("label", { htmlFor: "tag", text: "Domain (optional)" }), tag, send, status);
    return form;
  }

  // A Send whose reply never came (the connection dropped) but whose text is stored shows up in the room as
  // the participant's own: the box then says so and keeps only what was typed after it, so a second Send
  // never carries the first text again.
  function reconcile(v) {
    const box = $("text");
    if (!lastTried || !box) return;
    const stored = v.rows.some((r) => r.who.indexOf(" you · ") >= 0 && r.text.trim() === lastTried.trim());
    if (!stored) return;
    if (box.value.startsWith(lastTried)) box.value = box.value.slice(lastTried.length).trimStart();
    lastTried = "";
    say($("send-status"), "✅ Sent to the facilitator (the page had lost the answer; it was stored).", "ok");
  }

  function predictForm(v) {
    const status = el("p", { id: "predict-status", role: "status", className: "say" });
    const total = el("p", { id: "total", className: "help" });
    const mine = (v.prediction || {}).probabilities || {};
    const inputs = v.branches.map((b, i) => el("input", { type: "number", id: "p" + i, min: 0, max: 100, step: "any",
      value: mine[b] !== undefined ? mine[b] : 0, inputMode: "decimal" }));
    const sum = () => inputs.reduce((s, x) => s + (Number(x.value) || 0), 0);
    const showTotal = () => { total.textContent = "Total: " + sum() + " of 100"; };
    inputs.forEach((x) => x.addEventListener("input", showTotal));
    showTotal();
    const dirs = (v.prediction || {}).directions || {};
    const directions = v.indicators.map((name, i) => el("fieldset", {}, el("legend", { text: name }),
      ["", ...v.directions].map((d) => el("label", { className: "choice" },
        el("input", { type: "radio", name: "d" + i, value: d, checked: (dirs[name] || "") === d }),
        " " + (d || "no view")))));
    const even = el("button", { type: "button", text: "⚖️ Even split", onclick: () => {
      const n = inputs.length, each = Math.floor(100 / n);
      inputs.forEach((x, i) => { x.value = each + (i < 100 - each * n ? 1 : 0); });
      showTotal();
    } });
    const form = el("form", { id: "predict", onsubmit: async (e) => {
      e.preventDefault();
      const probabilities = {}, chosen = {};
      v.branches.forEach((b, i) => { probabilities[b] = Number(inputs[i].value) || 0; });
      v.indicators.forEach((name, i) => {
        const c = form.querySelector(`input[name="d${i}"]:checked`);
        if (c && c.value) chosen[name] = c.value;
      });
      say(status, "Saving…");
      const r = await post("predict", { token, probabilities, directions: chosen });
      say(status, r.ok ? saved(r.likely) : r.message, r.ok ? "ok" : "error");
    } }, el("h2", { text: "🎯 Your prediction (before round 1)" }),
      el("p", { className: "help", text: "How likely is each branch? The numbers must add up to 100. Predictions lock when round 1 starts." }),
      even, v.branches.map((b, i) => el("div", { className: "branch" }, el("label", { htmlFor: "p" + i, text: b }), inputs[i])),
      total, directions.length ? el("p", { className: "help", text: "Optional: which way will each indicator move?" }) : null,
      directions, el("button", { type: "submit", className: "primary", text: "Save my prediction" }), status);
    if (v.prediction) say(status, saved(v.prediction.likely), "ok");
    return form;
  }

  function saved(likely) {
    return likely ? "Saved: most likely " + likely + "." : "Saved: no single branch is most likely in your prediction.";
  }

  function drawReveal(v) {
    const slot = $("reveal");
    const r = v.reveal;
    const key = JSON.stringify(r);
    if (slot.dataset.key === key) return;
    slot.dataset.key = key;
    if (!r) { slot.replaceChildren(); return; }
    if (!r.revealed) {
      slot.replaceChildren(el("p", { className: "info", text: "The report is written. The facilitator will reveal the predictions." }));
      return;
    }
    const table = el("table", {}, el("caption", { text: "Your prediction beside the panel's" }),
      el("thead", {}, el("tr", {}, r.columns.map((c) => el("th", { scope: "col", text: c })))),
      el("tbody", {}, r.rows.map((row) => el("tr", {}, row.map((cell) => el("td", { text: cell }))))));
    slot.replaceChildren(...[el("h2", { text: "🔍 Your prediction beside the panel's" }),
      el("p", { className: "info", text: r.note }),
      r.predicted ? null : el("p", { className: "help", text: "You made no prediction." }),
      el("div", { className: "scroll" }, table)].filter(Boolean));  // replaceChildren would write null as "null"
  }

  function drawRoom(v) {
    $("room-heading").textContent = v.room_heading;
    const list = $("room").querySelector("ol");
    const present = new Map([...list.children].map((li) => [li.dataset.id, li]));
    v.rows.forEach((row, i) => {
      let li = present.get(row.id);
      if (!li) {
        li = el("li", { className: "row" }, el("div", { className: "who" }), el("div", { className: "text" }),
          el("div", { className: "buttons" }));
        li.dataset.id = row.id;
      }
      li.classList.toggle("muted", !!row.muted);
      li.querySelector(".who").textContent = row.who;
      li.querySelector(".text").textContent = row.text;
      drawButtons(li.querySelector(".buttons"), row);
      if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null);
      present.delete(row.id);
    });
    present.forEach((li) => li.remove());
    reconcile(v);
  }

  // A row's buttons are kept and changed in place: a redraw (someone else sent or voted) must not take the focus
  // from the +1 a keyboard user is on, nor replace the button under a finger that is pressing it.
  function drawButtons(slot, row) {
    const have = new Map([...slot.children].map((b) => [b.dataset.action, b]));
    row.actions.forEach((a, j) => {
      let b = have.get(a.name);
      if (!b) {
        b = el("button", { type: "button", onclick: async (e) => {
          e.currentTarget.disabled = true;
          const r = await post(a.name, { token, contribution_id: row.id });
          if (!r.ok) say($("banner"), r.message, "error");
        } });
        b.dataset.action = a.name;
      }
      const label = a.label + " · " + row.who;
      if (b.textContent !== a.label) b.textContent = a.label;
      if (b.disabled !== !a.enabled) b.disabled = !a.enabled;
      if (b.title !== (a.title || "")) b.title = a.title || "";
      if (b.getAttribute("aria-label") !== label) b.setAttribute("aria-label", label);
      if (slot.children[j] !== b) slot.insertBefore(b, slot.children[j] || null);
      have.delete(a.name);
    });
    have.forEach((b) => b.remove());
  }

  if (start.screen === "room") room();
  else if (start.screen === "join") joinScreen(start);
  else if (start.screen === "closed") app.replaceChildren(el("h1", { text: "👥 Join a workshop" }),
    el("p", { className: "say error", text: start.message }));
  else if (start.screen === "retry") {  // the store could not be read: say so, and try again by itself
    app.replaceChildren(el("h1", { text: "👥 Join a workshop" }), el("p", { className: "say error", text: start.message }));
    setTimeout(() => location.reload(), 3000);
  }
  else codeScreen(start.error);
})();
