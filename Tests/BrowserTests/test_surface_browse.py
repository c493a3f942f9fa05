"""Browsing a large library in the pick sheet, at 1280×800 and 390×844, light and dark: a sticky
header per month and per day, search by place (named at import from each photo's GPS position,
offline, from the GeoNames table `make deps` installs) and by date in English and Chinese forms,
the chips, jump to year, the empty filter's message, and a selection kept while browsing; and a
picker without its place table still serving, saying so in its log and in the sheet.

The library is made here: Samples/library/harbour.jpg rewritten by exiftool with other GPS
positions and dates, and the sample movie."""

import os
import shutil
import subprocess
import tempfile

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from conftest import SCREENSHOTS, Stack, make_browser
from test_surface import SAMPLES, click, open_sheet, pick_in_background, sheet_gone, wait
from test_surface_dark import scheme
from test_surface_phone import emulate

# name, GPS position (or none), EXIF capture time (UTC: the browser runs in UTC here)
PHOTOS = [
    ("lisbon-2022.jpg", (38.7075, -9.1364), "2022:03:05 10:00:00"),
    ("lisbon-2024.jpg", (38.7139, -9.1334), "2024:03:10 18:30:00"),
    ("oslo-2024.jpg", (59.9139, 10.7522), "2024:06:02 08:00:00"),
    ("nowhere-2023.jpg", None, "2023:08:08 09:00:00"),
]
# Newest first, as the sheet shows them; clip.mp4 was made 2024-05-01.
EVERYTHING = ["oslo-2024.jpg", "clip.mp4", "lisbon-2024.jpg", "nowhere-2023.jpg", "lisbon-2022.jpg"]


def make_library(folder):
    os.makedirs(folder)
    for name, position, taken in PHOTOS:
        arguments = ["exiftool", "-q", "-o", os.path.join(folder, name), f"-DateTimeOriginal={taken}", "-gps:all="]
        if position:
            latitude, longitude = position
            arguments += [f"-GPSLatitude={abs(latitude)}", f"-GPSLatitudeRef={'N' if latitude >= 0 else 'S'}",
                          f"-GPSLongitude={abs(longitude)}", f"-GPSLongitudeRef={'E' if longitude >= 0 else 'W'}"]
        subprocess.run(arguments + [os.path.join(SAMPLES, "harbour.jpg")], check=True)
    shutil.copy(os.path.join(SAMPLES, "clip.mp4"), folder)


def logged_in(stack):
    os.makedirs(SCREENSHOTS, exist_ok=True)
    driver = make_browser()
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "UTC"})
    driver.get(stack.login_url())
    return driver


@pytest.fixture(scope="module")
def places():
    root = tempfile.mkdtemp(prefix="lbb-", dir="/tmp")
    make_library(os.path.join(root, "library"))
    running = Stack(root, [os.path.join(root, "library")])
    driver = logged_in(running)
    yield running, driver
    driver.quit()
    running.stop()
    shutil.rmtree(root, ignore_errors=True)


def titles(browser):
    return browser.execute_script("return [...document.querySelectorAll('#sheet-grid .cell')].map((cell) => cell.title)")


def shows(browser, expected):
    """Waits until the grid shows exactly `expected`, in order, and has loaded its last page."""
    wait(browser, lambda driver: titles(driver) == expected and driver.find_element(By.ID, "sheet-grid").get_attribute("data-loaded") == str(len(expected)))
    return expected


def search(browser, text):
    box = browser.find_element(By.ID, "sheet-search")
    box.clear()
    box.send_keys(text + Keys.ENTER)


def chip(browser, name):
    browser.find_element(By.CSS_SELECTOR, f'.chips .chip[data-filter="{name}"]').click()


def jump(browser, year):
    """Chooses a year in the "Jump to year" menu (on a phone it may sit past the chips' scroll)."""
    browser.execute_script("const menu = document.getElementById('sheet-year'); menu.value = arguments[0];"
                           " menu.dispatchEvent(new Event('change'))", year)


def sections(browser, kind):
    return browser.execute_script(f"return [...document.querySelectorAll('#sheet-grid .section.{kind}')].map((node) => node.textContent)")


