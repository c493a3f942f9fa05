"""Light and dark (prefers-color-scheme, emulated through the DevTools protocol) at a desktop's
1280 × 800 and a phone's 390 × 844: the pick sheet, its preview, the authorization alert, Privacy
and Activity, each screenshot kept, and the text that matters readable against what is behind it
(WCAG's 4.5:1 for text)."""

import os

from selenium.webdriver.common.by import By

from conftest import SCREENSHOTS
from test_surface import ask_access_in_background, click, open_sheet, pick_in_background, sheet_gone, wait
from test_surface_phone import emulate, keys
from selenium.webdriver.common.keys import Keys

# The contrast of an element's text against the first opaque background behind it.
CONTRAST = """
const parse = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
const luminance = ([r, g, b]) => {
  const channel = (value) => { value /= 255; return value <= 0.03928 ? value / 12.92 : Math.pow((value + 0.055) / 1.055, 2.4); };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
};
const node = arguments[0];
let ground = node, background = null;
while (ground) {
  const color = parse(getComputedStyle(ground).backgroundColor);
  if (color.length >= 3 && (color.length === 3 || color[3] > 0.9)) { background = color; break; }
  ground = ground.parentElement;
}
background = background || [255, 255, 255];
const [a, b] = [luminance(parse(getComputedStyle(node).color)), luminance(background)];
return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
"""


def scheme(browser, name):
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": name}]})


def readable(browser, css, screen):
    for node in browser.find_elements(By.CSS_SELECTOR, css):
        if node.is_displayed() and node.text.strip():
            ratio = browser.execute_script(CONTRAST, node)
            assert ratio >= 4.5, f"{css} on {screen} reads at {ratio:.2f}:1"


def test_light_and_dark_at_both_sizes(stack, browser):
    stack.register("shade", "Shade App", usage="To print your photos")
    try:
        for width, height in [(1280, 800), (390, 844)]:
            emulate(browser, width, height)
            for mode in ("light", "dark"):
                scheme(browser, mode)
                shot = lambda name: browser.save_screenshot(os.path.join(SCREENSHOTS, f"{mode}-{width}-{name}.png"))
                browser.get(stack.base + "/")
                dark = browser.execute_script("return matchMedia('(prefers-color-scheme: dark)').matches")
                assert dark == (mode == "dark")
                background = browser.execute_script("return getComputedStyle(document.documentElement).backgroundColor")
                assert (background == "rgb(0, 0, 0)") == dark, background

                app = pick_in_background(stack, "shade", selection_limit=2)
                open_sheet(browser, ".sheet[data-pick]")
                wait(browser, lambda driver: len(driver.find_elements(By.CSS_SELECTOR, "#sheet-grid .cell")) >= 7)
                browser.find_elements(By.CSS_SELECTOR, "#sheet-grid .cell")[0].click()
                for css in ("#overlay h2", "#sheet-counter", "#sheet-add", "#sheet-cancel", "#sheet-selected", ".switch"):
                    readable(browser, css, f"the sheet ({mode}, {width})")
                shot("pick-sheet")
                browser.execute_script("document.querySelector('#sheet-grid .cell[title=\"harbour.jpg\"]').focus()")
                keys(browser, Keys.SPACE)
                open_sheet(browser, "")  # the sheet stays under the preview
                wait(browser, lambda driver: driver.find_element(By.ID, "preview-image").get_property("naturalWidth") > 0)
                readable(browser, "#preview-title", f"the preview ({mode}, {width})")
                shot("preview")
                keys(browser, Keys.ESCAPE)
                click(browser, "sheet-cancel")
                assert app.outcome() == []
                sheet_gone(browser)

                asker_id = f"shade-{mode}-{width}"
                stack.register(asker_id, "Shade App", usage="To print your photos")
                asker = ask_access_in_background(stack, asker_id)
                open_sheet(browser, ".sheet.alert")
                for css in ("#overlay h2", "#overlay .reason", "#allow-full", "#deny"):
                    readable(browser, css, f"the alert ({mode}, {width})")
                shot("authorization-alert")
                click(browser, "deny")
                assert asker.outcome() == "denied"
                sheet_gone(browser)

                for name, path, texts in (("privacy", "/privacy", ("h1", ".hint", "td strong", ".access-words", "select")),
                                          ("activity", "/activity", ("h1", ".hint", ".activity td", ".raw summary"))):
                    browser.get(stack.base + path)
                    wait(browser, lambda driver: driver.execute_script("return document.readyState") == "complete")
                    for css in texts:
                        readable(browser, css, f"{name} ({mode}, {width})")
                    shot(name)
    finally:
        scheme(browser, "")
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
