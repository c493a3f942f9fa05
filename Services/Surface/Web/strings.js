// The page's words in its language: the server puts its table (English text → this language's)
// in the page as JSON, and `t` looks a sentence up and fills in its {values}. `locale` is the
// page's language for Intl's dates and numbers.
const table = JSON.parse(document.getElementById("surface-strings")?.textContent || "{}");

export const locale = document.documentElement.lang || undefined;

export function t(text, values = {}) {
  let result = table[text] ?? text;
  for (const [name, value] of Object.entries(values)) result = result.replaceAll("{" + name + "}", String(value));
  return result;
}
