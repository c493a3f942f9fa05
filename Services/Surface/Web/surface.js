// The surface's page script: the event stream that brings picks and prompts, the JSON API (every
// change carries the session's CSRF token), and each page's controls. No inline script: the CSP
// allows only files served by the surface itself.
import { fillTermChoices, termOf } from "./grant-term.js";
import { locale, t } from "./strings.js";

const csrf = document.querySelector('meta[name="csrf-token"]')?.content || "";

export async function api(method, path, body) {
  const options = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (method !== "GET") {
    options.headers["Content-Type"] = "application/json";
    options.headers["X-CSRF-Token"] = csrf;
    options.body = JSON.stringify(body ?? {});
  }
  const response = await fetch(path, options);
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) throw new Error((data && data.message) || t("The surface answered {status}.", { status: response.status }));
  return data;
}

export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") { if (value) node.className = value; } else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

export function notify(message, isError = false) {
  let box = document.getElementById("notice");
  if (!box) {
    box = element("div", { id: "notice", role: "status" });
    document.body.append(box);
  }
  box.textContent = message;
  box.className = isError ? "notice error" : "notice";
  clearTimeout(notify.timer);
  notify.timer = setTimeout(() => { box.className = "notice hidden"; }, 4000);
}

export function dismissNotice() {
  const box = document.getElementById("notice");
  if (box) box.className = "notice hidden";
  clearTimeout(notify.timer);
}

// Times the server wrote in UTC (<time datetime="…">), shown in the browser's time zone and language.
function localizeTimes() {
  const format = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "medium" });
  // An end to come (a grant's term) to the minute.
  const short = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });
  for (const node of document.querySelectorAll("time[datetime]")) {
    const date = new Date(node.getAttribute("datetime"));
    if (Number.isNaN(date.getTime())) continue;
    node.title = node.textContent;
    node.textContent = (node.hasAttribute("data-short") ? short : format).format(date);
  }
}

const accessWords = { authorized: "full access", limited: "limited", denied: "none", restricted: "restricted", notDetermined: "not asked yet" };
const accessWord = (status) => (accessWords[status] ? t(accessWords[status]) : status);

function renderQueue(state) {
  const queue = document.getElementById("queue");
  if (!queue) return;
  if (state.picks.length === 0 && state.prompts.length === 0) {
    queue.replaceChildren(element("p", { class: "empty" }, t("Nothing is waiting for you.")));
    return;
  }
  queue.replaceChildren(element("ul", {},
    ...state.picks.map((pick) => element("li", { class: "request", "data-pick": pick.pick }, (pick.sentences || {})[document.documentElement.lang] || pick.sentence)),
    ...state.prompts.map((prompt) => element("li", { class: "request", "data-prompt": prompt.prompt }, t("{app} asks for access", { app: prompt.appName })))));
}

async function follow() {
  const { showNext } = await import("./sheet.js");
  const source = new EventSource("/events");
  source.addEventListener("state", (event) => {
    const state = JSON.parse(event.data);
    renderQueue(state);
    showNext(state);
    document.body.dataset.waiting = String(state.picks.length + state.prompts.length);
  });
  source.addEventListener("import", (event) => {
    const step = JSON.parse(event.data);
    const bar = document.getElementById("import-progress");
    if (bar) {
      bar.hidden = false;
      bar.max = step.total;
      bar.value = step.completed;
      document.getElementById("import-status").textContent = t("{completed} of {total}: {file}", { completed: step.completed, total: step.total, file: step.file });
    }
  });
  source.addEventListener("imported", (event) => {
    const summary = JSON.parse(event.data);
    const status = document.getElementById("import-status");
    if (status) status.textContent = t("Imported {imported}, already there {unchanged}, failed {failed}.",
      { imported: summary.imported.length, unchanged: summary.unchanged.length, failed: summary.failed.length });
    const grid = document.getElementById("library-grid");
    if (grid) startLibrary();
  });
  source.addEventListener("importFailed", (event) => notify(JSON.parse(event.data).message, true));
}

