"""A launch is one process of the app, the privacy report in sentences, and the pages in Chinese
with no English left: a limited app's "Select More Photos…" alert shows once per launch (two
connections of one scripted Python process give one alert, a second process another); the Privacy
page says "Postcard Maker opened 3 picks and received 4 photos this week" for an app that did,
with thumbnails of what it read, its access in words, its last access and a timeline by day, the
raw trail one click away; and under Accept-Language zh-CN the sheet, the alerts, Privacy, Activity
and the login refusal have no Latin word in any text node but names (apps, files, formats)."""

import os
import re
import subprocess
import sys
import time

import pytest
from selenium.webdriver.common.by import By

from conftest import SCREENSHOTS, lb
from test_surface import click, open_sheet, pick_in_background, request, sheet_gone, wait
from test_surface_chinese import chinese_browser  # noqa: F401 (a fixture)
from test_surface_dark import scheme
from test_surface_phone import emulate, fits

# An app's process: two pairs of connections one after the other (each reads the library once and
# prints what it saw), the second when the test says so on stdin.
APP_PROCESS = """
import sys
import lightbox as lb
data, auth, picker, app = sys.argv[1:5]
directory = lb.ServiceDirectory(data, auth, picker)
for _ in range(2):
    library = directory.photo_library(app)
    print(len(library.fetch_assets(sys.argv[5:])), flush=True)
    sys.stdin.readline()
"""

# Every text a person meets on the page: text nodes (but code, scripts and the raw trail of codes),
# and the labels, placeholders and alternative texts read out; and the names on the page (apps'
# names, files' names in titles), which stay as they are in any language.
TEXTS = """
const texts = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode;
  if (!node.parentElement.closest('code, script, style, details.raw')) texts.push(node.textContent);
}
for (const element of document.body.querySelectorAll('[aria-label], [placeholder], [alt]')) {
  for (const name of ['aria-label', 'placeholder', 'alt']) if (element.getAttribute(name)) texts.push(element.getAttribute(name));
}
const names = [...document.querySelectorAll('.report h3, td strong, span[title], select[name=app] option')].map((node) => node.textContent)
  .concat([...document.querySelectorAll('[title]')].map((node) => node.getAttribute('title')));
return [texts, names];
"""
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
# Formats and the product's name, which no language translates (acronyms such as GIF, KB, UTC pass too).
KEPT = {"Lightbox", "WebP"}


def latin_words(browser, names=()):
    texts, found = browser.execute_script(TEXTS)
    allowed = KEPT | set(WORD.findall(" ".join(list(found) + list(names))))
    return sorted({word for word in WORD.findall(" ".join(texts)) if word not in allowed and not word.isupper()})


