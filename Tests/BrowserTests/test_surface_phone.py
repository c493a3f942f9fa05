"""The surface on a phone and from the keyboard: no page wider than the screen at 1280, 390 and 360
px, the sheet a modal dialog (focus inside and trapped, Escape cancels, cells named by kind and
date in the accessibility tree), a pick completed with the keyboard alone, and the empty, error and
stale states (nothing matches, a page that fails, a reload right after Cancel, an old toast)."""

import os
import re
import signal
import tempfile
import shutil
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as visible

from conftest import SCREENSHOTS, Stack, make_browser
from test_surface import SAMPLES, AppThread, click, open_sheet, pick_in_background, sample_bytes, sheet_gone, wait

SIZES = [(1280, 800), (390, 844), (360, 740)]
KIND_AND_DATE = re.compile(r"^(Photo|Live Photo|Screenshot|Panorama|Animated (GIF|WebP|PNG|image)|Video|Slow-motion video|Time-lapse video)"
                           r"(, \d+:\d\d)?, .*\b(19|20)\d\d\b")


def emulate(browser, width, height):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def fits(browser):
    """The page is no wider than the viewport (nothing to scroll sideways)."""
    return browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")


def inside_viewport(browser, element_id):
    return browser.execute_script("""
        const box = document.getElementById(arguments[0]).getBoundingClientRect();
        return box.width > 0 && box.left >= 0 && box.top >= 0 && box.right <= innerWidth && box.bottom <= innerHeight;""", element_id)


def keys(browser, *sequence):
    ActionChains(browser).send_keys(*sequence).perform()


def active(browser, script):
    return browser.execute_script("return (function(a){ return " + script + "; })(document.activeElement)")