@pytest.mark.parametrize("width,height,colors", [(1280, 800, "light"), (390, 844, "dark")])
def test_sections_search_chips_and_years(places, width, height, colors):
    stack, browser = places
    size = "desktop" if width > 600 else "phone"
    emulate(browser, width, height)
    scheme(browser, colors)
    app = f"browse{width}"
    stack.register(app, "Postcard Maker")
    browser.get(stack.base + "/")
    picking = pick_in_background(stack, app, selection_limit=2, location="precise")
    open_sheet(browser, ".sheet[data-pick]")
    shows(browser, EVERYTHING)
    assert browser.find_element(By.ID, "place-note").get_attribute("hidden") is not None, "the picker has no place table"

    # A sticky header per month and per day, newest first, in the browser's language and zone.
    assert sections(browser, "month") == ["June 2024", "May 2024", "March 2024", "August 2023", "March 2022"]
    assert sections(browser, "day") == ["Sunday, June 2", "Wednesday, May 1", "Sunday, March 10", "Tuesday, August 8", "Saturday, March 5"]
    header = browser.find_element(By.CSS_SELECTOR, "#sheet-grid .section.month")
    assert header.value_of_css_property("position") == "sticky"
    browser.save_screenshot(os.path.join(SCREENSHOTS, f"browse-sections-{size}-{colors}.png"))

    # Search by place: the city named at import from the GPS position, no network.
    search(browser, "Lisbon")
    shows(browser, ["lisbon-2024.jpg", "lisbon-2022.jpg"])
    browser.save_screenshot(os.path.join(SCREENSHOTS, f"browse-search-lisbon-{size}-{colors}.png"))
    search(browser, "Portugal")
    shows(browser, ["lisbon-2024.jpg", "lisbon-2022.jpg"])
    # By year, month, in English and Chinese forms, and place and year together.
    search(browser, "2024")
    shows(browser, ["oslo-2024.jpg", "clip.mp4", "lisbon-2024.jpg"])
    search(browser, "March 2024")
    shows(browser, ["lisbon-2024.jpg"])
    # A selection made in a search stays when the search changes.
    browser.find_element(By.CSS_SELECTOR, '#sheet-grid .cell[title="lisbon-2024.jpg"]').click()
    assert browser.find_element(By.ID, "sheet-counter").text == "1 of 2"
    search(browser, "2024年3月")
    shows(browser, ["lisbon-2024.jpg"])
    search(browser, "oslo 2024")
    shows(browser, ["oslo-2024.jpg"])

    # Nothing matches: the sheet says what was asked for.
    search(browser, "Reykjavik")
    wait(browser, lambda driver: driver.find_element(By.ID, "sheet-grid").get_attribute("data-empty") == "true")
    note = browser.find_element(By.CSS_SELECTOR, "#sheet-grid .empty-note")
    assert "No photos match “Reykjavik”" in note.text, note.text
    browser.save_screenshot(os.path.join(SCREENSHOTS, f"browse-nothing-matches-{size}-{colors}.png"))
    search(browser, "")
    shows(browser, EVERYTHING)
    assert browser.find_element(By.ID, "sheet-counter").text == "1 of 2"

    # The chips, and an empty chip's words.
    chip(browser, "videos")
    shows(browser, ["clip.mp4"])
    chip(browser, "images")
    shows(browser, [name for name in EVERYTHING if name.endswith(".jpg")])
    chip(browser, "screenshots")
    wait(browser, lambda driver: driver.find_element(By.ID, "sheet-grid").get_attribute("data-empty") == "true")
    assert "No photos match Screenshots" in browser.find_element(By.CSS_SELECTOR, "#sheet-grid .empty-note").text
    chip(browser, "")
    shows(browser, EVERYTHING)

    # Jump to year: the grid starts at that year's end and goes on into older ones.
    years = Select(browser.find_element(By.ID, "sheet-year"))
    assert [option.text for option in years.options][1:] == ["2024", "2023", "2022"]
    jump(browser, "2023")
    shows(browser, ["nowhere-2023.jpg", "lisbon-2022.jpg"])
    browser.save_screenshot(os.path.join(SCREENSHOTS, f"browse-year-2023-{size}-{colors}.png"))
    jump(browser, "")
    shows(browser, EVERYTHING)

    click(browser, "location-precise")  # the original, its GPS position included
    click(browser, "sheet-add")
    results = picking.outcome()
    with open(os.path.join(stack.root, "library", "lisbon-2024.jpg"), "rb") as handle:
        assert [data for _, data in results] == [handle.read()]
    sheet_gone(browser)
    scheme(browser, "light")


def test_without_the_place_table_the_picker_serves_and_says_so(monkeypatch):
    root = tempfile.mkdtemp(prefix="lbn-", dir="/tmp")
    make_library(os.path.join(root, "library"))
    monkeypatch.setenv("LIGHTBOX_PLACES", os.path.join(root, "no-such-table.tsv"))
    stack = Stack(root, [os.path.join(root, "library")])
    browser = logged_in(stack)
    try:
        stack.register("noplaces", "Postcard Maker")
        browser.get(stack.base + "/")
        picking = pick_in_background(stack, "noplaces", selection_limit=1)
        open_sheet(browser, ".sheet[data-pick]")
        shows(browser, EVERYTHING)
        note = browser.find_element(By.ID, "place-note")
        wait(browser, lambda driver: note.is_displayed())
        assert note.text == "Place search is off: no place table is installed."
        # Dates still work; "Lisbon" now only finds file names.
        search(browser, "2022")
        shows(browser, ["lisbon-2022.jpg"])
        search(browser, "Portugal")
        wait(browser, lambda driver: driver.find_element(By.ID, "sheet-grid").get_attribute("data-empty") == "true")
        browser.save_screenshot(os.path.join(SCREENSHOTS, "browse-no-place-table-desktop-light.png"))
        click(browser, "sheet-cancel")
        assert picking.outcome() == []
        with open(os.path.join(root, "lightbox-picker.log"), errors="replace") as handle:
            log = handle.read()
        assert "place search is off" in log and "no-such-table.tsv" in log, log[-2000:]
    finally:
        browser.quit()
        stack.stop()
        shutil.rmtree(root, ignore_errors=True)
