// A grid of the library's thumbnails, loaded a page at a time as the owner scrolls. In "select"
// mode it keeps an ordered selection with an optional limit; in "browse" mode a click opens the
// asset's page.
import { api } from "./surface.js";

export class AssetGrid {
  constructor(element, { pick = null, filter = null, mode = "browse", limit = 0, ordered = false, preselected = [], onChange = () => {} } = {}) {
    this.element = element;
    this.pick = pick;
    this.filter = filter;
    this.mode = mode;
    this.limit = limit;
    this.ordered = ordered;
    this.selection = [...preselected];
    this.onChange = onChange;
    this.next = null;
    this.done = false;
    this.loading = false;
    this.cells = new Map();
    element.classList.add("grid");
    element.replaceChildren();
    this.sentinel = document.createElement("div");
    this.sentinel.className = "sentinel";
    element.append(this.sentinel);
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) this.load();
    }, { root: element.closest(".scroll") || null, rootMargin: "400px" });
    this.observer.observe(this.sentinel);
    this.load();
  }

  async load() {
    if (this.loading || this.done) return;
    this.loading = true;
    try {
      const query = new URLSearchParams({ limit: "60" });
      if (this.pick) query.set("pick", this.pick);
      if (this.filter) query.set("filter", this.filter);
      if (this.next) query.set("after", this.next);
      const page = await api("GET", "/api/assets?" + query.toString());
      for (const asset of page.assets) this.add(asset);
      this.next = page.next || null;
      this.done = !this.next;
      if (this.done) this.observer.disconnect();
      this.element.dataset.loaded = String(this.cells.size);
    } catch (error) {
      this.element.dataset.error = error.message;
    } finally {
      this.loading = false;
    }
    // A short first page may leave the sentinel in view: keep filling until it scrolls away.
    if (!this.done && this.sentinel.getBoundingClientRect().top < window.innerHeight + 400) this.load();
  }

  add(asset) {
    const cell = document.createElement("button");
    cell.type = "button";
    cell.className = "cell";
    cell.dataset.asset = asset.identifier;
    cell.title = asset.fileName;
    const image = document.createElement("img");
    image.loading = "lazy";
    image.alt = asset.fileName;
    image.src = "/thumb?side=256&asset=" + encodeURIComponent(asset.identifier);
    cell.append(image);
    const badges = [];
    if (asset.mediaType === "video" && asset.duration != null) badges.push(duration(asset.duration));
    if ((asset.subtypes || []).includes("animated")) badges.push("GIF");
    if ((asset.subtypes || []).includes("livePhoto")) badges.push("LIVE");
    if (asset.isInCloud) badges.push("☁");
    for (const text of badges) {
      const badge = document.createElement("span");
      badge.className = "badge";
      badge.textContent = text;
      cell.append(badge);
    }
    const mark = document.createElement("span");
    mark.className = "mark";
    cell.append(mark);
    cell.addEventListener("click", () => this.clicked(asset, cell));
    this.sentinel.before(cell);
    this.cells.set(asset.identifier, cell);
    this.paint();
  }

  clicked(asset, cell) {
    if (this.mode === "browse") {
      window.location.href = "/asset?id=" + encodeURIComponent(asset.identifier);
      return;
    }
    const index = this.selection.indexOf(asset.identifier);
    if (index >= 0) {
      this.selection.splice(index, 1);
    } else if (this.limit > 0 && this.selection.length >= this.limit) {
      // The limit holds as the owner clicks: a click past it selects nothing.
      cell.classList.add("refused");
      setTimeout(() => cell.classList.remove("refused"), 400);
      return;
    } else {
      this.selection.push(asset.identifier);
    }
    this.paint();
    this.onChange(this.selection);
  }

  paint() {
    for (const [identifier, cell] of this.cells) {
      const position = this.selection.indexOf(identifier);
      cell.classList.toggle("selected", position >= 0);
      cell.setAttribute("aria-pressed", String(position >= 0));
      cell.querySelector(".mark").textContent = position < 0 ? "" : this.ordered ? String(position + 1) : "✓";
    }
  }
}

function duration(seconds) {
  const whole = Math.round(seconds);
  return Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
}