def test_every_page_fits_a_phone(stack, browser):
    stack.register("phone", "Postcard Maker", usage="To put your photos on postcards")
    browser.get(stack.base + "/")
    app = pick_in_background(stack, "phone", selection_limit=1)
    open_sheet(browser, ".sheet[data-pick]")
    browser.find_element(By.CSS_SELECTOR, "#sheet-grid .cell").click()
    click(browser, "sheet-add")
    app.outcome()
    sheet_gone(browser)
    asset = stack.assets()[0].identifier
    pages = {"requests": "/", "library": "/library", "privacy": "/privacy", "activity": "/activity",
             "asset": "/asset?id=" + asset, "login-refused": "/login"}
    try:
        for width, height in SIZES:
            emulate(browser, width, height)
            for name, path in pages.items():
                browser.get(stack.base + path)
                wait(browser, lambda driver: driver.execute_script("return document.readyState") == "complete")
                if name == "library":
                    wait(browser, lambda driver: int(driver.find_element(By.ID, "library-grid").get_attribute("data-loaded") or 0) >= 7)
                scroll_width, inner_width = fits(browser)
                browser.save_screenshot(os.path.join(SCREENSHOTS, f"phone-{width}-{name}.png"))
                assert scroll_width <= inner_width, f"{path} at {width} px is {scroll_width} px wide"

            # The sheet, with more than a screenful of cells asked for: Add and Cancel stay on screen.
            browser.get(stack.base + "/")
            app = pick_in_background(stack, "phone", selection_limit=3)
            open_sheet(browser, ".sheet[data-pick]")
            wait(browser, lambda driver: len(driver.find_elements(By.CSS_SELECTOR, "#sheet-grid .cell")) >= 7)
            browser.find_elements(By.CSS_SELECTOR, "#sheet-grid .cell")[0].click()
            browser.execute_script("document.querySelector('#overlay .scroll').scrollTop = 10000")
            scroll_width, inner_width = fits(browser)
            assert scroll_width <= inner_width, f"the sheet at {width} px is {scroll_width} px wide"
            assert inside_viewport(browser, "sheet-add") and inside_viewport(browser, "sheet-cancel"), f"Add or Cancel off screen at {width} px"
            assert browser.find_element(By.ID, "sheet-add").text == "Add (1)"
            browser.save_screenshot(os.path.join(SCREENSHOTS, f"phone-{width}-pick-sheet.png"))
            click(browser, "sheet-cancel")
            assert app.outcome() == []
            sheet_gone(browser)

            # An authorization alert: its three answers on screen.
            stack.register(f"asker{width}", "Postcard Maker", usage="To put your photos on postcards")
            def ask(connection, app=f"asker{width}"):
                with stack.directory.photo_library(app) as library:
                    return library.request_authorization("readWrite", timeout=60)
            asker = AppThread(stack, f"asker{width}", ask)
            asker.start()
            open_sheet(browser, ".sheet.alert")
            scroll_width, inner_width = fits(browser)
            assert scroll_width <= inner_width, f"the alert at {width} px is {scroll_width} px wide"
            assert all(inside_viewport(browser, name) for name in ("allow-full", "limit-access", "deny"))
            browser.save_screenshot(os.path.join(SCREENSHOTS, f"phone-{width}-authorization-alert.png"))
            # Limit Access… opens the grid in the same dialog, its answers on screen too.
            click(browser, "limit-access")
            wait(browser, lambda driver: len(driver.find_elements(By.CSS_SELECTOR, "#sheet-grid .cell")) >= 7)
            assert active(browser, "!!a.closest('#overlay .sheet')")
            scroll_width, inner_width = fits(browser)
            assert scroll_width <= inner_width, f"the limited grid at {width} px is {scroll_width} px wide"
            assert inside_viewport(browser, "confirm-selection") and inside_viewport(browser, "deny")
            browser.save_screenshot(os.path.join(SCREENSHOTS, f"phone-{width}-limit-access-grid.png"))
            keys(browser, Keys.ESCAPE)  # Escape answers Don't Allow
            assert asker.outcome() == "denied"
            sheet_gone(browser)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_pick_with_the_keyboard_alone(stack, browser, shoot):
    stack.register("keys", "Keyboard App")
    browser.get(stack.base + "/")
    app = pick_in_background(stack, "keys", selection_limit=2, location="precise")
    open_sheet(browser, ".sheet[data-pick]")
    wait(browser, lambda driver: len(driver.find_elements(By.CSS_SELECTOR, "#sheet-grid .cell")) >= 7)
    # Focus moved into the dialog when it opened.
    assert active(browser, "!!a.closest('#overlay .sheet')")

    # The accessibility tree: a modal dialog, a live counter, every cell named by kind and date.
    tree = browser.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    def properties(node):
        return {item["name"]: item["value"].get("value") for item in node.get("properties", [])}
    dialogs = [node for node in tree if node.get("role", {}).get("value") == "dialog" and not node.get("ignored")]
    assert dialogs and properties(dialogs[0]).get("modal") is True
    assert "Keyboard App wants up to 2" in dialogs[0]["name"]["value"]
    live = [node for node in tree if properties(node).get("live") == "polite" and "of 2" in node.get("name", {}).get("value", "")
            or properties(node).get("live") == "polite" and node.get("role", {}).get("value") == "status"]
    assert live, "the counter is not a live region"
    titles = browser.execute_script("return [...document.querySelectorAll('#sheet-grid .cell')].map((cell) => cell.title)")
    cells = [node for node in tree if node.get("role", {}).get("value") == "button" and not node.get("ignored")
             and "pressed" in properties(node)]
    assert len(cells) == len(titles) >= 7
    for node in cells:
        name = node["name"]["value"]
        assert KIND_AND_DATE.match(name), name
        assert not any(title in name for title in titles), name
    assert any(node["name"]["value"].startswith("Video, 0:") for node in cells)
    assert any(node["name"]["value"].startswith("Animated WebP") for node in cells)
    # Nothing behind the dialog is reachable: the page's header links are out of the tree.
    assert not [node for node in tree if node.get("role", {}).get("value") == "link" and not node.get("ignored")]

    # Tab reaches the grid; the arrows move; Space previews, Escape closes the preview (not the
    # sheet) and Enter chooses; past the limit the sheet says so.
    # (past the search box, the chips and the year above the grid)
    for _ in range(8):
        keys(browser, Keys.TAB)
        if active(browser, "a.classList.contains('cell')"):
            break
    assert active(browser, "a.classList.contains('cell')")
    first = active(browser, "a.title")
    keys(browser, Keys.SPACE)
    wait(browser, visible.visibility_of_element_located((By.CSS_SELECTOR, "#layer .preview-sheet")))
    assert active(browser, "!!a.closest('#layer')")
    keys(browser, Keys.ESCAPE)
    wait(browser, lambda driver: driver.find_element(By.ID, "layer").get_attribute("hidden") is not None)
    assert active(browser, "a.title") == first and browser.find_element(By.ID, "sheet-counter").text == "0 of 2"
    keys(browser, Keys.ENTER, Keys.ARROW_RIGHT)
    second = active(browser, "a.title")
    assert second != first
    keys(browser, Keys.ENTER, Keys.ARROW_RIGHT, Keys.ENTER)
    assert browser.find_element(By.ID, "sheet-counter").text == "2 of 2"
    assert browser.find_element(By.ID, "sheet-limit").text == "You can choose up to 2."
    assert browser.execute_script("return document.querySelectorAll('#sheet-grid .cell[aria-disabled=\"true\"]').length") == len(titles) - 2
    assert browser.find_element(By.ID, "sheet-grid").value_of_css_property("opacity") == "1"
    dimmed = browser.find_element(By.CSS_SELECTOR, "#sheet-grid .cell[aria-disabled='true']").value_of_css_property("opacity")
    assert float(dimmed) < 1
    keys(browser, Keys.ARROW_DOWN, Keys.ARROW_UP, Keys.HOME)
    assert active(browser, "a.title") == first
    shoot("keyboard-limit-reached")
    # Enter toggles: off, then on again.
    keys(browser, Keys.ENTER)
    assert browser.find_element(By.ID, "sheet-counter").text == "1 of 2" and browser.find_element(By.ID, "sheet-limit").text == ""
    keys(browser, Keys.ENTER)
    assert browser.find_element(By.ID, "sheet-counter").text == "2 of 2"

    # Tab cycles inside the dialog, never to the page behind.
    stops = []
    for _ in range(10):  # the sheet's controls, the location choice among them, then the grid
        keys(browser, Keys.TAB)
        assert active(browser, "!!a.closest('#overlay .sheet')"), "focus left the dialog"
        stops.append(active(browser, "a.id || a.className"))
    assert "sheet-add" in stops and "sheet-cancel" in stops and "cell" in " ".join(stops)
    for _ in range(10):
        if active(browser, "a.id") == "sheet-add":
            break
        keys(browser, Keys.TAB)
    assert browser.find_element(By.ID, "sheet-add").text == "Add (2)"
    browser.execute_script("document.getElementById('location-precise').checked = true")  # the originals, locations included
    keys(browser, Keys.ENTER)
    results = app.outcome()
    assert sorted(data for _, data in results) == sorted([sample_bytes(first), sample_bytes(second)])
    sheet_gone(browser)


