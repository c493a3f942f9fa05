// The Privacy page's timelines grouped by day, and the Activity page's day choices, in the
// browser's time zone and language (Intl): the server writes times in UTC (<time datetime>) and
// days by their numbers.
import { locale } from "./strings.js";

const dayTitle = new Intl.DateTimeFormat(locale, { weekday: "long", day: "numeric", month: "long" });
const timeOfDay = new Intl.DateTimeFormat(locale, { timeStyle: "short" });
const relative = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });

function dayOf(date) {
  return date.getFullYear() * 10000 + (date.getMonth() + 1) * 100 + date.getDate();
}

// "Today", "Yesterday", else "Tuesday 25 November", in the page's language.
function titleOf(date) {
  const yesterday = new Date();
  yesterday.setDate(yesterday.getDate() - 1);
  const days = dayOf(date) === dayOf(new Date()) ? 0 : dayOf(date) === dayOf(yesterday) ? -1 : null;
  if (days === null) return dayTitle.format(date);
  const text = relative.format(days, "day");
  return text.charAt(0).toLocaleUpperCase(locale) + text.slice(1);
}

// Each timeline (newest first) becomes a list of days, each with its lines at their time of day.
export function groupTimelines() {
  for (const list of document.querySelectorAll("ol[data-timeline]")) {
    const days = new Map();
    for (const item of [...list.children]) {
      const date = new Date(item.dataset.at);
      if (Number.isNaN(date.getTime())) continue;
      if (!days.has(dayOf(date))) days.set(dayOf(date), { date, items: [] });
      days.get(dayOf(date)).items.push(item);
      const time = item.querySelector("time");
      if (time) time.textContent = timeOfDay.format(date);
    }
    list.replaceChildren(...[...days.values()].map(({ date, items }) => {
      const day = document.createElement("li");
      day.className = "day";
      const title = document.createElement("h4");
      title.textContent = titleOf(date);
      const lines = document.createElement("ol");
      lines.append(...items);
      day.append(title, lines);
      return day;
    }));
  }
}

// The day filter's choices are UTC days (as the server reads them): written as dates in the page's language.
export function labelDays() {
  const format = new Intl.DateTimeFormat(locale, { dateStyle: "full", timeZone: "UTC" });
  for (const option of document.querySelectorAll("select[data-days] option[value]")) {
    if (!option.value) continue;
    const date = new Date(option.value + "T00:00:00Z");
    if (!Number.isNaN(date.getTime())) option.textContent = format.format(date);
  }
}
