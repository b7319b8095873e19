// A label's leading symbols ("✅ Accept") are its icon: a list of middling width (a projector at 175 %) draws the
// icon alone, a wide one both, a narrow one (a phone) both; the whole label stays the button's name. "+1 (3)"
// starts with a digit: no icon, it keeps its words everywhere.
const ICON = /^([^\p{L}\p{N}\s]+)\s+(.+)$/u;

// A page that stops drawing heals itself (#42 item 3). A list drawn with ``watch`` (seconds) sits in a fragment
// that redraws every second or two; when no redraw has come for that long while the tab is shown and the
// server answers its health check, the page was left behind (a lost delta, a blank page after a press: seen
// with a class of 10) and reloads — at most 3 times in 5 minutes. Going to another page of the app disarms it.
function watch(seconds) {
  const w = window.__ifwWatch || (window.__ifwWatch = { timer: 0 });
  Object.assign(w, { at: Date.now(), href: location.href, stallMs: seconds * 1000 });
  if (!w.timer) w.timer = setInterval(checkStall, 2000);
}

async function checkStall() {
  const w = window.__ifwWatch;
  if (!w.href) return;
  if (location.href !== w.href) { w.href = ""; return; }
  // a hidden tab (its timers slowed) is not judged, nor a page whose script is still running: a server busy
  // with a class (12 Streamlit phones on 2 cores held the facilitator's redraw 20 s) is slow, not lost
  const busy = document.querySelector("[data-testid=stStatusWidget]");
  if (document.visibilityState !== "visible" || busy) { w.at = Date.now(); return; }
  if (Date.now() - w.at < w.stallMs) return;
  w.at = Date.now();  // one look per stall period
  const health = location.pathname.replace(/\/[^/]*$/, "") + "/_stcore/health";
  const up = await fetch(health, { cache: "no-store" }).then((r) => r.ok, () => false);
  if (!up) return;  // the server is away: Streamlit reconnects by itself when it is back
  const recent = JSON.parse(sessionStorage.getItem("ifw-healed") || "[]").filter((t) => Date.now() - t < 300000);
  if (recent.length >= 3) return;
  sessionStorage.setItem("ifw-healed", JSON.stringify([...recent, Date.now()]));
  location.reload();
}

// The room's pulse (ui/room_pulse.py): the server says when the room changed, and the list asks its fragment to
// redraw then, not at its next timed redraw. One redraw is asked at a time: a pulse that comes while one is on
// its way is kept and asked for when that redraw arrives (a burst of 60 Sends is a redraw or two, not 60), or
// after 3 s if it never does. The list's leaving the page (another page of the app, the room gone) closes it.
function pulse(url, setTriggerValue) {
  const p = window.__ifwPulse || (window.__ifwPulse = {});
  p.trigger = setTriggerValue;  // this render's: a trigger belongs to the list instance that drew last
  p.asked = 0;  // a redraw came: whatever was asked has been drawn, or is in this redraw
  if (p.url !== url || !p.source || p.source.readyState === EventSource.CLOSED) {
    if (p.source) p.source.close();
    Object.assign(p, { url, version: "", drawn: "" });
    p.source = new EventSource(url);
    p.source.addEventListener("changed", (event) => { p.version = event.data; beat(p); });
  }
  beat(p);
  return () => p.source.close();  // Streamlit calls the last render's cleanup when the list is unmounted
}

function beat(p) {
  if (p.version === p.drawn || Date.now() - p.asked < 3000) return;
  p.drawn = p.version;
  p.asked = Date.now();
  p.trigger("pulse", p.version);
}

export default function (component) {
  const { data, setTriggerValue } = component;
  if (data && data.watch) watch(data.watch);
  draw(component);
  if (data && data.pulse) return pulse(data.pulse, setTriggerValue);
}

