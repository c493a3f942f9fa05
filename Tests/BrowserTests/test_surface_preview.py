"""Looking before adding: Space, a long press or a cell's zoom button opens a preview over the pick's
sheet — a photo at a size fit for the screen, a video playing its H.264 rendition streamed from the
surface with range requests, an animated GIF from its original — with Previous, Next and a select
toggle; Escape closes it and leaves the sheet. The Selected view removes and reorders what the app
will receive."""

import os

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as visible

from test_surface import SAMPLES, cell, click, log_in, open_sheet, pick_in_background, request, sample_bytes, sheet_gone, wait


def preview_open(browser):
    return wait(browser, visible.visibility_of_element_located((By.CSS_SELECTOR, "#layer .preview-sheet")))


def layer_closed(browser):
    wait(browser, lambda driver: driver.find_element(By.ID, "layer").get_attribute("hidden") is not None)


def start_pick(stack, browser, app, name, **options):
    """An app asks for a pick; its sheet opens in the browser. Returns the app's thread."""
    stack.register(app, name)
    browser.get(stack.base + "/")
    thread = pick_in_background(stack, app, **options)
    open_sheet(browser, ".sheet[data-pick]")
    return thread


def close_preview_and_cancel(browser, app):
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    layer_closed(browser)
    click(browser, "sheet-cancel")
    assert app.outcome() == []


def focus(browser, file_name):
    node = cell(browser, file_name)
    browser.execute_script("arguments[0].focus()", node)
    return node


def test_space_previews_a_photo_larger_than_its_thumbnail(stack, browser, shoot):
    app = start_pick(stack, browser, "look", "Look App", selection_limit=2, location="precise")
    focus(browser, "harbour.jpg")
    ActionChains(browser).send_keys(Keys.SPACE).perform()
    preview_open(browser)
    image = wait(browser, lambda driver: driver.find_element(By.ID, "preview-image"))
    wait(browser, lambda driver: driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image))
    thumbnail = browser.execute_script("return document.querySelector('#sheet-grid .cell[title=\"harbour.jpg\"] img').naturalWidth")
    natural = browser.execute_script("return arguments[0].naturalWidth", image)
    assert thumbnail <= 256 < natural, (thumbnail, natural)
    assert browser.find_element(By.ID, "preview-title").text.startswith("Photo, ")
    # Space did not choose it; the select toggle does, and the sheet's counter follows.
    assert browser.find_element(By.ID, "sheet-counter").text == "0 of 2"
    shoot("preview-photo")
    click(browser, "preview-select")
    assert browser.find_element(By.ID, "preview-select").get_attribute("aria-pressed") == "true"
    assert browser.find_element(By.ID, "sheet-counter").text == "1 of 2"
    # Next and Previous walk the grid's order.
    position = browser.find_element(By.ID, "preview-position").text
    click(browser, "preview-next")
    assert browser.find_element(By.ID, "preview-position").text != position
    assert browser.find_element(By.ID, "preview-select").get_attribute("aria-pressed") == "false"
    click(browser, "preview-previous")
    assert browser.find_element(By.ID, "preview-position").text == position
    # Escape closes the preview, back on the grid; the pick goes on.
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    layer_closed(browser)
    assert browser.find_element(By.ID, "overlay").get_attribute("hidden") is None
    assert browser.execute_script("return document.activeElement.title") == "harbour.jpg"
    click(browser, "location-precise")
    click(browser, "sheet-add")
    assert [data for _, data in app.outcome()] == [sample_bytes("harbour.jpg")]
    sheet_gone(browser)


def test_the_zoom_button_plays_a_video(stack, browser, shoot):
    app = start_pick(stack, browser, "watch", "Watch App", selection_limit=1)
    tile = cell(browser, "clip.mp4").find_element(By.XPATH, "..")
    ActionChains(browser).move_to_element(tile).perform()
    tile.find_element(By.CSS_SELECTOR, ".zoom").click()
    preview_open(browser)
    video = wait(browser, lambda driver: driver.find_element(By.ID, "preview-video"))
    # It plays: its clock moves on (the first request waits for the H.264 rendition).
    wait(browser, lambda driver: driver.execute_script("return arguments[0].currentTime", video) > 0, timeout=90)
    first = browser.execute_script("return arguments[0].currentTime", video)
    wait(browser, lambda driver: driver.execute_script("return arguments[0].currentTime", video) > first, timeout=30)
    assert browser.execute_script("return arguments[0].error", video) is None
    assert browser.find_element(By.ID, "preview-title").text.startswith("Video, 0:")
    shoot("preview-video")
    close_preview_and_cancel(browser, app)