def test_escape_cancels_and_old_toasts_go(stack, browser):
    stack.register("escaper", "Escape App")
    stack.register("follower", "Follower App")
    browser.get(stack.base + "/")
    app = pick_in_background(stack, "escaper")
    open_sheet(browser, ".sheet[data-pick]")
    keys(browser, Keys.ESCAPE)
    assert app.outcome() == []  # the app hears a cancellation
    sheet_gone(browser)
    wait(browser, lambda driver: "Escape App gets nothing." in driver.find_element(By.ID, "notice").text)
    # The next sheet dismisses the last answer's toast.
    other = pick_in_background(stack, "follower")
    open_sheet(browser, ".sheet[data-pick]")
    assert not browser.find_element(By.ID, "notice").is_displayed()
    keys(browser, Keys.ESCAPE)
    assert other.outcome() == []


def test_no_sheet_for_a_pick_that_ended(stack, browser):
    stack.register("stale", "Stale App")
    browser.get(stack.base + "/")
    app = pick_in_background(stack, "stale")
    sheet = open_sheet(browser, ".sheet[data-pick]")
    pick = sheet.get_attribute("data-pick")
    # Records every pick sheet the reloaded page ever shows, from before its own scripts run.
    watcher = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        window.sheetsSeen = [];
        new MutationObserver(() => {
          for (const node of document.querySelectorAll('#overlay .sheet[data-pick]')) window.sheetsSeen.push(node.dataset.pick);
        }).observe(document, { childList: true, subtree: true });"""})
    try:
        # Cancel as the sheet's button does; the moment the surface has answered, what any page would
        # load already lacks the pick, and the check a page makes before showing a sheet says so.
        state, check = browser.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const csrf = document.querySelector('meta[name="csrf-token"]').content;
            fetch('/api/picks/cancel', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
              body: JSON.stringify({ pick: arguments[0] }) })
              .then(() => Promise.all([fetch('/api/state').then((r) => r.json()),
                                       fetch('/api/picks/pending?pick=' + encodeURIComponent(arguments[0])).then((r) => r.json())]))
              .then(done);""", pick)
        assert pick not in [item["pick"] for item in state["picks"]]
        assert check == {"pending": False}
        browser.get(stack.base + "/")
        assert app.outcome() == []
        wait(browser, lambda driver: driver.execute_script("return Array.isArray(window.sheetsSeen)"))
        time.sleep(1.5)  # what a person would see of the page after the reload
        assert pick not in browser.execute_script("return window.sheetsSeen")
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": watcher["identifier"]})


