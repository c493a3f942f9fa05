// The pick sheet's ways through a large library, above its grid (grid.js): a search box (a place,
// a date such as "2024" or "March 2024", a camera, a kind such as "screenshots", part of a file
// name), chips for Photos, Videos, Live Photos and Screenshots, the library's albums, and "jump to
// year". The picker answers each in SQL, a page at a time; the selection stays as the owner browses.
import { locale, t } from "./strings.js";
import { api, element } from "./surface.js";

const chips = [
  { label: t("All"), filter: null },
  { label: t("Photos"), filter: "images" },
  { label: t("Videos"), filter: "videos" },
  { label: t("Live Photos"), filter: "livePhotos" },
  { label: t("Screenshots"), filter: "screenshots" },
];

export function browseBar(grid) {
  const state = { search: "", kinds: null, album: "", before: "" };
  const unfiltered = { emptyTitle: grid.emptyTitle, emptyText: grid.emptyText }; // what the sheet itself says when nothing matches
  const search = element("input", { type: "search", id: "sheet-search", class: "search", enterkeyhint: "search", autocomplete: "off",
    placeholder: t("Search places, dates, cameras, kinds"), "aria-label": t("Search photos and videos") });
  // One choice of the five: a radio group (the arrows move, Space or Enter chooses).
  const chipRow = element("div", { class: "chips" });
  const chipGroup = element("div", { class: "chip-group", role: "radiogroup", "aria-label": t("Show") });
  const chipButtons = chips.map((chip) => {
    const node = element("button", { type: "button", class: "chip", role: "radio", "aria-checked": String(chip.filter === null), "data-filter": chip.filter || "" }, chip.label);
    node.addEventListener("click", () => {
      state.kinds = chip.filter;
      for (const other of chipButtons) other.setAttribute("aria-checked", String(other === node));
      rove(node);
      apply();
    });
    return node;
  });
  chipGroup.append(...chipButtons);
  chipRow.append(chipGroup);
  // One Tab stop for the chips: the arrows move between them (a roving tabindex, as in the grid).
  const rove = (target) => { for (const chip of chipButtons) chip.tabIndex = chip === target ? 0 : -1; };
  rove(chipButtons[0]);
  chipGroup.addEventListener("keydown", (event) => {
    const index = chipButtons.indexOf(document.activeElement);
    const step = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
    if (index < 0 || !step) return;
    event.preventDefault();
    const target = chipButtons[(index + step + chipButtons.length) % chipButtons.length];
    rove(target);
    target.focus();
  });
  const album = element("select", { id: "sheet-album", class: "chip-select", "aria-label": t("Album"), hidden: "" },
    element("option", { value: "" }, t("All albums")));
  album.addEventListener("change", () => { state.album = album.value; apply(); });
  const year = element("select", { id: "sheet-year", class: "chip-select", "aria-label": t("Jump to year"), hidden: "" },
    element("option", { value: "" }, t("Jump to year")));
  year.addEventListener("change", () => {
    // The grid starts at the end of that year, in the browser's time zone, and goes on into older ones.
    state.before = year.value ? new Date(Number(year.value) + 1, 0, 1).toISOString() : "";
    apply();
  });
  const note = element("p", { class: "browse-note", id: "place-note", hidden: "" }, t("Place search is off: no place table is installed."));
  chipRow.append(album, year);

  let timer = null;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => { state.search = search.value.trim(); apply(); }, 250);
  });
  search.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      clearTimeout(timer);
      state.search = search.value.trim();
      apply();
    }
  });

  let shown = JSON.stringify(state);
  function apply() {
    const wanted = JSON.stringify(state);
    if (wanted === shown) return;
    shown = wanted;
    grid.browse({ search: state.search, kinds: state.kinds, album: state.album, before: state.before }, emptyWords());
  }

  // The empty grid's title and sentence say what was asked for.
  function emptyWords() {
    const asked = [];
    if (state.search) asked.push("“" + state.search + "”");
    const chip = chips.find((entry) => entry.filter === state.kinds);
    if (chip && chip.filter) asked.push(chip.label);
    if (state.album) asked.push(album.selectedOptions[0]?.textContent || "");
    if (state.before) asked.push(t("{year} and before", { year: year.value }));
    if (asked.length === 0) return unfiltered;
    return { emptyTitle: t("No photos match {what}", { what: asked.join(t(", ")) }),
      emptyText: t("Try a place, a date such as 2024 or March 2024, a camera or a kind such as screenshots; or choose All.") };
  }

  api("GET", "/api/outline").then((outline) => {
    for (const entry of outline.albums || []) album.append(element("option", { value: entry.identifier }, entry.title));
    album.hidden = (outline.albums || []).length === 0;
    const newest = outline.newest ? new Date(outline.newest).getFullYear() : null;
    const oldest = outline.oldest ? new Date(outline.oldest).getFullYear() : null;
    if (newest !== null && oldest !== null && newest > oldest) {
      const format = new Intl.NumberFormat(locale, { useGrouping: false });
      for (let value = newest; value >= oldest && newest - value < 200; value -= 1) {
        year.append(element("option", { value: String(value) }, format.format(value)));
      }
      year.hidden = false;
    }
    note.hidden = outline.placeSearch !== false;
  }).catch(() => {}); // without the outline the search and the chips still work

  return element("div", { class: "browse" }, search, chipRow, note);
}
