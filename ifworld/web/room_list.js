export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  let list = parentElement.querySelector("ol.room");
  if (!list) {
    list = document.createElement("ol");
    list.className = "room";
    parentElement.appendChild(list);
    list.pending = new Set();
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
    let li = present.get(row.id);
    if (!li) {
      li = document.createElement("li");
      li.dataset.id = row.id;
      li.className = "row";
      const words = document.createElement("div");
      words.className = "words";
      const who = document.createElement("div");
      who.className = "who";
      const text = document.createElement("div");
      text.className = "text";
      const buttons = document.createElement("div");
      buttons.className = "buttons";
      words.append(who, text);
      li.append(words, buttons);
    }
    li.classList.toggle("muted", !!row.muted);
    put(li.querySelector(".who"), "textContent", row.who);
    put(li.querySelector(".text"), "textContent", row.text);
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
        button.addEventListener("click", () => {
          button.disabled = true;
          list.pending.add(entry);
          setTriggerValue("act", [...list.pending].join(" "));
        });
      }
      if (!action.enabled) list.pending.delete(entry);
      put(button, "textContent", action.label);
      put(button, "disabled", !action.enabled || list.pending.has(entry));
      put(button, "title", action.title || "");
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
}
