// Sheets and alerts that behave like dialogs: the page behind them is inert, focus moves into one
// when it opens and stays there (Tab cycles inside), Escape runs its cancel action, and focus
// returns where it was when it closes. Dialogs stack: a preview or the Selected view opens in its
// own layer over a pick's sheet, and Escape closes only the top one.
import { dismissNotice } from "./surface.js";

const stack = []; // [{ overlay, node, onEscape, returnTo }], the top last

const focusable = 'button, [href], input, select, textarea, video[controls], [tabindex]:not([tabindex="-1"])';

function top() {
  return stack[stack.length - 1] || null;
}

// Only the top dialog can be reached: the page and every layer under the top one are inert.
function updateInert() {
  for (const behind of document.querySelectorAll("body > header, body > main")) behind.inert = stack.length > 0;
  stack.forEach((entry, index) => { entry.overlay.inert = index < stack.length - 1; });
}

export function present(overlay, node, { onEscape = null } = {}) {
  let returnTo = document.activeElement;
  const index = stack.findIndex((entry) => entry.overlay === overlay);
  if (index >= 0) {
    returnTo = stack[index].returnTo; // a new sheet in the same overlay takes the old one's place
    stack.splice(index, 1);
  }
  overlay.replaceChildren(node);
  overlay.hidden = false;
  if (index < 0 && stack.length === 0) dismissNotice(); // the last answer's toast does not sit on top of the next question
  stack.push({ overlay, node, onEscape, returnTo });
  updateInert();
  node.setAttribute("tabindex", "-1");
  node.focus({ preventScroll: true });
}

// Closes the overlay's dialog and any layered over it.
export function close(overlay) {
  const index = stack.findIndex((entry) => entry.overlay === overlay);
  overlay.replaceChildren();
  overlay.hidden = true;
  overlay.inert = false;
  if (index < 0) return updateInert();
  const removed = stack.splice(index);
  for (const entry of removed) { entry.overlay.replaceChildren(); entry.overlay.hidden = true; entry.overlay.inert = false; }
  updateInert();
  const returnTo = removed[0].returnTo;
  if (returnTo && returnTo.isConnected && typeof returnTo.focus === "function") returnTo.focus({ preventScroll: true });
}

function stops(node) {
  return [...node.querySelectorAll(focusable)].filter((item) => item.tabIndex >= 0 && !item.disabled && !item.closest("[hidden]") && item.getClientRects().length > 0);
}

document.addEventListener("keydown", (event) => {
  const open = top();
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
  const open = top();
  if (open && open.node.isConnected && !open.node.contains(event.target)) open.node.focus({ preventScroll: true });
});
