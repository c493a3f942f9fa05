"""Location by consent on the owner's surface: the pick sheet asks "Journal asks for where these
were taken: Approximate · None" (None chosen until the owner chooses more), the authorization alert
asks it with access, and the Privacy page shows and changes it. What the app then receives is read
back with exiftool."""

import json
import subprocess

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import lb
from test_surface import AppThread, cell, click, open_sheet, pick_in_background, sheet_gone, wait
from test_surface_grant_terms import privacy_row, row_saying


def gps_of(data, tmp_path, name):
    path = tmp_path / name
    path.write_bytes(data)
    output = subprocess.run(["exiftool", "-j", "-n", "-a", "-G1", str(path)], capture_output=True, text=True, check=True).stdout
    return {key: value for key, value in json.loads(output)[0].items() if "GPS" in key or "Location" in key}


def test_the_sheet_asks_and_the_owners_choice_is_delivered(stack, browser, shoot, tmp_path):
    stack.register("journal", "Journal")
    browser.get(stack.base + "/")
    app = pick_in_background(stack, "journal", location="approximate")
    sheet = open_sheet(browser, ".sheet[data-pick]")
    choice = sheet.find_element(By.ID, "location-choice")
    assert "Journal asks for where these were taken:" in choice.text
    options = [node.get_attribute("value") for node in choice.find_elements(By.CSS_SELECTOR, "input[name=location]")]
    assert options == ["approximate", "none"], "never more than the app asked"
    assert browser.find_element(By.ID, "location-none").is_selected(), "consent is given, not assumed"
    cell(browser, "harbour.jpg").click()
    click(browser, "location-approximate")
    shoot("30-pick-sheet-location")
    click(browser, "sheet-add")
    (_, data), = app.outcome()
    fields = gps_of(data, tmp_path, "approximate.jpg")
    assert (fields["GPS:GPSLatitude"], fields["GPS:GPSLongitude"]) == (59.9, 10.8)
    assert "GPS:GPSAltitude" not in fields
    sheet_gone(browser)

    # Left at None, and with "Remove location", the app gets no location at all.
    for remove in (False, True):
        app = pick_in_background(stack, "journal", location="precise")
        open_sheet(browser, ".sheet[data-pick]")
        cell(browser, "harbour.jpg").click()
        if remove:
            click(browser, "remove-location")
            assert not browser.find_element(By.ID, "location-precise").is_enabled()
        click(browser, "sheet-add")
        (_, data), = app.outcome()
        assert gps_of(data, tmp_path, "none.jpg") == {}
        sheet_gone(browser)


def test_the_alert_asks_with_access_and_the_privacy_page_changes_it(stack, browser, shoot):
    stack.register("atlas", "Atlas", usage="To show where you have been")
    browser.get(stack.base + "/")

    def ask(connection):
        with stack.directory.photo_library("atlas") as library:
            reply = library.request_access("readWrite", location="precise", timeout=60)
            return reply.status, reply.location
    app = AppThread(stack, "atlas", ask)
    app.start()
    alert = open_sheet(browser, ".sheet.alert")
    assert "Atlas also asks for where your photos were taken:" in alert.text
    assert browser.find_element(By.ID, "location-none").is_selected()
    click(browser, "location-precise")
    shoot("31-authorization-alert-location")
    click(browser, "allow-full")
    assert app.outcome() == ("authorized", "precise")
    sheet_gone(browser)

    row = privacy_row(stack, browser, "atlas")
    assert "Location: precise" in row.find_element(By.CSS_SELECTOR, ".access-words").text
    select = Select(row.find_element(By.CSS_SELECTOR, 'select[data-setting="location"]'))
    assert [option.get_attribute("value") for option in select.options] == ["precise", "approximate", "none"]
    select.select_by_value("approximate")
    row = row_saying(browser, "atlas", r"Location: approximate")
    shoot("32-privacy-location")
    with stack.directory.photo_library("atlas") as library:
        assert library.request_access("readWrite", location="precise").location == "approximate"
    with stack.directory.auth_as_owner() as connection:
        entries = [(entry.operation, entry.outcome) for entry in lb.OwnerSettings(connection).audit(app="atlas")]
    assert ("location:prompt", "precise") in entries and ("location:settings", "approximate") in entries