function draw({ data, setTriggerValue, parentElement }) {
  let list = parentElement.querySelector("ol.room");
  if (!list) {
    list = document.createElement("ol");
    list.className = "room";
    parentElement.appendChild(list);
    list.pending = new Set();
    // whether a row's text is cut to its first lines depends on the list's width (room_list.css): measured
    // again whenever the width changes
    if (window.ResizeObserver) new ResizeObserver(() => measure(list)).observe(list);
  }
  // Rows come only when they changed since the server last sent them: a redraw of an unchanged room carries
  // their digest alone (numbered, so Streamlit, which calls this function only when the data changed, calls it on
  // every redraw). A list that does not hold that digest — drawn afresh after a reload, or a delta that never
  // arrived — asks for the rows, which come with the server's next redraw; and asks again at the next redraw
  // while they have not come.
  (data && data.refused || []).forEach((entry) => list.pending.delete(entry));
  if (!data || !Array.isArray(data.rows)) {
    if (data && data.digest && list.dataset.digest !== data.digest) setTriggerValue("need", data.digest);
    return;
  }
  const rows = data.rows;
  // write only what changed: the list is redrawn every second in every browser in the room, and a write of an
  // unchanged text still costs the page a style and layout pass
  const put = (node, prop, value) => { if (node[prop] !== value) node[prop] = value; };
  const present = new Map([...list.children].map((li) => [li.dataset.id, li]));
  const keep = new Set();
  rows.forEach((row, i) => {
    const li = present.get(row.id) || newRow(row.id);
    li.classList.toggle("muted", !!row.muted);
    put(li.querySelector(".who"), "textContent", row.who);
    put(li.querySelector(".text"), "textContent", row.text);
    put(li.querySelector("button.more"), "ariaLabel", "Read all · " + row.who);
    const buttons = li.querySelector(".buttons");
    const wanted = row.actions.map((a) => a.name + ":" + row.id);
    [...buttons.children].forEach((b) => { if (!wanted.includes(b.dataset.act)) b.remove(); });
    row.actions.forEach((action, j) => {
      const entry = action.name + ":" + row.id;
      let button = buttons.querySelector(`button[data-act="${CSS.escape(entry)}"]`);
      if (!button) {
        button = document.createElement("button");
        button.type = "button";
        button.dataset.act = entry;
        button.append(span("icon", true), span("word"));
        button.addEventListener("click", () => {
          button.disabled = true;
          list.pending.add(entry);
          setTriggerValue("act", [...list.pending].join(" "));
        });
      }
      if (!action.enabled) list.pending.delete(entry);
      const [, icon, word] = action.label.match(ICON) || ["", "", action.label];
      put(button.firstChild, "textContent", icon);
      put(button.lastChild, "textContent", word);
      button.classList.toggle("iconic", !!icon);
      put(button, "disabled", !action.enabled || list.pending.has(entry));
      // an icon drawn alone says what it does on hover too
      put(button, "title", icon ? word + (action.title ? " — " + action.title : "") : action.title || "");
      put(button, "ariaLabel", action.label + " · " + row.who);
      if (buttons.children[j] !== button) buttons.insertBefore(button, buttons.children[j] || null);
    });
    if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null);
    keep.add(row.id);
  });
  // a press whose button left the list (the row or the action went away) is settled
  const offered = new Set(rows.flatMap((row) => row.actions.map((a) => a.name + ":" + row.id)));
  [...list.pending].forEach((entry) => { if (!offered.has(entry)) list.pending.delete(entry); });
  [...list.children].forEach((li) => { if (!keep.has(li.dataset.id)) li.remove(); });
  list.dataset.digest = data.digest || "";
  requestAnimationFrame(() => measure(list));
}

function span(className, hidden) {
  const s = document.createElement("span");
  s.className = className;
  if (hidden) s.setAttribute("aria-hidden", "true");
  return s;
}

// A row: who said it and what (cut to its first lines where the list is of middling width or wider), the row's
// buttons, and a "read all" toggle shown only when the text is cut. Clicking the text opens it too; a keyboard
// opens it with the toggle, and while one of the row's buttons has the keyboard's focus (room_list.css).
function newRow(id) {
  const li = document.createElement("li");
  li.dataset.id = id;
  li.className = "row";
  const words = document.createElement("div");
  words.className = "words";
  words.id = "words-" + id;
  const who = document.createElement("div");
  who.className = "who";
  const text = document.createElement("div");
  text.className = "text";
  words.append(who, text);
  const more = document.createElement("button");
  more.type = "button";
  more.className = "more";
  more.id = "more-" + id;
  more.setAttribute("aria-expanded", "false");
  more.setAttribute("aria-controls", words.id);
  more.append(span("icon", true));
  more.firstChild.textContent = "▾";
  more.addEventListener("click", () => open(li, !li.classList.contains("open")));
  words.addEventListener("click", () => {  // not when the click ended a text selection (copying a sentence)
    const cut = li.classList.contains("long") || li.classList.contains("open");
    if (cut && String(window.getSelection() || "") === "") open(li, !li.classList.contains("open"));
  });
  const buttons = document.createElement("div");
  buttons.className = "buttons";
  li.append(words, buttons, more);  // last: the same place on every row, whatever buttons it has
  li.addEventListener("focusout", () => requestAnimationFrame(() => measure(li.parentElement)));
  return li;
}

function open(li, yes) {
  li.classList.toggle("open", yes);
  const more = li.querySelector("button.more");
  more.setAttribute("aria-expanded", String(yes));
  more.firstChild.textContent = yes ? "▴" : "▾";
  if (yes) li.scrollIntoView({ block: "nearest" });  // the whole of it on the screen
  else measure(li.parentElement);
}

// "long": the row's text is cut (it overflows its clamped box), so its toggle shows. An open row stays long, and
// so does one opened by its focused button (measured again when the focus leaves it).
function measure(list) {
  if (!list) return;
  list.querySelectorAll(":scope > li.row:not(.open)").forEach((li) => {
    if (li.matches(":has(button[data-act]:focus-visible)")) return;
    const words = li.querySelector(".words");
    li.classList.toggle("long", words.scrollHeight > words.clientHeight + 1);
  });
}
