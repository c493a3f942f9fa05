// The sheets the owner answers: an app's pick, an authorization alert, the limited-library picker
// and a delete confirmation. One shows at a time in the overlay, as a modal dialog (dialog.js); the
// rest wait in the queue. A pick's sheet shows only once the picker confirms the pick is still
// waiting, so a pick that has ended (a reload right after Cancel) never flashes up again.
import { close, present } from "./dialog.js";
import { AssetGrid } from "./grid.js";
import { openSelected } from "./selected.js";
import { api, element, notify } from "./surface.js";

let current = null; // { kind: "pick" | "prompt" | "editor", id }
let latest = null; // the last state the feed sent
let checking = null; // the pick being confirmed with the server
let sheets = 0; // numbers each sheet's title for aria-labelledby

export function showNext(state) {
  latest = state;
  const overlay = document.getElementById("overlay");
  const waiting = [
    ...state.picks.map((pick) => ({ kind: "pick", id: pick.pick, at: pick.createdAt, item: pick })),
    ...state.prompts.map((prompt) => ({ kind: "prompt", id: prompt.prompt, at: prompt.createdAt, item: prompt })),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  // The owner's own editor stays open until saved or cancelled.
  if (current && current.kind === "editor") return;
  if (current && waiting.some((entry) => entry.kind === current.kind && entry.id === current.id)) {
    updateWaiting(waiting);
    return;
  }
  if (current) close(overlay);
  current = null;
  const next = waiting[0];
  if (!next) return;
  if (next.kind === "pick") {
    confirmThenShow(next);
    return;
  }
  current = { kind: next.kind, id: next.id };
  if (next.item.kind === "authorization") authorizationAlert(next.item);
  else if (next.item.kind === "limitedLibrary") limitedLibrarySheet(next.item);
  else confirmation(next.item);
  updateWaiting(waiting);
}

// Asks the picker whether the pick still waits before its sheet appears; the feed's next state
// decides what shows if it has ended.
async function confirmThenShow(next) {
  if (checking === next.id) return;
  checking = next.id;
  let pending = true;
  try {
    pending = (await api("GET", "/api/picks/pending?pick=" + encodeURIComponent(next.id))).pending;
  } catch {
    pending = true; // the check failed, not the pick: show it and let Add or Cancel say what is wrong
  }
  checking = null;
  if (current) return; // something else took the overlay meanwhile
  if (!pending) latest = { ...latest, picks: latest.picks.filter((pick) => pick.pick !== next.id) };
  if (!latest.picks.some((pick) => pick.pick === next.id)) return showNext(latest);
  current = { kind: "pick", id: next.id };
  pickSheet(next.item);
  showNext(latest);
}

function open(node, onEscape) {
  present(document.getElementById("overlay"), node, { onEscape });
}

function updateWaiting(waiting) {
  const list = document.querySelector("#overlay .waiting");
  if (!list) return;
  const others = waiting.filter((entry) => !(current && entry.kind === current.kind && entry.id === current.id));
  list.replaceChildren(...others.map((entry) => element("li", {}, entry.kind === "pick" ? entry.item.sentence : entry.item.appName + " asks for access")));
  list.hidden = others.length === 0;
  const label = document.querySelector("#overlay .waiting-label");
  if (label) label.hidden = others.length === 0;
}

function sheet(title, body, buttons, { wide = false, alert = false } = {}) {
  sheets += 1;
  const titleId = "sheet-title-" + sheets;
  const header = element("header", {}, element("h2", { id: titleId }, title));
  const footer = element("footer", {}, ...buttons);
  const waiting = element("ul", { class: "waiting", hidden: "" });
  return element("section", { class: wide ? "sheet wide" : "sheet", role: alert ? "alertdialog" : "dialog", "aria-modal": "true",
    "aria-labelledby": titleId }, header, body, element("p", { class: "waiting-label", hidden: "" }, "Also waiting:"), waiting, footer);
}

function button(text, action, { primary = false, id = null } = {}) {
  const node = element("button", { type: "button", class: primary ? "primary" : "" }, text);
  if (id) node.id = id;
  node.addEventListener("click", async () => {
    node.disabled = true;
    try {
      await action();
    } catch (error) {
      notify(error.message, true);
      node.disabled = false;
    }
  });
  return node;
}

function pickSheet(pick) {
  const configuration = pick.configuration || {};
  const limit = configuration.selectionLimit ?? 1;
  const ordered = configuration.selection === "ordered";
  const counter = element("span", { class: "counter", id: "sheet-counter", role: "status", "aria-live": "polite", "aria-atomic": "true" });
  const full = element("span", { class: "limit-note", id: "sheet-limit", role: "status", "aria-live": "polite" });
  const scroll = element("div", { class: "scroll" });
  const gridNode = element("div", { id: "sheet-grid" });
  scroll.append(gridNode);
  const removeLocation = element("input", { type: "checkbox", id: "remove-location" });
  if ((configuration.stripMetadata || "none") !== "none") {
    removeLocation.checked = true;
    removeLocation.disabled = true;
  }
  let add, node;
  const refresh = (selection) => {
    counter.textContent = limit > 0 ? `${selection.length} of ${limit}` : `${selection.length} selected`;
    // Reaching the limit is said in words; the grid dims the cells that can no longer be chosen.
    full.textContent = limit > 1 && selection.length >= limit ? `You can choose up to ${limit}.` : "";
    add.textContent = selection.length > 0 ? `Add (${selection.length})` : "Add";
    add.disabled = selection.length === 0;
    review.textContent = `Selected (${selection.length})`;
    review.disabled = selection.length === 0;
  };
  // The chosen items in order, to remove (or, for an ordered pick, reorder) before adding.
  const review = element("button", { type: "button", class: "review", id: "sheet-selected" });
  review.addEventListener("click", () => openSelected(grid, { ordered, onClose: () => review.focus() }));
  // The answer's toast shows unless the next sheet has already taken the overlay.
  const tell = (text) => { if (node.isConnected || document.getElementById("overlay").hidden) notify(text); };
  add = button("Add", async () => {
    await api("POST", "/api/picks/choose", { pick: pick.pick, assets: grid.selection, removeLocation: removeLocation.checked });
    tell(`Sent ${grid.selection.length} to ${pick.appName}.`);
  }, { primary: true, id: "sheet-add" });
  const cancel = button("Cancel", async () => {
    await api("POST", "/api/picks/cancel", { pick: pick.pick });
    tell(`${pick.appName} gets nothing.`);
  }, { id: "sheet-cancel" });
  const body = element("div", { class: "sheet-body" }, element("div", { class: "counter-line" }, element("p", {}, counter, full), review), scroll,
    element("label", { class: "switch" }, removeLocation, " Remove location"));
  node = sheet(pick.sentence, body, [cancel, add], { wide: true });
  node.dataset.pick = pick.pick;
  const grid = new AssetGrid(gridNode, { pick: pick.pick, mode: "select", limit, ordered,
    preselected: configuration.preselectedAssetIdentifiers || [], onChange: refresh, emptyText: pick.nothingMatches || "" });
  refresh(grid.selection);
  open(node, () => cancel.click());
}

function authorizationAlert(prompt) {
  const readWrite = prompt.level !== "addOnly";
  const title = readWrite ? `“${prompt.appName}” Would Like to Access Your Photos` : `“${prompt.appName}” Would Like to Add to Your Photos`;
  const reason = element("p", { class: "reason" }, prompt.usageDescription || "");
  const answer = (choice, selection) => api("POST", "/api/prompts/answer", { prompt: prompt.prompt, answer: choice, selection });
  const buttons = readWrite
    ? [
        button("Allow Full Access", () => answer("full"), { id: "allow-full" }),
        button("Limit Access…", async () => chooseLimited(prompt, answer), { id: "limit-access" }),
        button("Don't Allow", () => answer("deny"), { id: "deny" }),
      ]
    : [button("Allow", () => answer("allow"), { id: "allow" }), button("Don't Allow", () => answer("deny"), { id: "deny" })];
  const node = sheet(title, element("div", { class: "sheet-body" }, reason), buttons, { alert: true });
  node.classList.add("alert");
  node.dataset.prompt = prompt.prompt;
  open(node, () => node.querySelector("#deny").click());
}

function chooseLimited(prompt, answer) {
  const counter = element("span", { class: "counter", id: "sheet-counter", role: "status", "aria-live": "polite" }, "0 selected");
  const scroll = element("div", { class: "scroll" });
  const gridNode = element("div", { id: "sheet-grid" });
  scroll.append(gridNode);
  let confirm;
  const grid = new AssetGrid(gridNode, { mode: "select", onChange: (selection) => {
    counter.textContent = `${selection.length} selected`;
    confirm.disabled = selection.length === 0;
  } });
  confirm = button("Confirm", () => answer("limited", grid.selection), { primary: true, id: "confirm-selection" });
  confirm.disabled = true;
  const node = sheet(`Choose what “${prompt.appName}” may see`, element("div", { class: "sheet-body" }, counter, scroll),
    [button("Don't Allow", () => answer("deny"), { id: "deny" }), confirm], { wide: true });
  node.dataset.prompt = prompt.prompt;
  open(node, () => node.querySelector("#deny").click());
}

function limitedLibrarySheet(prompt) {
  const before = new Set(prompt.selection || []);
  const counter = element("span", { class: "counter", id: "sheet-counter", role: "status", "aria-live": "polite" });
  const scroll = element("div", { class: "scroll" });
  const gridNode = element("div", { id: "sheet-grid" });
  scroll.append(gridNode);
  const refresh = (selection) => {
    const added = selection.filter((identifier) => !before.has(identifier)).length;
    counter.textContent = `${selection.length} selected, ${added} added`;
  };
  const grid = new AssetGrid(gridNode, { mode: "select", preselected: prompt.selection || [], onChange: refresh });
  refresh(grid.selection);
  const done = button("Done", async () => {
    const added = grid.selection.filter((identifier) => !before.has(identifier)).length;
    await api("POST", "/api/prompts/answer", { prompt: prompt.prompt, answer: "done", selection: grid.selection });
    notify(`Added ${added} for ${prompt.appName}.`);
  }, { primary: true, id: "limited-done" });
  // Escape keeps the current selection, as "Keep Current Selection" does.
  const keep = () => api("POST", "/api/prompts/answer", { prompt: prompt.prompt, answer: "done", selection: prompt.selection || [] })
    .catch((error) => notify(error.message, true));
  const node = sheet(`Select more photos for “${prompt.appName}”`, element("div", { class: "sheet-body" }, counter, scroll), [done], { wide: true });
  node.dataset.prompt = prompt.prompt;
  open(node, keep);
}

function confirmation(prompt) {
  const count = (prompt.selection || []).length;
  const answer = (choice) => api("POST", "/api/prompts/answer", { prompt: prompt.prompt, answer: choice });
  const thumbs = element("div", { class: "strip" },
    ...(prompt.selection || []).slice(0, 12).map((identifier) =>
      element("img", { alt: "", src: "/thumb?side=128&asset=" + encodeURIComponent(identifier) })));
  const title = prompt.kind === "deleteAssets" ? `Allow “${prompt.appName}” to delete ${count} item${count === 1 ? "" : "s"}?` : `${prompt.appName} asks: ${prompt.kind}`;
  const node = sheet(title, element("div", { class: "sheet-body" }, thumbs),
    [button("Don't Allow", () => answer("deny"), { id: "deny" }), button(prompt.kind === "deleteAssets" ? "Delete" : "Allow", () => answer("allow"), { primary: true, id: "allow" })],
    { alert: true });
  node.classList.add("alert");
  node.dataset.prompt = prompt.prompt;
  open(node, () => node.querySelector("#deny").click());
}

export function editSelection(app, appName, selection, save) {
  const overlay = document.getElementById("overlay");
  const counter = element("span", { class: "counter", id: "sheet-counter", role: "status", "aria-live": "polite" });
  const scroll = element("div", { class: "scroll" });
  const gridNode = element("div", { id: "sheet-grid" });
  scroll.append(gridNode);
  const grid = new AssetGrid(gridNode, { mode: "select", preselected: selection, onChange: (chosen) => { counter.textContent = `${chosen.length} selected`; } });
  counter.textContent = `${grid.selection.length} selected`;
  const done = () => { close(overlay); current = null; if (latest) showNext(latest); };
  const node = sheet(`What “${appName}” may see`, element("div", { class: "sheet-body" }, counter, scroll),
    [button("Cancel", async () => done(), { id: "sheet-cancel" }), button("Save", async () => { await save(grid.selection); done(); }, { primary: true, id: "selection-save" })], { wide: true });
  current = { kind: "editor", id: app };
  present(overlay, node, { onEscape: done });
}
