// A look before adding: one asset large, over the grid it came from. A photo is a rendition sized
// to the screen (not the grid's thumbnail), a video plays its H.264 rendition (streamed with range
// requests), an animated GIF or WebP animates from its original, and a Live Photo plays its movie
// while the pointer rests on it. Previous and Next walk the grid; the select toggle chooses as a
// click in the grid does; Escape closes the preview and leaves the sheet as it was.
import { describe } from "./asset-words.js";
import { close, present } from "./dialog.js";
import { t } from "./strings.js";
import { element } from "./surface.js";

export function openPreview(grid, identifier) {
  const layer = document.getElementById("layer");
  if (!layer || !grid.assets.has(identifier)) return;
  let current = identifier;
  const title = element("h2", { id: "preview-title" });
  const position = element("span", { class: "position", id: "preview-position" });
  const stage = element("div", { class: "stage", id: "preview-stage" });
  const note = element("p", { class: "limit-note", id: "preview-note", role: "status", "aria-live": "polite" });
  const previous = element("button", { type: "button", id: "preview-previous" }, "‹ " + t("Previous"));
  const next = element("button", { type: "button", id: "preview-next" }, t("Next") + " ›");
  const choose = element("button", { type: "button", id: "preview-select", class: "primary" });
  const closing = element("button", { type: "button", id: "preview-close", "aria-label": t("Close the preview") }, "✕");
  const done = () => {
    close(layer);
    grid.focusCell(current); // back on the grid, where the preview left off
  };
  closing.addEventListener("click", done);

  const show = (target) => {
    current = target;
    const asset = grid.assets.get(target);
    const order = [...grid.assets.keys()];
    const index = order.indexOf(target);
    title.textContent = describe(asset);
    position.textContent = t("{count} of {limit}", { count: index + 1, limit: order.length });
    previous.disabled = index <= 0;
    next.disabled = index >= order.length - 1;
    note.textContent = (asset.unavailable && asset.unavailable.reason) || "";
    stage.replaceChildren(media(asset));
    paintChoice();
    // Near the end of what is loaded: the grid fetches its next page, so Next can go on.
    if (index >= order.length - 2) grid.load();
  };
  const paintChoice = () => {
    const chosen = grid.selection.includes(current);
    choose.textContent = chosen ? "✓ " + t("Selected") : t("Select");
    choose.setAttribute("aria-pressed", String(chosen));
    choose.disabled = !chosen && Boolean(grid.assets.get(current).unavailable); // the note says why
  };
  const step = (by) => {
    const order = [...grid.assets.keys()];
    const target = order[order.indexOf(current) + by];
    if (target) show(target);
  };
  previous.addEventListener("click", () => step(-1));
  next.addEventListener("click", () => step(1));
  choose.addEventListener("click", () => {
    if (grid.toggle(current) === "refused") note.textContent = t("You can choose up to {limit}.", { limit: grid.limit });
    paintChoice();
  });

  const buttons = grid.mode === "select" ? [previous, choose, next] : [previous, next];
  const node = element("section", { class: "sheet preview-sheet", role: "dialog", "aria-modal": "true", "aria-labelledby": "preview-title" },
    element("header", {}, title, position, closing), stage, note, element("footer", {}, ...buttons));
  node.addEventListener("keydown", (event) => {
    if (event.target.tagName === "VIDEO") return; // its own controls use the arrows
    if (event.key === "ArrowLeft") { event.preventDefault(); step(-1); }
    if (event.key === "ArrowRight") { event.preventDefault(); step(1); }
  });
  present(layer, node, { onEscape: done });
  show(identifier);
}

// The largest side the screen shows, in device pixels, within what the owner's thumbnails offer.
function screenSide() {
  return Math.min(1024, Math.max(256, Math.ceil(Math.max(innerWidth, innerHeight) * (devicePixelRatio || 1))));
}

function media(asset) {
  const id = encodeURIComponent(asset.identifier);
  const still = "/thumb?side=" + screenSide() + "&asset=" + id;
  const subtypes = asset.subtypes || [];
  if (asset.mediaType === "video") {
    const video = element("video", { id: "preview-video", controls: true, autoplay: true, playsinline: true, preload: "auto", poster: still,
      src: "/media?part=movie&asset=" + id, "aria-label": describe(asset) });
    video.muted = true; // a muted video may start by itself; the controls turn the sound on
    return video;
  }
  if (subtypes.includes("animated")) {
    return element("img", { id: "preview-image", src: "/media?part=original&asset=" + id, alt: describe(asset) });
  }
  const image = element("img", { id: "preview-image", src: still, alt: describe(asset) });
  if (!subtypes.includes("livePhoto")) return image;
  // A Live Photo: its movie plays over the still while the pointer (or focus) rests on it.
  const movie = element("video", { id: "preview-live", class: "live", muted: true, playsinline: true, loop: true, preload: "none",
    src: "/media?part=movie&asset=" + id, "aria-hidden": "true" });
  movie.muted = true;
  const frame = element("div", { class: "live-frame", tabindex: "0", "aria-label": t("Live Photo: rest the pointer here to play it") }, image, movie,
    element("span", { class: "badge live-badge", "aria-hidden": "true" }, "LIVE"));
  const play = () => { movie.hidden = false; movie.play().catch(() => {}); };
  const stop = () => { movie.pause(); movie.currentTime = 0; movie.hidden = true; };
  movie.hidden = true;
  frame.addEventListener("pointerenter", play);
  frame.addEventListener("pointerleave", stop);
  frame.addEventListener("focus", play);
  frame.addEventListener("blur", stop);
  return frame;
}