def start_app(stack, app, identifiers):
    return subprocess.Popen([sys.executable, "-c", APP_PROCESS, stack.data, stack.auth_endpoint, stack.picker_endpoint, app, *identifiers],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def next_connection(process):
    process.stdin.write("\n")
    process.stdin.flush()


def end(process):
    process.kill()
    process.communicate()


def alert_title(browser):
    return open_sheet(browser, ".sheet.alert[data-prompt]").find_element(By.TAG_NAME, "h2").text


def keep(browser):
    click(browser, "keep-selection")
    sheet_gone(browser)


@pytest.fixture(scope="module")
def limited(stack):
    """Two limited apps (the second orders the test's checks), and the library's identifiers."""
    everything = [asset.identifier for asset in stack.assets()]
    stack.register("launcher", "Launch Tester", usage="To test launches")
    stack.register("barrier", "Barrier App", usage="To order the checks")
    with stack.directory.auth_as_owner() as connection:
        for app in ("launcher", "barrier"):
            lb.OwnerSettings(connection).set_access(app, read_write="limited", selection=everything[:2])
    return everything


def test_the_limited_alert_shows_once_per_launch(stack, browser, limited):
    browser.get(stack.base + "/")
    first = start_app(stack, "launcher", limited)
    try:
        # The first library access of the process: the small alert, as iOS shows at launch.
        assert first.stdout.readline().strip() == "2"
        assert alert_title(browser) == "“Launch Tester” Can See Only Some of Your Photos"
        assert browser.find_element(By.ID, "select-more").text == "Select More Photos…"
        browser.save_screenshot(os.path.join(SCREENSHOTS, "launch-1280-limited-alert.png"))
        keep(browser)

        # The same process's second pair of connections reads the library: no alert. Another app's
        # launch after it raises its own, and by then nothing waits for Launch Tester.
        next_connection(first)
        assert first.stdout.readline().strip() == "2"
        barrier = start_app(stack, "barrier", limited)
        try:
            assert barrier.stdout.readline().strip() == "2"
            assert alert_title(browser) == "“Barrier App” Can See Only Some of Your Photos"
            with stack.directory.auth_as_owner() as connection:
                waiting = [prompt.app for prompt in lb.OwnerSettings(connection).prompts()]
            assert "launcher" not in waiting and "barrier" in waiting
            keep(browser)
        finally:
            end(barrier)
    finally:
        end(first)

    # A second process is a second launch: a second alert, shown here at a phone's size.
    try:
        emulate(browser, 390, 844)
        second = start_app(stack, "launcher", limited)
        try:
            assert second.stdout.readline().strip() == "2"
            assert alert_title(browser) == "“Launch Tester” Can See Only Some of Your Photos"
            scroll_width, inner_width = fits(browser)
            assert scroll_width <= inner_width
            browser.save_screenshot(os.path.join(SCREENSHOTS, "launch-390-limited-alert.png"))
            keep(browser)
        finally:
            end(second)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.fixture(scope="module")
def reported(stack):
    """An app that opened 3 picks and received 4 photos (it loaded each), limited to 5 photos."""
    stack.register("reportcard", "Postcard Maker")
    names = {asset.file_name: asset.identifier for asset in stack.assets()}
    chosen = [["harbour.jpg", "sunset.png"], ["portrait.jpg", "meadow.webp"], None]
    with stack.directory.picker_as_owner() as connection:
        owner = lb.OwnerSurface(connection)
        for choice in chosen:
            app = pick_in_background(stack, "reportcard", selection_limit=2)
            pick = next(pick for _ in range(30) for pick in owner.pending(wait_ms=1000) if pick.app == "reportcard")
            if choice:
                owner.choose(pick.pick, [names[name] for name in choice])
            else:
                owner.cancel(pick.pick)
            assert len(app.outcome()) == (len(choice) if choice else 0)
    with stack.directory.auth_as_owner() as connection:
        lb.OwnerSettings(connection).set_access("reportcard", read_write="limited", selection=list(names.values())[:5])
    return {names[name] for choice in chosen if choice for name in choice}


def report(browser, stack, sentence):
    """The app's card, once the picker's last reads have reached the trail (it reports in batches)."""
    deadline = time.monotonic() + 30
    while True:
        browser.get(stack.base + "/privacy")
        card = wait(browser, lambda driver: driver.find_element(By.CSS_SELECTOR, 'article[data-report="reportcard"]'))
        text = card.find_element(By.CSS_SELECTOR, ".sentence").text
        if text == sentence or time.monotonic() > deadline:
            assert text == sentence
            return card
        time.sleep(0.5)


def test_the_privacy_report_speaks_in_sentences(stack, browser, reported):
    card = report(browser, stack, "Postcard Maker opened 3 picks and received 4 photos this week. It read photo or video content 4 times.")
    assert card.find_element(By.TAG_NAME, "h3").text == "Postcard Maker"
    assert card.find_element(By.CSS_SELECTOR, ".access-words").text == "Limited to 5 photos · Add only: not asked yet"
    # The last access in the browser's time zone and language (Intl), not the server's UTC.
    last = card.find_element(By.CSS_SELECTOR, ".last time")
    assert card.find_element(By.CSS_SELECTOR, ".last").text.startswith("Last access: ") and "UTC" not in last.text
    # Thumbnails of what it read, each once.
    thumbnails = card.find_elements(By.CSS_SELECTOR, ".strip.read img")
    assert {re.search(r"asset=([^&]+)", image.get_attribute("src")).group(1).replace("%2F", "/") for image in thumbnails} == reported
    wait(browser, lambda driver: all(image.get_attribute("naturalWidth") not in (None, "0") for image in thumbnails))
    # The timeline, grouped by day in the browser's time zone: today's lines under "Today".
    card.find_element(By.CSS_SELECTOR, ".timeline summary").click()
    assert wait(browser, lambda driver: card.find_element(By.CSS_SELECTOR, ".timeline .day h4")).text == "Today"
    lines = [line.text for line in card.find_elements(By.CSS_SELECTOR, ".timeline .day li")]
    assert any("Asked you to pick photos" in line for line in lines) and any("Received 2 items you picked" in line for line in lines)
    assert all(re.match(r"\d{1,2}:\d\d", line) for line in lines), lines
    for width, height, mode in ((1280, 800, "light"), (390, 844, "light"), (390, 844, "dark")):
        emulate(browser, width, height)
        scheme(browser, mode)
        browser.execute_script("arguments[0].scrollIntoView()", card)
        scroll_width, inner_width = fits(browser)
        assert scroll_width <= inner_width, f"privacy at {width} px is {scroll_width} px wide"
        browser.save_screenshot(os.path.join(SCREENSHOTS, f"report-{width}-{mode}-privacy.png"))
    scheme(browser, "")
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # The raw trail, one click away: the codes as recorded, already open.
    card.find_element(By.CSS_SELECTOR, 'a[href*="raw=1"]').click()
    raw = wait(browser, lambda driver: driver.find_element(By.CSS_SELECTOR, "details.raw[open]"))
    assert "pick:opened" in raw.text and "pick:answered" in raw.text
    # The day filter: the last days, named by Intl in the page's language (no browser date input).
    assert not browser.find_elements(By.CSS_SELECTOR, 'input[type="date"]')
    days = [option.text for option in browser.find_elements(By.CSS_SELECTOR, "select[name=day] option")]
    assert days[0] == "Any day" and len(days) == 31 and re.search(r"[A-Z][a-z]+day, [A-Z][a-z]+ \d{1,2}, 20\d\d", days[1]), days[:3]
    browser.save_screenshot(os.path.join(SCREENSHOTS, "report-1280-raw-trail.png"))


def test_the_chinese_pages_have_no_english_left(stack, chinese_browser, limited, reported):  # noqa: F811
    browser = chinese_browser
    names = ("Launch Tester", "Barrier App", "Postcard Maker")

    # Privacy: the report in Chinese, its timeline open.
    browser.get(stack.base + "/privacy")
    card = wait(browser, lambda driver: driver.find_element(By.CSS_SELECTOR, 'article[data-report="reportcard"]'))
    assert card.find_element(By.CSS_SELECTOR, ".sentence").text == "“Postcard Maker”本周发起了 3 次挑选，收到了 4 张照片。它读取了 4 次照片或视频内容。"
    assert card.find_element(By.CSS_SELECTOR, ".access-words").text == "仅限 5 张照片 · 仅添加：尚未询问"
    card.find_element(By.CSS_SELECTOR, ".timeline summary").click()
    assert wait(browser, lambda driver: card.find_element(By.CSS_SELECTOR, ".timeline .day h4")).text == "今天"
    browser.execute_script("arguments[0].scrollIntoView()", card)
    assert latin_words(browser) == []
    browser.save_screenshot(os.path.join(SCREENSHOTS, "zh-1280-report-privacy.png"))
    emulate(browser, 390, 844)
    browser.execute_script("arguments[0].scrollIntoView()", card)
    browser.save_screenshot(os.path.join(SCREENSHOTS, "zh-390-report-privacy.png"))
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # Activity: the day choices written by Intl in Chinese.
    browser.get(stack.base + "/activity?app=reportcard")
    wait(browser, lambda driver: "年" in driver.find_elements(By.CSS_SELECTOR, "select[name=day] option")[1].text)
    assert browser.find_element(By.CSS_SELECTOR, "select[name=day] option").text == "任意一天"
    assert latin_words(browser) == []
    browser.save_screenshot(os.path.join(SCREENSHOTS, "zh-1280-report-activity.png"))

    # The pick sheet and the launch alert.
    browser.get(stack.base + "/")
    app = pick_in_background(stack, "reportcard", selection_limit=2)
    open_sheet(browser, ".sheet[data-pick]")
    wait(browser, lambda driver: len(driver.find_elements(By.CSS_SELECTOR, "#sheet-grid .cell")) >= 7)
    assert latin_words(browser, names) == []
    click(browser, "sheet-cancel")
    assert app.outcome() == []
    sheet_gone(browser)
    process = start_app(stack, "launcher", limited)
    try:
        assert process.stdout.readline().strip() == "2"
        assert alert_title(browser) == "“Launch Tester”只能查看你的部分照片"
        assert [browser.find_element(By.ID, name).text for name in ("select-more", "keep-selection")] == ["选择更多照片…", "保留当前所选项"]
        assert latin_words(browser, names) == []
        browser.save_screenshot(os.path.join(SCREENSHOTS, "zh-1280-launch-alert.png"))
        keep(browser)
    finally:
        end(process)

    # The refusals: a used or wrong login address, and no session at all.
    browser.get(stack.base + "/login?secret=not-a-secret")
    assert browser.find_element(By.TAG_NAME, "h1").text == "此登录地址无效"
    assert browser.find_element(By.CSS_SELECTOR, "main code").text == "lightbox user login"
    assert latin_words(browser) == []
    browser.save_screenshot(os.path.join(SCREENSHOTS, "zh-1280-login-refused.png"))
    status, _, body = request(stack, "GET", "/", {"Accept-Language": "zh-CN,zh;q=0.9"})
    assert status == 401 and 'lang="zh-CN"' in body and "<h1>请先登录</h1>" in body
    visible = re.sub(r"<code>[^<]*</code>|<title>[^<]*</title>|<[^>]+>", " ", body.split("<body>", 1)[1])
    assert [word for word in WORD.findall(visible) if not word.isupper()] == []
