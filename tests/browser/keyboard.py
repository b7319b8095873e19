"""The keyboard alone in a real browser (issue #35): Tab / Shift+Tab to a control, see that its focus is visible,
and that focus never sticks (no keyboard trap). Shadow roots (our room list is an ``st.components.v2``
component with isolated styles) and same-origin frames are looked into, so the element is the one really focused.

Used by ``tests/browser/test_a11y_states_browser.py``.
"""

from __future__ import annotations

from collections.abc import Callable

DEEP = """const deep = () => { let e = document.activeElement;
    for (let i = 0; i < 6 && e; i++) {
        if (e.shadowRoot && e.shadowRoot.activeElement) { e = e.shadowRoot.activeElement; continue; }
        if (e.tagName === 'IFRAME') { try { const a = e.contentDocument.activeElement;
            if (a && a !== e.contentDocument.body) { e = a; continue; } } catch (x) {} }
        break; }
    return e; };"""
FOCUSED = "() => { " + DEEP + """ const e = deep(); if (!e || e === document.body) return null;
    const label = e.getAttribute('aria-label') || (e.labels && e.labels[0] ? e.labels[0].innerText : '') || '';
    return {tag: e.tagName, type: e.type || '', role: e.getAttribute('role') || '',
            name: (label || e.innerText || '').trim().slice(0, 100), text: (e.innerText || '').trim().slice(0, 100),
            id: e.dataset ? (e.dataset.act || e.id || '') : ''}; }"""
RING = "async () => { " + DEEP + """ const e = deep();
    const look = () => { const out = []; let n = e;
        for (let i = 0; n && n.nodeType === 1 && i < 8; i++, n = n.parentElement || (n.getRootNode() || {}).host) {
            const s = getComputedStyle(n);
            out.push([s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow, s.borderColor].join('|')); }
        return out.join(';'); };
    const pause = () => new Promise(r => setTimeout(r, 400));  // let Streamlit's border transitions finish
    await pause(); const focused = look(); e.blur(); await pause(); const blurred = look(); e.focus(); await pause();
    return focused !== blurred; }"""

Matcher = Callable[[dict], bool]


def focused(page) -> dict | None:  # noqa: ANN001
    return page.evaluate(FOCUSED)


def named(text: str, tag: str = "BUTTON") -> Matcher:
    """A matcher: the focused element is a ``tag`` whose accessible name (or text) contains ``text``."""
    return lambda e: e["tag"] == tag and (text.lower() in e["name"].lower() or text.lower() in e["text"].lower())


def tab_to(page, matches: Matcher, limit: int = 150, back: bool = False) -> dict:  # noqa: ANN001
    """Press Tab (Shift+Tab when ``back``) until the focused element ``matches``; its focus must be visible (the
    element or a wrapper Streamlit rings looks different focused than not), and focus must move on every press
    (never stuck on one element: no trap)."""
    seen: list[dict | None] = []
    stuck = 0
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        el = focused(page)
        stuck = stuck + 1 if el and seen and el == seen[-1] else 0
        assert stuck < 3, f"focus stuck on {el} (a keyboard trap)"
        seen.append(el)
        if el and matches(el):
            assert page.evaluate(RING), f"no visible focus on {el}"
            return el
    raise AssertionError(f"{limit} presses did not reach the element; focus went to {seen[-30:]}")


def press_on(page, matches: Matcher, key: str = "Enter", limit: int = 150) -> dict:  # noqa: ANN001
    """Tab to the control, check Shift+Tab leaves it and Tab comes back (focus order both ways), press ``key``."""
    el = tab_to(page, matches, limit)
    page.keyboard.press("Shift+Tab")
    assert focused(page) != el, f"Shift+Tab did not leave {el}"
    page.keyboard.press("Tab")
    if not matches(focused(page) or {"tag": "", "name": "", "text": ""}):  # a redraw between presses moved focus
        el = tab_to(page, matches, limit)
    page.keyboard.press(key)
    return el


def no_trap(page, presses: int = 60) -> int:  # noqa: ANN001
    """Tab through the page: focus moves on each press and reaches many controls; returns how many distinct."""
    distinct = set()
    last, stuck = None, 0
    for _ in range(presses):
        page.keyboard.press("Tab")
        el = focused(page)
        stuck = stuck + 1 if el and el == last else 0
        assert stuck < 3, f"focus stuck on {el} (a keyboard trap)"
        last = el
        distinct.add(repr(el))
    return len(distinct)
