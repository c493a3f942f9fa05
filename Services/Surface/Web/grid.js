// A grid of the library's thumbnails, loaded a page at a time as the owner scrolls. In "select"
// mode it keeps an ordered selection with an optional limit; in "browse" mode a click opens the
// asset's page. One cell at a time is in the Tab order (a roving tabindex): the arrow keys, Home
// and End move through the grid, Enter presses the cell, and Space, a long press or the cell's
// zoom button opens the preview (preview.js). Each cell is named by its kind
// and date, not its file name. A grid with nothing in it says so; a page that fails says why and
// offers Retry. Assets come newest first, under a sticky header per month and per day (in the
// browser's time zone); `browse` narrows the grid by a search, an album or a starting date, all
// answered by the picker in SQL, and keeps the selection. An asset the pick's limits leave out
// comes with `unavailable.reason` from the picker: its cell shows it, disabled, and never selects.
import { badgeTexts, describe } from "./asset-words.js";
import { openPreview } from "./preview.js";
import { locale, t } from "./strings.js";
import { api, element, notify } from "./surface.js";

export class AssetGrid {
  constructor(node, { pick = null, filter = null, mode = "browse", limit = 0, ordered = false, preselected = [], onChange = () => {},
    label = t("Photos and videos"), emptyTitle = t("No photos match"), emptyText = "" } = {}) {
    this.element = node;
    this.pick = pick;
    this.filter = filter;
    this.mode = mode;
    this.limit = limit;
    this.ordered = ordered;
    this.selection = [...preselected];
    this.onChange = onChange;
    this.emptyTitle = emptyTitle;
    this.emptyText = emptyText;
    this.next = null;
    this.done = false;
    this.loading = false;
    this.failed = false;
    this.cells = new Map();
    this.assets = new Map(); // identifier → summary, in the grid's order
    this.remembered = new Map(); // summaries of selected assets a later browse no longer shows
    this.browsing = {}; // { search, album, before, kinds }: what `browse` narrowed the grid to
    this.generation = 0; // pages of an earlier browse are dropped when they arrive
    this.lastMonth = null;
    this.lastDay = null;
    this.focused = null;
    node.classList.add("grid");
    node.setAttribute("role", "group");
    node.setAttribute("aria-label", label);
    node.replaceChildren();
    this.sentinel = document.createElement("div");
    this.sentinel.className = "sentinel";
    node.append(this.sentinel);
    node.addEventListener("keydown", (event) => this.key(event));
    // A button presses on Space's keyup: here Space opened the preview instead.
    node.addEventListener("keyup", (event) => { if (event.key === " " && event.target.classList.contains("cell")) event.preventDefault(); });
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) this.load();
    }, { root: node.closest(".scroll") || null, rootMargin: "400px" });
    this.observer.observe(this.sentinel);
    this.load();
  }

  async load() {
    if (this.loading || this.done || this.failed) return;
    this.loading = true;
    const generation = this.generation;
    try {
      const query = new URLSearchParams({ limit: "60" });
      if (this.pick) query.set("pick", this.pick);
      const filter = this.browsing.kinds || this.filter;
      if (filter) query.set("filter", filter);
      if (this.next) query.set("after", this.next);
      for (const name of ["search", "album", "before"]) if (this.browsing[name]) query.set(name, this.browsing[name]);
      if (this.browsing.search) query.set("timeZone", Intl.DateTimeFormat().resolvedOptions().timeZone || "");
      // A space as %20: the surface reads "+" in a query as itself.
      const page = await api("GET", "/api/assets?" + query.toString().replaceAll("+", "%20"));
      // A page of an earlier browse (the owner typed on meanwhile) is dropped.
      if (generation === this.generation) this.show(page);
    } catch (error) {
      if (generation === this.generation) this.showError(error.message);
    } finally {
      this.loading = false;
    }
    if (generation !== this.generation) return this.load(); // the new browse's first page
    // A short first page may leave the sentinel in view: keep filling until it scrolls away.
    if (!this.done && !this.failed && this.sentinel.getBoundingClientRect().top < window.innerHeight + 400) this.load();
  }

  show(page) {
    for (const asset of page.assets) this.add(asset);
    this.next = page.next || null;
    this.done = !this.next;
    if (this.done) this.observer.disconnect();
    this.element.dataset.loaded = String(this.cells.size);
    if (this.done && this.cells.size === 0) this.showEmpty();
  }

  // Shows what `browsing` ({ search, album, before, kinds }) narrows the library to, from its first
  // page; the selection stays, and the empty state says what was asked for.
  browse(browsing, { emptyTitle = t("No photos match"), emptyText = "" } = {}) {
    for (const identifier of this.selection) {
      const asset = this.assets.get(identifier);
      if (asset) this.remembered.set(identifier, asset);
    }
    this.browsing = browsing;
    this.emptyTitle = emptyTitle;
    this.emptyText = emptyText;
    this.generation += 1;
    this.next = null;
    this.done = false;
    this.failed = false;
    this.cells.clear();
    this.assets.clear();
    this.focused = null;
    this.lastMonth = null;
    this.lastDay = null;
    delete this.element.dataset.empty;
    delete this.element.dataset.error;
    this.element.dataset.loaded = "0";
    this.element.replaceChildren(this.sentinel);
    this.observer.disconnect();
    this.observer.observe(this.sentinel);
    this.element.closest(".scroll")?.scrollTo({ top: 0 });
    this.load();
  }

  // A month's and a day's sticky header before the first asset of each, in the browser's time zone.
  addSections(asset) {
    const created = new Date(asset.creationDate);
    if (Number.isNaN(created.getTime())) return;
    const month = created.getFullYear() + "-" + created.getMonth();
    const day = month + "-" + created.getDate();
    if (month !== this.lastMonth) {
      this.lastMonth = month;
      this.sentinel.before(element("h3", { class: "section month", "data-month": month }, monthFormat.format(created)));
    }
    if (day !== this.lastDay) {
      this.lastDay = day;
      this.sentinel.before(element("h4", { class: "section day", "data-day": day }, dayFormat.format(created)));
    }
  }

  showEmpty() {
    this.element.dataset.empty = "true";
    this.sentinel.before(element("div", { class: "grid-note empty-note" }, element("h3", {}, this.emptyTitle), element("p", {}, this.emptyText)));
  }

  showError(message) {
    this.failed = true;
    this.element.dataset.error = message;
    const retry = element("button", { type: "button", class: "retry" }, t("Retry"));
    const note = element("div", { class: "grid-note error-note", role: "alert" },
      element("h3", {}, t("The photos could not be loaded")), element("p", {}, message), retry);
    retry.addEventListener("click", () => {
      note.remove();
      delete this.element.dataset.error;
      this.failed = false;
      this.load();
    });
    this.sentinel.before(note);
  }

  add(asset) {
    this.addSections(asset);
    const cell = document.createElement("button");
    cell.type = "button";
    cell.className = "cell";
    cell.dataset.asset = asset.identifier;
    cell.title = asset.fileName;
    cell.setAttribute("aria-label", describe(asset));
    const why = asset.unavailable && asset.unavailable.reason;
    if (why) {
      cell.classList.add("unavailable");
      cell.title = asset.fileName + " — " + why;
      cell.setAttribute("aria-label", describe(asset) + t(", ") + why);
    }
    cell.tabIndex = this.cells.size === 0 ? 0 : -1;
    if (this.cells.size === 0) this.focused = cell;
    const image = document.createElement("img");
    image.loading = "lazy";
    image.alt = "";
    image.src = "/thumb?side=256&asset=" + encodeURIComponent(asset.identifier);
    cell.append(image);
    const badges = element("span", { class: "badges", "aria-hidden": "true" });
    for (const text of badgeTexts(asset)) badges.append(element("span", { class: "badge" }, text));
    if (badges.childElementCount > 0) cell.append(badges);
    if (why) cell.append(element("span", { class: "why", "aria-hidden": "true" }, why));
    const mark = document.createElement("span");
    mark.className = "mark";
    mark.setAttribute("aria-hidden", "true");
    cell.append(mark);
    cell.addEventListener("click", () => {
      if (this.pressedLong) { this.pressedLong = false; return; } // the long press opened the preview
      this.clicked(asset, cell);
    });
    cell.addEventListener("focus", () => this.rove(cell));
    this.listenForLongPress(cell, asset.identifier);
    // The zoom button is for the pointer; from the keyboard, Space previews the focused cell.
    const zoom = element("button", { type: "button", class: "zoom", tabindex: "-1", "aria-label": t("Preview: {name}", { name: describe(asset) }) }, "⤢");
    zoom.addEventListener("click", () => this.preview(asset.identifier));
    this.sentinel.before(element("div", { class: "tile" }, cell, zoom));
    this.cells.set(asset.identifier, cell);
    this.assets.set(asset.identifier, asset);
    // An app's preselection may name what its own limits leave out: it is not chosen.
    if (why && this.selection.includes(asset.identifier)) {
      this.selection = this.selection.filter((identifier) => identifier !== asset.identifier);
      this.onChange(this.selection);
    }
    this.paint();
  }

  listenForLongPress(cell, identifier) {
    let timer = null;
    const stop = () => { clearTimeout(timer); timer = null; };
    cell.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      this.pressedLong = false;
      timer = setTimeout(() => { timer = null; this.pressedLong = true; this.preview(identifier); }, 500);
    });
    for (const name of ["pointerup", "pointerleave", "pointercancel"]) cell.addEventListener(name, stop);
    cell.addEventListener("contextmenu", (event) => { if (this.pressedLong || timer) event.preventDefault(); });
  }

  preview(identifier) {
    openPreview(this, identifier);
  }

  clicked(asset, cell) {
    if (this.mode === "browse") {
      window.location.href = "/asset?id=" + encodeURIComponent(asset.identifier);
      return;
    }
    const answer = this.toggle(asset.identifier);
    if (answer === "refused" || answer === "unavailable") {
      // The limit holds as the owner clicks: a click past it selects nothing (the sheet says why).
      cell.classList.add("refused");
      setTimeout(() => cell.classList.remove("refused"), 400);
    }
    if (answer === "unavailable") notify(asset.unavailable.reason);
  }

  // Adds the asset to the selection or takes it out: "added", "removed", "refused" past the limit,
  // or "unavailable" when the pick's limits leave it out.
  toggle(identifier) {
    const index = this.selection.indexOf(identifier);
    if (index < 0 && this.assets.get(identifier)?.unavailable) return "unavailable";
    if (index >= 0) {
      this.selection.splice(index, 1);
    } else if (this.limit === 1) {
      this.selection = [identifier]; // one to choose: a click moves the choice, as iOS does
    } else if (this.isFull()) {
      return "refused";
    } else {
      this.selection.push(identifier);
    }
    this.paint();
    this.onChange(this.selection);
    return index >= 0 ? "removed" : "added";
  }

  // A selection edited elsewhere (the Selected view): removed or reordered items.
  setSelection(identifiers) {
    this.selection = [...identifiers];
    this.paint();
    this.onChange(this.selection);
  }

  focusCell(identifier) {
    const cell = this.cells.get(identifier);
    if (!cell) return;
    this.rove(cell);
    cell.focus({ preventScroll: true });
    cell.scrollIntoView({ block: "nearest" });
  }

  isFull() {
    return this.limit > 0 && this.selection.length >= this.limit;
  }

  paint() {
    const full = this.mode === "select" && this.limit > 1 && this.isFull();
    this.element.classList.toggle("full", full);
    for (const [identifier, cell] of this.cells) {
      const position = this.selection.indexOf(identifier);
      cell.classList.toggle("selected", position >= 0);
      if (this.mode === "select") cell.setAttribute("aria-pressed", String(position >= 0));
      if ((full && position < 0) || cell.classList.contains("unavailable")) cell.setAttribute("aria-disabled", "true");
      else cell.removeAttribute("aria-disabled");
      cell.querySelector(".mark").textContent = position < 0 ? "" : this.ordered ? String(position + 1) : "✓";
    }
  }

  rove(cell) {
    if (this.focused === cell) return;
    if (this.focused) this.focused.tabIndex = -1;
    cell.tabIndex = 0;
    this.focused = cell;
  }

  // The cell in the next row up (-1) or down (1) nearest in x to `cells[index]`, if any.
  cellBeside(cells, index, direction) {
    const from = cells[index].getBoundingClientRect();
    let row = null;
    let best = null;
    for (let other = index + direction; other >= 0 && other < cells.length; other += direction) {
      const rect = cells[other].getBoundingClientRect();
      if (Math.abs(rect.top - from.top) < from.height / 2) continue; // the same row
      if (row === null) row = rect.top;
      else if (Math.abs(rect.top - row) >= from.height / 2) break; // past the next row
      const distance = Math.abs(rect.left - from.left);
      if (!best || distance < best.distance) best = { cell: cells[other], distance };
    }
    return best && best.cell;
  }

  key(event) {
    const cells = [...this.cells.values()];
    const index = cells.indexOf(document.activeElement);
    if (index < 0) return;
    if (event.key === " ") {
      event.preventDefault(); // Space previews; Enter (the button's own click) selects
      if (!event.repeat) this.preview(cells[index].dataset.asset);
      return;
    }
    const columns = Math.max(1, getComputedStyle(this.element).gridTemplateColumns.split(" ").filter(Boolean).length);
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -columns, ArrowDown: columns, Home: -index, End: cells.length - 1 - index };
    if (!(event.key in moves)) return;
    event.preventDefault();
    // Up and down go to the cell above or below on screen: a day's short row breaks the columns.
    const vertical = event.key === "ArrowUp" || event.key === "ArrowDown" ? this.cellBeside(cells, index, event.key === "ArrowUp" ? -1 : 1) : null;
    const target = vertical || cells[Math.min(cells.length - 1, Math.max(0, index + moves[event.key]))];
    this.rove(target);
    target.focus();
    target.scrollIntoView({ block: "nearest" });
    // Near the end of what is loaded: fetch the next page before the owner gets there.
    if (cells.indexOf(target) >= cells.length - columns * 2) this.load();
  }
}

const monthFormat = new Intl.DateTimeFormat(locale, { year: "numeric", month: "long" });
const dayFormat = new Intl.DateTimeFormat(locale, { weekday: "long", day: "numeric", month: "long" });
