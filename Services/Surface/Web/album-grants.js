// Albums a limited selection may follow, offered above the grid of the limited-library picker, the
// "Limit Access…" choice and the privacy page's editor: "Family — 214 photos, follows new ones".
// The app then sees the album's photos, those added later too, and loses those taken out of it. An
// album chosen before that the library no longer has is dropped: its grant went with it.
import { t } from "./strings.js";
import { api, element } from "./surface.js";

export function albumWords(album) {
  const count = album.assetCount ?? 0;
  return t(count === 1 ? "{title} — 1 photo, follows new ones" : "{title} — {count} photos, follows new ones", { title: album.title, count });
}

export function albumChoices(chosen, onChange = () => {}) {
  const selected = new Set(chosen || []);
  const list = element("ul", { class: "album-list" });
  const node = element("fieldset", { class: "album-choice", id: "album-choice", hidden: "" },
    element("legend", {}, t("Albums")), list);
  api("GET", "/api/outline").then((outline) => {
    const albums = outline.albums || [];
    const known = new Set(albums.map((album) => album.identifier));
    for (const identifier of [...selected]) if (!known.has(identifier)) selected.delete(identifier);
    list.replaceChildren(...albums.map((album) => {
      const box = element("input", { type: "checkbox", value: album.identifier, checked: selected.has(album.identifier) });
      box.addEventListener("change", () => {
        if (box.checked) selected.add(album.identifier); else selected.delete(album.identifier);
        onChange([...selected]);
      });
      return element("li", { "data-album": album.identifier }, element("label", {}, box, " ", albumWords(album)));
    }));
    node.hidden = albums.length === 0;
    onChange([...selected]);
  }).catch(() => {}); // without the outline the photos can still be chosen one by one
  return { node, get albums() { return [...selected]; } };
}
