// The sheets the owner answers: an app's pick, an authorization alert, the limited-library picker
// and a delete confirmation. One shows at a time in the overlay, as a modal dialog (dialog.js); the
// rest wait in the queue. A pick's sheet shows only once the picker confirms the pick is still
// waiting, so a pick that has ended (a reload right after Cancel) never flashes up again.
import { albumChoices } from "./album-grants.js";
import { browseBar } from "./browse.js";
import { close, present } from "./dialog.js";
import { AssetGrid } from "./grid.js";
import { openSelected } from "./selected.js";
import { fillTermChoices, termOf } from "./grant-term.js";
import { chosenLocation, locationChoice, setLocationChoiceDisabled } from "./location-choice.js";
import { t } from "./strings.js";
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
  else if (next.item.kind === "limitedLibrary" && next.item.onLaunch) launchAlert(next.item);
  else if (next.item.kind === "limitedLibrary") limitedLibrarySheet(next.item);
  else if (next.item.kind === "location") locationAlert(next.item);
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

// A pick's sentence in the page's language (the feed sends each language's).
function sentenceOf(pick) {
  return (pick.sentences || {})[document.documentElement.lang] || pick.sentence;
}

function open(node, onEscape) {
  present(document.getElementById("overlay"), node, { onEscape });
}

function updateWaiting(waiting) {
  const list = document.querySelector("#overlay .waiting");
  if (!list) return;
  const others = waiting.filter((entry) => !(current && entry.kind === current.kind && entry.id === current.id));
  list.replaceChildren(...others.map((entry) => element("li", {}, entry.kind === "pick" ? sentenceOf(entry.item) : t("{app} asks for access", { app: entry.item.appName }))));
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
    "aria-labelledby": titleId }, header, body, element("p", { class: "waiting-label", hidden: "" }, t("Also waiting:")), waiting, footer);
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
  // The app's request for where the items were taken; "Remove location" overrides it.
  const location = locationChoice(configuration.location, t("{app} asks for where these were taken:", { app: pick.appName }));
  if ((configuration.stripMetadata || "none") !== "none") {
    removeLocation.checked = true;
    removeLocation.disabled = true;
  }
  setLocationChoiceDisabled(location, removeLocation.checked);
  removeLocation.addEventListener("change", () => setLocationChoiceDisabled(location, removeLocation.checked));
  let add, node;
  const refresh = (selection) => {
    const count = selection.length;
    counter.textContent = limit > 0 ? t("{count} of {limit}", { count, limit }) : t("{count} selected", { count });
    // Reaching the limit is said in words; the grid dims the cells that can no longer be chosen.
    full.textContent = limit > 1 && count >= limit ? t("You can choose up to {limit}.", { limit }) : "";
    add.textContent = count > 0 ? t("Add ({count})", { count }) : t("Add");
    add.disabled = count === 0;
    review.textContent = t("Selected ({count})", { count });
    review.disabled = selection.length === 0;
  };
  // The chosen items in order, to remove (or, for an ordered pick, reorder) before adding.
  const review = element("button", { type: "button", class: "review", id: "sheet-selected" });
  review.addEventListener("click", () => openSelected(grid, { ordered, onClose: () => review.focus() }));
  // The answer's toast shows unless the next sheet has already taken the overlay.
  const tell = (text) => { if (node.isConnected || document.getElementById("overlay").hidden) notify(text); };
  add = button(t("Add"), async () => {
    await api("POST", "/api/picks/choose", { pick: pick.pick, assets: grid.selection, removeLocation: removeLocation.checked,
      location: removeLocation.checked ? "none" : chosenLocation(location) });
    tell(t("Sent {count} to {app}.", { count: grid.selection.length, app: pick.appName }));
  }, { primary: true, id: "sheet-add" });
  const cancel = button(t("Cancel"), async () => {
    await api("POST", "/api/picks/cancel", { pick: pick.pick });
    tell(t("{app} gets nothing.", { app: pick.appName }));
  }, { id: "sheet-cancel" });
  const body = element("div", { class: "sheet-body" }, element("div", { class: "counter-line" }, element("p", {}, counter, full), review), scroll,
    ...(location ? [location] : []), element("label", { class: "switch" }, removeLocation, " " + t("Remove location")));
  // The app's selection limits in words; the grid's cells say why each one left out is.
  const limits = (pick.limitsIn || {})[document.documentElement.lang] || pick.limits;
  if (limits) body.prepend(element("p", { class: "limits-note", id: "sheet-limits" }, limits));
  node = sheet(sentenceOf(pick), body, [cancel, add], { wide: true });
  node.dataset.pick = pick.pick;
  const grid = new AssetGrid(gridNode, { pick: pick.pick, mode: "select", limit, ordered,
    preselected: configuration.preselectedAssetIdentifiers || [], onChange: refresh,
    emptyText: (pick.nothingMatchesIn || {})[document.documentElement.lang] || pick.nothingMatches || "" });
  scroll.before(browseBar(grid)); // search, chips, albums and years over the grid
  refresh(grid.selection);
  open(node, () => cancel.click());
}