def test_the_movie_is_served_in_ranges(stack):
    cookie, _ = log_in(stack)
    clip = next(asset for asset in stack.assets() if asset.file_name == "clip.mp4")
    path = "/media?part=movie&asset=" + clip.identifier
    status, headers, _ = request(stack, "GET", path, headers={"Cookie": cookie, "Range": "bytes=0-99"})
    assert status == 206 and headers["Accept-Ranges"] == "bytes" and headers["Content-Type"] == "video/mp4"
    assert headers["Content-Length"] == "100" and headers["Content-Range"].startswith("bytes 0-99/")
    total = int(headers["Content-Range"].split("/")[1])
    status, headers, _ = request(stack, "GET", path, headers={"Cookie": cookie, "Range": f"bytes={total}-"})
    assert status == 416 and headers["Content-Range"] == f"bytes */{total}"
    status, headers, _ = request(stack, "GET", path, headers={"Cookie": cookie})
    assert status == 200 and headers["Content-Length"] == str(total)
    # A still has no movie: a sentence, not a crash.
    harbour = next(asset for asset in stack.assets() if asset.file_name == "harbour.jpg")
    status, _, body = request(stack, "GET", "/media?part=movie&asset=" + harbour.identifier, headers={"Cookie": cookie})
    assert status == 400 and "no movie" in body


def test_a_long_press_previews_an_animated_gif_from_its_original(stack, browser):
    app = start_pick(stack, browser, "gif", "GIF App", selection_limit=1)
    node = cell(browser, "bounce.gif")
    ActionChains(browser).click_and_hold(node).pause(1.0).release().perform()
    preview_open(browser)
    image = wait(browser, lambda driver: driver.find_element(By.ID, "preview-image"))
    assert "part=original" in image.get_attribute("src")
    length = browser.execute_script("return fetch(arguments[0].src).then((r) => r.arrayBuffer()).then((b) => b.byteLength)", image)
    assert length == os.path.getsize(os.path.join(SAMPLES, "bounce.gif"))
    # The long press opened the preview; it did not also choose the cell.
    assert browser.find_element(By.ID, "sheet-counter").text == "0 of 1"
    close_preview_and_cancel(browser, app)


def test_the_selected_view_removes_and_reorders(stack, browser, shoot):
    app = start_pick(stack, browser, "story", "Story Review App", selection_limit=3, ordered=True, location="precise")
    assert not browser.find_element(By.ID, "sheet-selected").is_enabled()
    for name in ("sunset.png", "harbour.jpg", "portrait.jpg"):
        cell(browser, name).click()
    assert browser.find_element(By.ID, "sheet-selected").text == "Selected (3)"
    click(browser, "sheet-selected")
    view = wait(browser, visible.visibility_of_element_located((By.CSS_SELECTOR, "#layer .selected-view")))
    names = lambda: [item.get_attribute("data-asset") for item in browser.find_elements(By.CSS_SELECTOR, "#selected-list li[data-asset]")]
    identifiers = {asset.file_name: asset.identifier for asset in stack.assets()}
    assert names() == [identifiers[name] for name in ("sunset.png", "harbour.jpg", "portrait.jpg")]
    shoot("selected-view")
    # Move harbour up, then remove sunset: portrait and harbour change places in what the app gets.
    view.find_element(By.CSS_SELECTOR, f'li[data-asset="{identifiers["harbour.jpg"]}"] button[aria-label^="Move up"]').click()
    assert names() == [identifiers[name] for name in ("harbour.jpg", "sunset.png", "portrait.jpg")]
    view.find_element(By.CSS_SELECTOR, f'li[data-asset="{identifiers["sunset.png"]}"] button[aria-label^="Remove"]').click()
    assert names() == [identifiers[name] for name in ("harbour.jpg", "portrait.jpg")]
    assert browser.find_element(By.ID, "selected-title").text == "Selected (2)"
    assert browser.find_element(By.ID, "sheet-counter").text == "2 of 3"
    click(browser, "selected-done")
    layer_closed(browser)
    assert browser.find_element(By.ID, "sheet-add").text == "Add (2)"
    marks = {node.get_attribute("title"): node.find_element(By.CSS_SELECTOR, ".mark").text
             for node in browser.find_elements(By.CSS_SELECTOR, "#sheet-grid .cell.selected")}
    assert marks == {"harbour.jpg": "1", "portrait.jpg": "2"}
    click(browser, "location-precise")
    click(browser, "sheet-add")
    assert [data for _, data in app.outcome()] == [sample_bytes("harbour.jpg"), sample_bytes("portrait.jpg")]
    sheet_gone(browser)