async function startLibrary() {
  const { AssetGrid } = await import("./grid.js");
  new AssetGrid(document.getElementById("library-grid"), { mode: "browse", emptyTitle: t("Your library is empty"),
    emptyText: t("Import a folder above and its photos and videos appear here.") });
}

function setUpLibrary() {
  // An asset's page is under Library too, without the grid: its buttons are set up by setUpAsset.
  if (!document.getElementById("library-grid")) return;
  startLibrary();
  document.getElementById("import").addEventListener("submit", async (event) => {
    event.preventDefault();
    const path = new FormData(event.target).get("path");
    try {
      await api("POST", "/api/import", { path });
      document.getElementById("import-status").textContent = t("Importing…");
    } catch (error) {
      notify(error.message, true);
    }
  });
}

function setUpAsset() {
  for (const node of document.querySelectorAll("[data-asset-action]")) {
    node.addEventListener("click", async () => {
      try {
        await api("POST", "/api/assets/" + node.dataset.assetAction, { asset: node.dataset.asset });
        window.location.reload();
      } catch (error) {
        notify(error.message, true);
      }
    });
  }
}

function setUpPrivacy() {
  const status = document.getElementById("privacy-status");
  const say = (text) => { status.textContent = text; };
  for (const row of document.querySelectorAll("tr[data-app]")) {
    const app = row.dataset.app;
    const name = row.querySelector("strong").textContent;
    const term = row.querySelector("select[data-term]");
    if (term) fillTermChoices(term);
    const set = async (change) => {
      // A grant's term from the row's choice; a reset or a denial takes none.
      const granting = change.readWrite === "full" || change.readWrite === "limited" || change.addOnly === "allow";
      const reply = await api("POST", "/api/apps/access", { app, ...change, term: granting ? termOf(term?.value) : undefined });
      say(t("{app}: photos {readWrite}, add only {addOnly}.", { app: name, readWrite: accessWord(reply.access.readWrite), addOnly: accessWord(reply.access.addOnly) }));
      window.setTimeout(() => window.location.reload(), 300);
    };
    for (const select of row.querySelectorAll("select[data-setting]")) {
      select.addEventListener("change", async () => {
        try {
          if (select.value === "notDetermined") return await set({ reset: true });
          if (select.dataset.setting === "readWrite" && select.value === "limited") {
            const detail = await api("GET", "/api/apps/detail?app=" + encodeURIComponent(app));
            const { editSelection } = await import("./sheet.js");
            return editSelection(app, name, detail.selection, detail.access.albums || [], (selection, albums) => set({ readWrite: "limited", selection, albums }));
          }
          await set({ [select.dataset.setting]: select.value });
        } catch (error) {
          notify(error.message, true);
        }
      });
    }
    // A desktop app's row (data-portal) has no access to set: only its items to revoke.
    row.querySelector('[data-app-action="select"]')?.addEventListener("click", async () => {
      const detail = await api("GET", "/api/apps/detail?app=" + encodeURIComponent(app));
      const { editSelection } = await import("./sheet.js");
      editSelection(app, name, detail.selection, detail.access.albums || [], (selection, albums) => set({ readWrite: "limited", selection, albums }));
    });
    row.querySelector('[data-app-action="reset"]')?.addEventListener("click", () => set({ reset: true }).catch((error) => notify(error.message, true)));
    row.querySelector('[data-app-action="revoke"]').addEventListener("click", async () => {
      try {
        const reply = await api("POST", "/api/apps/revoke", { app });
        say(t(reply.revoked === 1 ? "Revoked 1 item of {app}." : "Revoked {count} items of {app}.", { count: reply.revoked, app: name }));
      } catch (error) {
        notify(error.message, true);
      }
    });
  }
}

const setUp = { library: setUpLibrary, privacy: setUpPrivacy };
document.addEventListener("DOMContentLoaded", () => {
  follow();
  localizeTimes();
  const page = document.body.dataset.page;
  if (setUp[page]) setUp[page]();
  if (document.querySelector("[data-asset-action]")) setUpAsset();
  if (document.querySelector("ol[data-timeline], select[data-days]")) {
    import("./report.js").then(({ groupTimelines, labelDays }) => { groupTimelines(); labelDays(); });
  }
});
