// A sheet or alert that behaves like a dialog: the page behind it is inert, focus moves into it
// when it opens and stays there (Tab cycles inside), Escape runs its cancel action, and focus
// returns where it was when it closes.
import { dismissNotice } from "./surface.js";

let open = null; // { node, onEscape, returnTo }

const focusable = 'button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])';

export function present(overlay, node, { onEscape = null } = {}) {
  const returnTo = open ? open.returnTo : document.activeElement;
  overlay.replaceChildren(node);
  overlay.hidden = false;
  for (const behind of document.querySelectorAll("body > header, body > main")) behind.inert = true;
  dismissNotice(); // the last answer's toast does not sit on top of the next question
  open = { node, onEscape, returnTo };
  node.setAttribute("tabindex", "-1");
  node.focus({ preventScroll: true });
}

export function close(overlay) {
  overlay.replaceChildren();
  overlay.hidden = true;
  for (const behind of document.querySelectorAll("body > header, body > main")) behind.inert = false;
  const returnTo = open && open.returnTo;
  open = null;
  if (returnTo && returnTo.isConnected && typeof returnTo.focus === "function") returnTo.focus({ preventScroll: true });
}

function stops(node) {
  return [...node.querySelectorAll(focusable)].filter((item) => item.tabIndex >= 0 && !item.disabled && !item.closest("[hidden]") && item.getClientRects().length > 0);
}

document.addEventListener("keydown", (event) => {
  if (!open || !open.node.isConnected) return;
  if (event.key === "Escape" && open.onEscape) {
    event.preventDefault();
    open.onEscape();
    return;
  }
  if (event.key !== "Tab") return;
  const inside = stops(open.node);
  if (inside.length === 0) { event.preventDefault(); open.node.focus(); return; }
  const first = inside[0], last = inside[inside.length - 1];
  const active = document.activeElement;
  if (event.shiftKey && (active === first || active === open.node || !open.node.contains(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !open.node.contains(active))) {
    event.preventDefault();
    first.focus();
  }
});

// Focus that escapes anyway (a click on the backdrop, the browser's own chrome) comes back.
document.addEventListener("focusin", (event) => {
  if (open && open.node.isConnected && !open.node.contains(event.target)) open.node.focus({ preventScroll: true });
});
