// How long a grant the owner gives lasts: the choices the prompt and the privacy page offer, and
// the end each means, in the browser's own time zone ("until tomorrow" is the coming midnight).
import { t } from "./strings.js";
import { element } from "./surface.js";

const choices = [
  ["untilChanged", "Until I change it"],
  ["oneHour", "For one hour"],
  ["untilTomorrow", "Until tomorrow"],
  ["oneWeek", "For one week"],
];

// Fills a <select> with the choices, "until changed" first and chosen.
export function fillTermChoices(select) {
  for (const [value, words] of choices) select.append(element("option", { value }, t(words)));
  return select;
}

// The term to send with a grant: { until } for a choice that ends, undefined for "until changed".
export function termOf(choice, now = new Date()) {
  let end;
  if (choice === "oneHour") end = new Date(now.getTime() + 3600e3);
  else if (choice === "untilTomorrow") { end = new Date(now); end.setHours(24, 0, 0, 0); }
  else if (choice === "oneWeek") end = new Date(now.getTime() + 7 * 86400e3);
  else return undefined;
  // lightbox-auth reads ISO 8601 without a fraction of a second.
  return { until: end.toISOString().replace(/\.\d{3}Z$/, "Z") };
}
