"""The owner's asset page for an asset an app edited: "Edited by Darkroom", the current version's
thumbnail, and "Revert to original", which brings the original back. Real services and surface,
headless Chromium, on a stack of its own (the asset the app adds would otherwise show in the other
tests' sheets)."""

import os
import subprocess
import urllib.parse

import pytest
from selenium.webdriver.common.by import By

from conftest import REPO, SCREENSHOTS, lb, logged_in_browser, sample_stack
from test_surface import wait

SAMPLES = os.path.join(REPO, "Samples", "library")


def shape(driver):
    """Whether the asset page's preview has loaded, and as what: square or wide."""
    preview = driver.find_element(By.CSS_SELECTOR, "img.preview")
    width, height = (int(preview.get_attribute(name) or 0) for name in ("naturalWidth", "naturalHeight"))
    if not width or not height:
        return None
    return "square" if width == height else "wide" if width > height else "tall"


@pytest.fixture(scope="module")
def stack():
    yield from sample_stack("lbe-")


@pytest.fixture(scope="module")
def browser(stack):
    yield from logged_in_browser(stack)


def test_the_owner_sees_who_edited_and_reverts(stack, browser, tmp_path):
    def shoot(name):
        browser.save_screenshot(os.path.join(SCREENSHOTS, f"{name}.png"))

    stack.register("darkroom", "Darkroom", usage="To edit your photos")
    with stack.directory.auth_as_owner() as connection:
        lb.OwnerSettings(connection).set_access("darkroom", read_write="full")
    cropped = tmp_path / "cropped.jpg"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", os.path.join(SAMPLES, "harbour.jpg"), "-vf", "crop=320:320:0:0",
                    str(cropped)], check=True)
    with open(os.path.join(SAMPLES, "harbour.jpg"), "rb") as handle:
        original = handle.read()
    from lightbox.editing import AdjustmentData
    with stack.directory.picker_as_app("darkroom") as connection:
        library = lb.PhotoLibrary(None, connection)
        asset = library.create_asset(original, "edited-harbour.jpg")
        library.edit(asset, AdjustmentData("com.example.darkroom", "1.0", b"{}"), cropped.read_bytes())

    browser.get(stack.base + "/asset?id=" + urllib.parse.quote(asset, safe=""))
    edited = wait(browser, lambda driver: driver.find_element(By.CSS_SELECTOR, "p.edited"))
    assert "Edited by Darkroom" in edited.text and "320 × 320" in edited.text
    # The thumbnail is of the square edit, not of the 4:3 original.
    wait(browser, lambda driver: shape(driver) == "square")
    shoot("44-edited-asset")

    edited.find_element(By.CSS_SELECTOR, 'button[data-asset-action="revert"]').click()
    wait(browser, lambda driver: not driver.find_elements(By.CSS_SELECTOR, "p.edited"))
    wait(browser, lambda driver: shape(driver) == "wide")
    shoot("45-reverted-asset")
    with stack.directory.picker_as_app("darkroom") as connection:
        assert lb.PhotoLibrary(None, connection).editing_input(asset) is None