function authorizationAlert(prompt) {
  const readWrite = prompt.level !== "addOnly";
  const title = t(readWrite ? "“{app}” Would Like to Access Your Photos" : "“{app}” Would Like to Add to Your Photos", { app: prompt.appName });
  const reason = element("p", { class: "reason" }, prompt.usageDescription || "");
  const term = fillTermChoices(element("select", { id: "grant-term", "aria-label": t("How long access given to {app} lasts", { app: prompt.appName }) }));
  const location = readWrite ? locationChoice(prompt.location, t("{app} also asks for where your photos were taken:", { app: prompt.appName })) : null;
  const answer = (choice, selection, albums) => api("POST", "/api/prompts/answer",
    { prompt: prompt.prompt, answer: choice, selection, albums, term: choice === "deny" ? undefined : termOf(term.value),
      location: location && choice !== "deny" ? chosenLocation(location) : undefined });
  const buttons = readWrite
    ? [
        button(t("Allow Full Access"), () => answer("full"), { id: "allow-full" }),
        button(t("Limit Access…"), async () => chooseLimited(prompt, answer), { id: "limit-access" }),
        button(t("Don't Allow"), () => answer("deny"), { id: "deny" }),
      ]
    : [button(t("Allow"), () => answer("allow"), { id: "allow" }), button(t("Don't Allow"), () => answer("deny"), { id: "deny" })];
  const node = sheet(title, element("div", { class: "sheet-body" }, reason, ...(location ? [location] : []),
    element("label", { class: "term" }, t("Access lasts"), " ", term)), buttons, { alert: true });
  node.classList.add("alert");
  node.dataset.prompt = prompt.prompt;
  open(node, () => node.querySelector("#deny").click());
}

// An app that has library access asks for where the photos were taken as well.
function locationAlert(prompt) {
  const title = t("“{app}” Would Like to Know Where Your Photos Were Taken", { app: prompt.appName });
  const location = locationChoice(prompt.location, t("What {app} learns with the photos it may see:", { app: prompt.appName }));
  const answer = (choice) => api("POST", "/api/prompts/answer",
    { prompt: prompt.prompt, answer: choice, location: choice === "deny" ? undefined : chosenLocation(location) });
  const node = sheet(title, element("div", { class: "sheet-body" }, element("p", { class: "reason" }, prompt.usageDescription || ""), ...(location ? [location] : [])),
    [button(t("Don't Allow"), () => answer("deny"), { id: "deny" }), button(t("Allow"), () => answer("allow"), { primary: true, id: "allow" })],
    { alert: true });
  node.classList.add("alert");
  node.dataset.prompt = prompt.prompt;
  open(node, () => node.querySelector("#deny").click());
}

function chooseLimited(prompt, answer) {
  const counter = element("span", { class: "counter", id: "sheet-counter", role: "status", "aria-live": "polite" }, t("{count} selected", { count: 0 }));
  const scroll = element("div", { class: "scroll" });
  const gridNode = element("div", { id: "sheet-grid" });
  scroll.append(gridNode);
  let confirm, grid;
  // Photos one by one, whole albums (their later photos too), or both.
  const refresh = () => {
    if (!grid || !confirm) return; // the grid's first report comes before the button exists
    counter.textContent = t("{count} selected", { count: grid.selection.length });
    confirm.disabled = grid.selection.length === 0 && albums.albums.length === 0;
  };
  const albums = albumChoices([], () => refresh());
  grid = new AssetGrid(gridNode, { mode: "select", onChange: () => refresh() });
  confirm = button(t("Confirm"), () => answer("limited", grid.selection, albums.albums), { primary: true, id: "confirm-selection" });
  refresh();
  const node = sheet(t("Choose what “{app}” may see", { app: prompt.appName }), element("div", { class: "sheet-body" }, counter, albums.node, scroll),
    [button(t("Don't Allow"), () => answer("deny"), { id: "deny" }), confirm], { wide: true });
  scroll.before(browseBar(grid));
  node.dataset.prompt = prompt.prompt;
  open(node, () => node.querySelector("#deny").click());
}

