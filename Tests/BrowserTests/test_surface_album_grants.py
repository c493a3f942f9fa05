"""Albums in a limited selection, as the owner gives them: "Limit Access…", the limited-library picker
and the privacy page's editor offer the library's albums beside its photos ("Family — 2 photos,
follows new ones"); the app then sees the album's photos, and one added to the album later. Its own
stack, so its albums never show in other tests' sheets."""

import os

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as visible

from conftest import SCREENSHOTS, lb, logged_in_browser, sample_stack
from test_surface import ask_access_in_background, click, open_sheet, sheet_gone, wait
from test_surface_grant_terms import privacy_row


@pytest.fixture(scope="module")
def album_stack():
    yield from sample_stack("lba-")


@pytest.fixture(scope="module")
def album_browser(album_stack):
    yield from logged_in_browser(album_stack)


def shoot(browser, name):
    browser.save_screenshot(os.path.join(SCREENSHOTS, f"{name}.png"))


def album_choice(browser, title):
    """The checkbox of the album called `title` in the open sheet, once the outline has filled the list."""
    def found(driver):
        for item in driver.find_elements(By.CSS_SELECTOR, "#overlay #album-choice li"):
            if item.text.startswith(title + " — "):
                return item
        return False
    return wait(browser, found)


def test_albums_are_offered_beside_photos_and_followed(album_stack, album_browser):
    stack, browser = album_stack, album_browser
    identifiers = {asset.file_name: asset.identifier for asset in stack.assets()}
    stack.register("albumkeeper", "Album Keeper")
    stack.register("photoframe", "Photo Frame", usage="To show your family's photos")
    with stack.directory.auth_as_owner() as connection:
        lb.OwnerSettings(connection).set_access("albumkeeper", read_write="full")
    keeper = stack.directory.photo_library("albumkeeper")
    family = keeper.create_album("Family")
    trips = keeper.create_album("Trips")
    keeper.add_to_album(family.identifier, [identifiers["harbour.jpg"], identifiers["portrait.jpg"]])
    keeper.add_to_album(trips.identifier, [identifiers["sunset.png"]])

    # "Limit Access…": an album alone is enough to confirm.
    browser.get(stack.base + "/")
    app = ask_access_in_background(stack, "photoframe")
    open_sheet(browser, ".sheet.alert")
    click(browser, "limit-access")
    choice = album_choice(browser, "Family")
    assert choice.text == "Family — 2 photos, follows new ones"
    assert album_choice(browser, "Trips").text == "Trips — 1 photo, follows new ones"
    assert not browser.find_element(By.ID, "confirm-selection").is_enabled()
    choice.find_element(By.CSS_SELECTOR, "input").click()
    shoot(browser, "40-limit-access-with-albums")
    click(browser, "confirm-selection")
    assert app.outcome() == "limited"

    with stack.directory.photo_library("photoframe") as frame:
        seen = {asset.identifier for asset in frame.fetch_assets(list(identifiers.values()))}
        assert seen == {identifiers["harbour.jpg"], identifiers["portrait.jpg"]}

        # The launch alert's "Select More Photos…": the album is ticked; the owner adds Trips.
        open_sheet(browser, ".sheet.alert[data-prompt]")
        click(browser, "select-more")
        family_box = album_choice(browser, "Family").find_element(By.CSS_SELECTOR, "input")
        assert family_box.is_selected()
        album_choice(browser, "Trips").find_element(By.CSS_SELECTOR, "input").click()
        shoot(browser, "41-limited-library-picker-with-albums")
        click(browser, "limited-done")
        sheet_gone(browser)
        assert len(frame.fetch_assets(list(identifiers.values()))) == 3

        # A photo added to Family afterwards: the frame sees it; the privacy page counts it.
        keeper.add_to_album(family.identifier, [identifiers["meadow.webp"]])
        assert [asset.identifier for asset in frame.fetch_assets([identifiers["meadow.webp"]])] == [identifiers["meadow.webp"]]

        row = privacy_row(stack, browser, "photoframe")
        grants = [node.text for node in row.find_elements(By.CSS_SELECTOR, ".album-grants")]
        assert grants == ["Family — 3 photos, follows new ones", "Trips — 1 photo, follows new ones"], grants
        assert "Photos: Limited to the albums below" in row.text, row.text
        assert "Limited to 0 photos and 2 albums" in browser.find_element(By.TAG_NAME, "main").text
        shoot(browser, "42-privacy-album-grants")

        # The privacy page's editor: both ticked; the owner stops following Trips.
        row.find_element(By.CSS_SELECTOR, '[data-app-action="select"]').click()
        trips_box = album_choice(browser, "Trips").find_element(By.CSS_SELECTOR, "input")
        assert trips_box.is_selected() and album_choice(browser, "Family").find_element(By.CSS_SELECTOR, "input").is_selected()
        assert album_choice(browser, "Family").text == "Family — 3 photos, follows new ones"
        shoot(browser, "43-privacy-edit-selection-albums")
        trips_box.click()
        click(browser, "selection-save")
        wait(browser, lambda driver: len(driver.find_elements(By.CSS_SELECTOR, 'tr[data-app="photoframe"] .album-grants')) == 1)
        with stack.directory.auth_as_owner() as connection:
            access = {app.app: app for app in lb.OwnerSettings(connection).apps()}["photoframe"]
        assert access.albums == [family.identifier]
        seen = {asset.identifier for asset in frame.fetch_assets(list(identifiers.values()))}
        assert seen == {identifiers["harbour.jpg"], identifiers["portrait.jpg"], identifiers["meadow.webp"]}
    keeper.close()
