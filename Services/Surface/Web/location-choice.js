// The owner's answer to an app asking where photos were taken: Precise · Approximate · None, never
// more than the app asked. None is chosen until the owner chooses more: consent is given, not assumed.
import { t } from "./strings.js";
import { element } from "./surface.js";

const words = { precise: "Precise", approximate: "Approximate", none: "None" };
const levels = ["none", "approximate", "precise"];

// A radio group under `sentence` offering what the app `asked` for and less; null when it asked none.
export function locationChoice(asked, sentence) {
  const most = levels.indexOf(asked || "none");
  if (most <= 0) return null;
  const group = element("fieldset", { class: "location-choice", id: "location-choice" }, element("legend", {}, sentence));
  for (const value of levels.slice(0, most + 1).reverse()) {
    const input = element("input", { type: "radio", name: "location", value, id: "location-" + value });
    input.checked = value === "none";
    group.append(element("label", { class: "location-option" }, input, " " + t(words[value])));
  }
  return group;
}

// The location chosen in a group made by `locationChoice` ("none" without one).
export function chosenLocation(group) {
  return group?.querySelector("input[name=location]:checked")?.value ?? "none";
}

// Turns the group's choices off (and back on), as "Remove location" does for a pick.
export function setLocationChoiceDisabled(group, disabled) {
  if (!group) return;
  for (const input of group.querySelectorAll("input")) input.disabled = disabled;
}
