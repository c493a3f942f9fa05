"""The surface in Simplified Chinese: a browser that asks for zh-CN (Accept-Language) gets the pick
sheet, the authorization alert, Privacy and Activity with no English left but names (apps, files,
formats), dates in Chinese through Intl, and the alert in iOS's Chinese wording. Every sentence the
surface's sources ask to translate is in the Chinese table."""

import json
import os
import re
import shutil

import pytest
from selenium.webdriver.common.by import By

from conftest import REPO, SCREENSHOTS
from test_surface_dark import scheme
from test_surface_phone import emulate
from test_surface import ask_access_in_background, click, open_sheet, pick_in_background, sheet_gone, wait

SURFACE = os.path.join(REPO, "Services", "Surface")
# Words that stay as they are in any language: names and formats.
NAMES = {"Lightbox", "Postcard", "Maker", "GIF", "WEBP", "WebP", "PNG", "LIVE", "KB", "MB", "zhpost", "zhask"}
# How the sources ask for a sentence in the page's language (Swift `strings(…)`, JS `t(…)`).
CALLS = [r'\b(?:t|strings|word)\(\s*"([^"]*)"', r'\b(?:t|strings)\([^()"]*\?\s*"([^"]*)"\s*:\s*"([^"]*)"',
         r'\b(?:one|many): "([^"]*)"', r'\bword\("[^"]*", "([^"]*)"\)']
# Looked up from data rather than a literal call: the Privacy page's choices, the script's access
# words and an asset's detail labels.
INDIRECT = {"Full Access", "Limited Access", "Allowed", "Requests", "Library", "Privacy", "Activity",
            "full access", "limited", "none", "restricted", "not asked yet",
            "File", "Type", "Kind", "Size", "Duration", "Subtypes", "Camera", "Location", "Stored", "Created", "Imported"}


def chinese():
    with open(os.path.join(SURFACE, "Strings", "zh-CN.json"), encoding="utf-8") as handle:
        return json.load(handle)


def test_every_sentence_has_its_chinese():
    asked = set(INDIRECT)
    for folder, _, files in os.walk(SURFACE):
        for name in files:
            if name.endswith((".swift", ".js")):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    text = handle.read()
                for pattern in CALLS:
                    for match in re.finditer(pattern, text):
                        asked.update(group for group in match.groups() if group)
    table = chinese()
    assert sorted(asked - set(table)) == []
    for english, translated in table.items():
        assert set(re.findall(r"\{\w+\}", english)) == set(re.findall(r"\{\w+\}", translated)), english


@pytest.fixture(scope="module")
def chinese_browser(stack):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900", "--lang=zh-CN"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": "zh-CN,zh"})
    driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.get(stack.login_url())
    yield driver
    driver.quit()


def english_left(browser):
    text = browser.execute_script("return document.body.innerText")
    # The apps' names and ids as the pages show them (other tests register apps with English names).
    names = " ".join(browser.execute_script(
        "return [...document.querySelectorAll('td strong, td code, span[title], option')].map((node) => node.textContent)"))
    allowed = NAMES | set(re.findall(r"[A-Za-z][A-Za-z'’-]+", names))
    return sorted({word for word in re.findall(r"[A-Za-z][A-Za-z'’-]+", text) if word not in allowed})


def test_sheet_alert_privacy_and_activity_in_chinese(stack, chinese_browser):
    browser = chinese_browser
    stack.register("zhpost", "Postcard Maker", usage="用你的照片制作明信片")
    browser.get(stack.base + "/")
    assert browser.execute_script("return document.documentElement.lang") == "zh-CN"
    assert browser.execute_script("return navigator.language").startswith("zh")

    app = pick_in_background(stack, "zhpost", selection_limit=2, ordered=True)
    sheet = open_sheet(browser, ".sheet[data-pick]")
    wait(browser, lambda driver: len(driver.find_elements(By.CSS_SELECTOR, "#sheet-grid .cell")) >= 7)
    browser.find_element(By.CSS_SELECTOR, '#sheet-grid .cell[title="harbour.jpg"]').click()
    assert sheet.find_element(By.TAG_NAME, "h2").text == "“Postcard Maker”想要最多 2 个照片或视频，按顺序"
    assert browser.find_element(By.ID, "sheet-counter").text == "1/2"
    assert browser.find_element(By.ID, "sheet-add").text == "添加（1）"
    # Cells are named in Chinese, their dates by Intl in zh-CN ("2024年6月1日 12:30").
    label = browser.find_element(By.CSS_SELECTOR, '#sheet-grid .cell[title="harbour.jpg"]').get_attribute("aria-label")
    assert label.startswith("照片，2024年6月1日"), label
    assert english_left(browser) == []
    browser.save_screenshot(os.path.join(SCREENSHOTS, "zh-1280-pick-sheet.png"))
    click(browser, "sheet-cancel")
    assert app.outcome() == []
    sheet_gone(browser)

    stack.register("zhask", "Postcard Maker", usage="用你的照片制作明信片")
    asker = ask_access_in_background(stack, "zhask")
    alert = open_sheet(browser, ".sheet.alert")
    assert alert.find_element(By.TAG_NAME, "h2").text == "“Postcard Maker”想访问你的照片"
    assert [browser.find_element(By.ID, name).text for name in ("allow-full", "limit-access", "deny")] == ["允许完全访问", "限制访问…", "不允许"]
    assert english_left(browser) == []
    browser.save_screenshot(os.path.join(SCREENSHOTS, "zh-1280-authorization-alert.png"))
    click(browser, "deny")
    assert asker.outcome() == "denied"
    sheet_gone(browser)

    for name, path in (("privacy", "/privacy"), ("activity", "/activity")):
        browser.get(stack.base + path)
        wait(browser, lambda driver: driver.execute_script("return document.readyState") == "complete")
        assert english_left(browser) == [], name
        browser.save_screenshot(os.path.join(SCREENSHOTS, f"zh-1280-{name}.png"))
    # The activity's times are written by Intl in Chinese.
    assert "年" in browser.find_element(By.CSS_SELECTOR, ".activity time").text

    # The library, and an asset's labels and actions (its values are the file's own data).
    browser.get(stack.base + "/library")
    wait(browser, lambda driver: int(driver.find_element(By.ID, "library-grid").get_attribute("data-loaded") or 0) >= 7)
    assert english_left(browser) == []
    harbour = next(asset for asset in stack.assets() if asset.file_name == "harbour.jpg")
    browser.get(stack.base + "/asset?id=" + harbour.identifier)
    labels = " ".join(node.text for node in browser.find_elements(By.CSS_SELECTOR, ".facts th, main button, main p a"))
    assert not re.findall(r"[A-Za-z]{2,}", labels), labels
    browser.save_screenshot(os.path.join(SCREENSHOTS, "zh-1280-asset.png"))

    # At a phone's width, light and dark.
    try:
        emulate(browser, 390, 844)
        for mode in ("light", "dark"):
            scheme(browser, mode)
            for name, path in (("privacy", "/privacy"), ("activity", "/activity"), ("library", "/library")):
                browser.get(stack.base + path)
                wait(browser, lambda driver: driver.execute_script("return document.readyState") == "complete")
                assert english_left(browser) == [], (name, mode)
                browser.save_screenshot(os.path.join(SCREENSHOTS, f"zh-390-{mode}-{name}.png"))
    finally:
        scheme(browser, "")
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
