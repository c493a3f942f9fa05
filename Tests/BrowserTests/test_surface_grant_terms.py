"""Grants that end, as the owner gives them: the authorization alert and the privacy page offer
"for one hour", "until tomorrow", "for one week" beside "until I change it"; the page then says
until when, in the browser's own time."""

import datetime
import re

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as visible
from selenium.webdriver.support.ui import Select

from test_surface import ask_access_in_background, click, open_sheet, sheet_gone, wait
from test_surface_phone import emulate, fits


def privacy_row(stack, browser, app):
    browser.get(stack.base + "/privacy")
    return wait(browser, visible.visibility_of_element_located((By.CSS_SELECTOR, f'tr[data-app="{app}"]')))


def row_saying(browser, app, pattern):
    """The app's row once its access words match `pattern` (the page reloads itself after a change)."""
    def matching(driver):
        try:
            row = driver.find_element(By.CSS_SELECTOR, f'tr[data-app="{app}"]')
            return row if re.search(pattern, row.find_element(By.CSS_SELECTOR, ".access-words").text) else False
        except (NoSuchElementException, StaleElementReferenceException):
            return False
    return wait(browser, matching)


def test_a_grant_for_one_hour_from_the_alert_and_until_tomorrow_from_the_privacy_page(stack, browser, shoot):
    stack.register("visitor", "Visiting App", usage="To show your photos for an evening")
    browser.get(stack.base + "/")
    app = ask_access_in_background(stack, "visitor")
    alert = open_sheet(browser, ".sheet.alert")
    term = Select(alert.find_element(By.ID, "grant-term"))
    assert [option.text for option in term.options] == ["Until I change it", "For one hour", "Until tomorrow", "For one week"]
    assert term.first_selected_option.text == "Until I change it"
    term.select_by_value("oneHour")
    shoot("20-authorization-alert-with-a-term")
    click(browser, "allow-full")
    assert app.outcome() == "authorized"
    sheet_gone(browser)

    row = privacy_row(stack, browser, "visitor")
    words = row.find_element(By.CSS_SELECTOR, ".access-words").text
    assert re.search(r"Photos: Full access until .+, then asked again", words), words
    # The end is shown in the browser's time, an hour from now (the page rewrote the UTC text).
    shown = row.find_element(By.CSS_SELECTOR, ".access-words time")
    end = datetime.datetime.fromisoformat(shown.get_attribute("datetime").replace("Z", "+00:00"))
    assert abs((end - datetime.datetime.now(datetime.timezone.utc)).total_seconds() - 3600) < 300
    assert "UTC" not in shown.text

    # On the privacy page: until tomorrow, for the add-only level.
    Select(row.find_element(By.CSS_SELECTOR, "select[data-term]")).select_by_value("untilTomorrow")
    Select(row.find_element(By.CSS_SELECTOR, 'select[data-setting="addOnly"]')).select_by_value("allow")
    row = row_saying(browser, "visitor", r"Add only: full access until .+, then asked again")
    ends = [datetime.datetime.fromisoformat(node.get_attribute("datetime").replace("Z", "+00:00"))
            for node in row.find_elements(By.CSS_SELECTOR, ".access-words time")]
    tomorrow = browser.execute_script("const end = new Date(); end.setHours(24, 0, 0, 0); return end.toISOString();")
    assert ends[-1] == datetime.datetime.fromisoformat(tomorrow.replace("Z", "+00:00")).replace(microsecond=0)
    width, viewport = fits(browser)
    assert width <= viewport, (width, viewport)
    shoot("21-privacy-grant-terms")
    # On a phone the row stacks, the choice labelled, nothing wider than the screen.
    emulate(browser, 390, 844)
    try:
        row = privacy_row(stack, browser, "visitor")
        assert row.find_element(By.CSS_SELECTOR, "td[data-label=\"Access lasts\"] select[data-term]").is_displayed()
        width, viewport = fits(browser)
        assert width <= viewport, (width, viewport)
        shoot("22-privacy-grant-terms-phone")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    row = privacy_row(stack, browser, "visitor")

    # Denying takes no term; the row says nothing of an end for that level any more.
    Select(row.find_element(By.CSS_SELECTOR, 'select[data-setting="readWrite"]')).select_by_value("none")
    row_saying(browser, "visitor", r"Photos: None · Add only: full access until")
