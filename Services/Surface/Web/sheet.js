// The sheets the owner answers: an app's pick, an authorization alert, the limited-library picker
// and a delete confirmation. One shows at a time in the overlay; the rest wait in the queue.
import { AssetGrid } from "./grid.js";
import { api, element, notify } from "./surface.js";

let current = null; // { kind: "pick" | "prompt", id }

export function showNext(state) {
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
  current = null;
  overlay.replaceChildren();
  overlay.hidden = true;
  const next = waiting[0];
  if (!next) return;
  current = { kind: next.kind, id: next.id };
  overlay.hidden = false;
  if (next.kind === "pick") overlay.append(pickSheet(next.item));
  else if (next.item.kind === "authorization") overlay.append(authorizationAlert(next.item));
  else if (next.item.kind === "limitedLibrary") overlay.append(limitedLibrarySheet(next.item));
  else overlay.append(confirmation(next.item));
  updateWaiting(waiting);
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

function sheet(title, body, buttons, { wide = false } = {}) {
  const header = element("header", {}, element("h2", {}, title));
  const footer = element("footer", {}, ...buttons);
  const waiting = element("ul", { class: "waiting", hidden: "" });
  return element("section", { class: wide ? "sheet wide" : "sheet", role: "dialog", "aria-label": title },
    header, body, footer, element("p", { class: "waiting-label", hidden: "" }, "Also waiting:"), waiting);
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
  const counter = element("span", { class: "counter", id: "sheet-counter" });
  const scroll = element("div", { class: "scroll" });
  const gridNode = element("div", { id: "sheet-grid" });
  scroll.append(gridNode);
  const removeLocation = element("input", { type: "checkbox", id: "remove-location" });
  if ((configuration.stripMetadata || "none") !== "none") {
    removeLocation.checked = true;
    removeLocation.disabled = true;
  }
  let add;
  const refresh = (selection) => {
    counter.textContent = limit > 0 ? `${selection.length} of ${limit}` : `${selection.length} selected`;
    add.disabled = selection.length === 0;
  };
  add = button("Add", async () => {
    await api("POST", "/api/picks/choose", { pick: pick.pick, assets: grid.selection, removeLocation: removeLocation.checked });
    notify(`Sent ${grid.selection.length} to ${pick.appName}.`);
  }, { primary: true, id: "sheet-add" });
  const cancel = button("Cancel", async () => {
    await api("POST", "/api/picks/cancel", { pick: pick.pick });
    notify(`${pick.appName} gets nothing.`);
  }, { id: "sheet-cancel" });
  const body = element("div", { class: "sheet-body" }, element("p", { class: "counter-line" }, counter), scroll,
    element("label", { class: "switch" }, removeLocation, " Remove location"));
  const node = sheet(pick.sentence, body, [cancel, add], { wide: true });
  node.dataset.pick = pick.pick;
  const grid = new AssetGrid(gridNode, { pick: pick.pick, mode: "select", limit, ordered,
    preselected: configuration.preselectedAssetIdentifiers || [], onChange: refresh });
  refresh(grid.selection);
  return node;
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
  const node = sheet(title, element("div", { class: "sheet-body" }, reason), buttons);
  node.classList.add("alert");
  node.dataset.prompt = prompt.prompt;
  return node;
}

function chooseLimited(prompt, answer) {
  const overlay = document.getElementById("overlay");
  const counter = element("span", { class: "counter", id: "sheet-counter" }, "0 selected");
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
  overlay.replaceChildren(node);
}

function limitedLibrarySheet(prompt) {
  const before = new Set(prompt.selection || []);
  const counter = element("span", { class: "counter", id: "sheet-counter" });
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
  const node = sheet(`Select more photos for “${prompt.appName}”`, element("div", { class: "sheet-body" }, counter, scroll), [done], { wide: true });
  node.dataset.prompt = prompt.prompt;
  return node;
}

function confirmation(prompt) {
  const count = (prompt.selection || []).length;
  const answer = (choice) => api("POST", "/api/prompts/answer", { prompt: prompt.prompt, answer: choice });
  const thumbs = element("div", { class: "strip" },
    ...(prompt.selection || []).slice(0, 12).map((identifier) =>
      element("img", { alt: "", src: "/thumb?side=128&asset=" + encodeURIComponent(identifier) })));
  const title = prompt.kind === "deleteAssets" ? `Allow “${prompt.appName}” to delete ${count} item${count === 1 ? "" : "s"}?` : `${prompt.appName} asks: ${prompt.kind}`;
  const node = sheet(title, element("div", { class: "sheet-body" }, thumbs),
    [button("Don't Allow", () => answer("deny"), { id: "deny" }), button(prompt.kind === "deleteAssets" ? "Delete" : "Allow", () => answer("allow"), { primary: true, id: "allow" })]);
  node.classList.add("alert");
  node.dataset.prompt = prompt.prompt;
  return node;
}

export function editSelection(app, appName, selection, save) {
  const overlay = document.getElementById("overlay");
  const counter = element("span", { class: "counter", id: "sheet-counter" });
  const scroll = element("div", { class: "scroll" });
  const gridNode = element("div", { id: "sheet-grid" });
  scroll.append(gridNode);
  const grid = new AssetGrid(gridNode, { mode: "select", preselected: selection, onChange: (chosen) => { counter.textContent = `${chosen.length} selected`; } });
  counter.textContent = `${grid.selection.length} selected`;
  const close = () => { overlay.replaceChildren(); overlay.hidden = true; current = null; };
  const node = sheet(`What “${appName}” may see`, element("div", { class: "sheet-body" }, counter, scroll),
    [button("Cancel", async () => close(), { id: "sheet-cancel" }), button("Save", async () => { await save(grid.selection); close(); }, { primary: true, id: "selection-save" })], { wide: true });
  overlay.replaceChildren(node);
  overlay.hidden = false;
  current = { kind: "editor", id: app };
}