def test_nothing_matches_says_what_was_asked(stack, browser, shoot):
    stack.register("screens", "Screenshot App")
    browser.get(stack.base + "/")
    app = pick_in_background(stack, "screens", filter="screenshots")
    open_sheet(browser, ".sheet[data-pick]")
    note = wait(browser, visible.visibility_of_element_located((By.CSS_SELECTOR, "#sheet-grid .empty-note")))
    assert "No photos match" in note.text
    assert "Screenshot App asked for screenshots; there are none in your library." in note.text
    shoot("sheet-nothing-matches")
    click(browser, "sheet-cancel")
    assert app.outcome() == []


def test_animated_webp_is_not_badged_gif(stack, browser):
    browser.get(stack.base + "/library")
    wait(browser, lambda driver: int(driver.find_element(By.ID, "library-grid").get_attribute("data-loaded") or 0) >= 7)
    def badges(name):
        return [node.get_attribute("textContent") for node in
                browser.find_elements(By.CSS_SELECTOR, f'#library-grid .cell[title="{name}"] .badge')]
    assert badges("spinner.webp") == ["WEBP"]
    assert badges("bounce.gif") == ["GIF"]
    assert badges("meadow.webp") == []
    assert badges("clip.mp4") and re.match(r"^\d+:\d\d$", badges("clip.mp4")[0])


def test_a_failing_page_shows_retry():
    root = tempfile.mkdtemp(prefix="lbr-", dir="/tmp")
    stack = Stack(root, [SAMPLES])
    browser = make_browser()
    try:
        browser.get(stack.login_url())
        picker = stack.processes[1]
        picker.send_signal(signal.SIGTERM)
        picker.wait(timeout=20)
        browser.get(stack.base + "/library")
        note = wait(browser, visible.visibility_of_element_located((By.CSS_SELECTOR, "#library-grid .error-note")), timeout=90)
        assert "could not be loaded" in note.text and note.get_attribute("role") == "alert"
        browser.save_screenshot(os.path.join(SCREENSHOTS, "library-error-retry.png"))
        stack.start("lightbox-picker", ["--data", stack.data, "--log-level", "warning", "--endpoint", stack.picker_endpoint,
                                        "--auth-endpoint", stack.auth_endpoint])
        # Retry until the picker is back (it may still be starting).
        def retried(driver):
            loaded = int(driver.find_element(By.ID, "library-grid").get_attribute("data-loaded") or 0)
            if loaded >= 7:
                return True
            for button in driver.find_elements(By.CSS_SELECTOR, "#library-grid .error-note .retry"):
                button.click()
            return False
        wait(browser, retried, timeout=120)
        assert not browser.find_elements(By.CSS_SELECTOR, "#library-grid .error-note")
    finally:
        browser.quit()
        stack.stop()
        shutil.rmtree(root, ignore_errors=True)
