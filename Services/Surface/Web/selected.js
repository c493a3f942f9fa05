// The "Selected (N)" view of a pick: what the owner has chosen, in order, each with Remove, and
// Move up / Move down when the app asked for an ordered selection. It edits the grid's selection.
import { describe } from "./asset-words.js";
import { close, present } from "./dialog.js";
import { t } from "./strings.js";
import { element } from "./surface.js";

export function openSelected(grid, { ordered = false, onClose = () => {} } = {}) {
  const layer = document.getElementById("layer");
  if (!layer) return;
  const title = element("h2", { id: "selected-title" });
  const list = element("ol", { class: "selected-list", id: "selected-list" });
  const done = () => { close(layer); onClose(); };
  const doneButton = element("button", { type: "button", class: "primary", id: "selected-done" }, t("Done"));
  doneButton.addEventListener("click", done);

  const action = (text, label, run, disabled = false) => {
    const node = element("button", { type: "button", "aria-label": label, disabled }, text);
    node.addEventListener("click", () => { run(); draw(); });
    return node;
  };
  const draw = () => {
    const chosen = grid.selection;
    title.textContent = t("Selected ({count})", { count: chosen.length });
    if (chosen.length === 0) {
      list.replaceChildren(element("li", { class: "empty" }, t("Nothing is selected.")));
      doneButton.focus();
      return;
    }
    list.replaceChildren(...chosen.map((identifier, index) => {
      const asset = grid.assets.get(identifier) || grid.remembered.get(identifier);
      const name = asset ? describe(asset) : t("Chosen earlier");
      const move = (by) => {
        const order = [...grid.selection];
        [order[index], order[index + by]] = [order[index + by], order[index]];
        grid.setSelection(order);
      };
      const buttons = [action(t("Remove"), t("Remove {name}", { name }), () => grid.setSelection(grid.selection.filter((item) => item !== identifier)))];
      if (ordered) {
        buttons.unshift(action("↑", t("Move up: {name}", { name }), () => move(-1), index === 0),
          action("↓", t("Move down: {name}", { name }), () => move(1), index === chosen.length - 1));
      }
      return element("li", { "data-asset": identifier },
        element("img", { src: "/thumb?side=256&asset=" + encodeURIComponent(identifier), alt: "" }),
        element("span", { class: "name" }, name), element("span", { class: "actions" }, ...buttons));
    }));
  };
  const node = element("section", { class: "sheet selected-view", role: "dialog", "aria-modal": "true", "aria-labelledby": "selected-title" },
    element("header", {}, title), element("div", { class: "sheet-body scroll" }, list), element("footer", {}, doneButton));
  present(layer, node, { onEscape: done });
  draw();
}
