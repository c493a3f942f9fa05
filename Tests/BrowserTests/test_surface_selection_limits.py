"""Selection limits on the pick sheet: an app asks for files up to 20 KB, at least 100 px on the
shorter side and videos up to a second; the sheet shows what misses a limit disabled, dimmed, with
the picker's reason over its thumbnail (at desktop and phone size: the screenshots
selection-limits-*.png), a click on it selects nothing and says why, a choice forged through the
surface's own API is refused with the reason, and what fits is delivered."""

import os

from selenium.webdriver.common.by import By

import lightbox as lb
from conftest import SCREENSHOTS
from test_surface import click, open_sheet, pick_in_background, sheet_gone, wait
from test_surface_phone import emulate

# Among the samples: harbour.jpg is 31,859 bytes, bounce.gif 80 × 60, spinner.webp 64 × 64, clip.mp4 2 s long.
LIMITS = lb.SelectionLimits(max_file_size=20_000, min_pixels=100, max_duration=1)
REASONS = {
    "harbour.jpg": "Too large for Postcard Maker: 31.9 KB of 20 KB",
    "bounce.gif": "Too small: 80 × 60, at least 100 px",
    "spinner.webp": "Too small: 64 × 64, at least 100 px",
    "clip.mp4": "Too long: 0:02 of 0:01",
}


def disabled_cells(browser):
    """File name → the reason the cell shows, for every disabled cell of the sheet."""
    return browser.execute_script("""
        const shown = {};
        for (const cell of document.querySelectorAll('#sheet-grid .cell.unavailable')) {
          const why = cell.querySelector('.why');
          const box = cell.getBoundingClientRect(), text = why.getBoundingClientRect();
          // The reason is on the cell, readable: inside it and not empty.
          const inside = text.width > 0 && text.left >= box.left && text.right <= box.right && text.top >= box.top && text.bottom <= box.bottom;
          shown[cell.title.split(' — ')[0]] = { reason: why.textContent, inside, disabled: cell.getAttribute('aria-disabled'),
                                                label: cell.getAttribute('aria-label') };
        }
        return shown;""")


def test_limits_disable_what_misses_them_with_the_reason(stack, browser):
    stack.register("postcard", "Postcard Maker")
    browser.get(stack.base + "/")
    app = pick_in_background(stack, "postcard", selection_limit=0, limits=LIMITS)
    open_sheet(browser, ".sheet[data-pick]")
    wait(browser, lambda driver: int(driver.find_element(By.ID, "sheet-grid").get_attribute("data-loaded") or 0) >= 7)
    assert browser.find_element(By.ID, "sheet-limits").text == \
        "Postcard Maker takes files up to 20 KB, at least 100 px on the shorter side, videos up to 0:01"
    try:
        for width, height in [(1280, 800), (390, 844)]:
            emulate(browser, width, height)
            wait(browser, lambda driver: len(disabled_cells(driver)) == len(REASONS))
            shown = disabled_cells(browser)
            assert {name: cell["reason"] for name, cell in shown.items()} == REASONS
            for name, cell in shown.items():
                assert cell["inside"], f"{name}'s reason at {width} px: {cell}"
                assert cell["disabled"] == "true" and cell["label"].endswith(REASONS[name])
            browser.save_screenshot(os.path.join(SCREENSHOTS, f"selection-limits-{width}.png"))
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # A click on a disabled cell selects nothing and says why.
    harbour = browser.find_element(By.CSS_SELECTOR, '#sheet-grid .cell.unavailable[title^="harbour.jpg"]')
    harbour.click()
    assert harbour.get_attribute("aria-pressed") == "false"
    assert not browser.find_element(By.ID, "sheet-add").is_enabled()
    wait(browser, lambda driver: driver.find_element(By.ID, "notice").text == REASONS["harbour.jpg"])

    # A choice forged through the surface's API is refused by the picker, with the reason.
    pick = browser.find_element(By.CSS_SELECTOR, "#overlay .sheet[data-pick]").get_attribute("data-pick")
    identifier = harbour.get_attribute("data-asset")
    status, answer = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const csrf = document.querySelector('meta[name="csrf-token"]').content;
        fetch('/api/picks/choose', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
          body: JSON.stringify({ pick: arguments[0], assets: [arguments[1]] }) })
          .then((response) => response.json().then((body) => done([response.status, body])));""", pick, identifier)
    assert status == 400
    assert answer["message"].startswith("harbour.jpg cannot be chosen for this pick: " + REASONS["harbour.jpg"]), answer

    # What fits is chosen and delivered.
    browser.find_element(By.CSS_SELECTOR, '#sheet-grid .cell[title="sunset.png"]').click()
    click(browser, "sheet-add")
    results = app.outcome()
    sheet_gone(browser)
    assert [result.item_provider.suggested_name for result, _ in results] == ["sunset"]