// A limited app's launch: a small alert, as iOS shows; the grid opens only if the owner asks.
function launchAlert(prompt) {
  const keep = () => api("POST", "/api/prompts/answer", { prompt: prompt.prompt, answer: "done", selection: prompt.selection || [] });
  const node = sheet(t("“{app}” Can See Only Some of Your Photos", { app: prompt.appName }),
    element("div", { class: "sheet-body" }, element("p", { class: "reason" }, t("Select more photos for it, or keep the current selection."))),
    [button(t("Select More Photos…"), async () => limitedLibrarySheet(prompt), { id: "select-more" }),
      button(t("Keep Current Selection"), keep, { id: "keep-selection" })], { alert: true });
  node.classList.add("alert");
  node.dataset.prompt = prompt.prompt;
  open(node, () => node.querySelector("#keep-selection").click());
}

function limitedLibrarySheet(prompt) {
  const before = new Set(prompt.selection || []);
  const counter = element("span", { class: "counter", id: "sheet-counter", role: "status", "aria-live": "polite" });
  const scroll = element("div", { class: "scroll" });
  const gridNode = element("div", { id: "sheet-grid" });
  scroll.append(gridNode);
  const refresh = (selection) => {
    const added = selection.filter((identifier) => !before.has(identifier)).length;
    counter.textContent = t("{count} selected, {added} added", { count: selection.length, added });
  };
  const grid = new AssetGrid(gridNode, { mode: "select", preselected: prompt.selection || [], onChange: refresh });
  refresh(grid.selection);
  const albums = albumChoices(prompt.albums || []);
  const done = button(t("Done"), async () => {
    const added = grid.selection.filter((identifier) => !before.has(identifier)).length;
    await api("POST", "/api/prompts/answer", { prompt: prompt.prompt, answer: "done", selection: grid.selection, albums: albums.albums });
    notify(t("Added {count} for {app}.", { count: added, app: prompt.appName }));
  }, { primary: true, id: "limited-done" });
  // Escape keeps the current selection, as "Keep Current Selection" does.
  const keep = () => api("POST", "/api/prompts/answer", { prompt: prompt.prompt, answer: "done", selection: prompt.selection || [] })
    .catch((error) => notify(error.message, true));
  const node = sheet(t("Select more photos for “{app}”", { app: prompt.appName }), element("div", { class: "sheet-body" }, counter, albums.node, scroll), [done], { wide: true });
  scroll.before(browseBar(grid));
  node.dataset.prompt = prompt.prompt;
  open(node, keep);
}

function confirmation(prompt) {
  const count = (prompt.selection || []).length;
  const answer = (choice) => api("POST", "/api/prompts/answer", { prompt: prompt.prompt, answer: choice });
  const thumbs = element("div", { class: "strip" },
    ...(prompt.selection || []).slice(0, 12).map((identifier) =>
      element("img", { alt: "", src: "/thumb?side=128&asset=" + encodeURIComponent(identifier) })));
  const title = prompt.kind === "deleteAssets" ? t(count === 1 ? "Allow “{app}” to delete 1 item?" : "Allow “{app}” to delete {count} items?", { app: prompt.appName, count }) : t("{app} asks: {kind}", { app: prompt.appName, kind: prompt.kind });
  const node = sheet(title, element("div", { class: "sheet-body" }, thumbs),
    [button(t("Don't Allow"), () => answer("deny"), { id: "deny" }), button(t(prompt.kind === "deleteAssets" ? "Delete" : "Allow"), () => answer("allow"), { primary: true, id: "allow" })],
    { alert: true });
  node.classList.add("alert");
  node.dataset.prompt = prompt.prompt;
  open(node, () => node.querySelector("#deny").click());
}

export function editSelection(app, appName, selection, followed, save) {
  const overlay = document.getElementById("overlay");
  const counter = element("span", { class: "counter", id: "sheet-counter", role: "status", "aria-live": "polite" });
  const scroll = element("div", { class: "scroll" });
  const gridNode = element("div", { id: "sheet-grid" });
  scroll.append(gridNode);
  const grid = new AssetGrid(gridNode, { mode: "select", preselected: selection, onChange: (chosen) => { counter.textContent = t("{count} selected", { count: chosen.length }); } });
  counter.textContent = t("{count} selected", { count: grid.selection.length });
  const albums = albumChoices(followed);
  const done = () => { close(overlay); current = null; if (latest) showNext(latest); };
  const node = sheet(t("What “{app}” may see", { app: appName }), element("div", { class: "sheet-body" }, counter, albums.node, scroll),
    [button(t("Cancel"), async () => done(), { id: "sheet-cancel" }), button(t("Save"), async () => { await save(grid.selection, albums.albums); done(); }, { primary: true, id: "selection-save" })], { wide: true });
  current = { kind: "editor", id: app };
  present(overlay, node, { onEscape: done });
}
