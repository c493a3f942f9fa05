"""A desktop app's file chooser through xdg-desktop-portal and lightbox-portal: photo requests become
picks on the owner's sheet and arrive as private files; everything else is the desktop's own
backend's, untouched. The timings asked for are printed (pytest -s) as `portal timing:` lines."""

import hashlib
import json
import os
import statistics
import stat
import subprocess
import time
import urllib.parse

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as visible
from selenium.webdriver.support.ui import WebDriverWait

from conftest import REPO, VIEWER_ID, VIEWER_NAME, lb

SAMPLES = os.path.join(REPO, "Samples", "library")
IMAGES = "Images=mime:image/*;glob:*.jpg;glob:*.[pP][nN][gG]"


def wait(browser, condition, timeout=20, poll=0.1):
    return WebDriverWait(browser, timeout, poll_frequency=poll,
                         ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(condition)


def sheet(browser, poll=0.1):
    return wait(browser, visible.visibility_of_element_located((By.CSS_SELECTOR, "#overlay .sheet[data-pick]")), poll=poll)


def cell(browser, file_name):
    return wait(browser, visible.element_to_be_clickable((By.CSS_SELECTOR, f'#sheet-grid .cell[title="{file_name}"]')))


def click(browser, element_id):
    wait(browser, lambda driver: driver.find_element(By.ID, element_id).is_enabled() and driver.find_element(By.ID, element_id).click() is None)


def sheet_gone(browser):
    wait(browser, lambda driver: driver.find_element(By.ID, "overlay").get_attribute("hidden") is not None)


def request_photos(desktop, *filters, multiple=False, app_id=None):
    """An app's OpenFile, through the frontend (or, with `app_id`, to lightbox-portal as the frontend
    would call it); returns the app and when it called."""
    arguments = ["backend-open-file", "--app-id", app_id] if app_id is not None else ["open-file"]
    arguments += ["--title", "Open"] + (["--multiple"] if multiple else [])
    for spec in filters:
        arguments += ["--filter", spec]
    app = desktop.app(*arguments)
    called = app.next()["at"]
    assert "handle" in app.next()
    return app, called


def paths(answer):
    assert answer["response"] == 0, answer
    return [urllib.parse.unquote(urllib.parse.urlparse(uri).path) for uri in answer["results"]["uris"]]


def contents(path):
    with open(path, "rb") as handle:
        return handle.read()


def owner(stack):
    return stack.directory.picker_as_owner()


def pending(stack, wait_ms=0):
    with owner(stack) as connection:
        return lb.OwnerSurface(connection).pending(wait_ms)


def choose(stack, pick, names, strip=None):
    with owner(stack) as connection:
        surface = lb.OwnerSurface(connection)
        by_name = {asset.file_name: asset.identifier for asset in surface.assets()}
        body = {"pick": pick, "assets": [by_name[name] for name in names]}
        if strip:
            body["stripMetadata"] = strip
        connection.request("owner.choose", body)


def exif(path, *tags):
    """The tags' values as exiftool reads them ("" for a tag the file does not have)."""
    run = subprocess.run(["exiftool", "-json", *[f"-{tag}" for tag in tags], path], capture_output=True, text=True, timeout=60)
    found = json.loads(run.stdout)[0]
    return [str(found.get(tag, "")) for tag in tags]


def private(path, desktop):
    """The file is 0600 and every folder from it up to the delivery folder 0700."""
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    folder = os.path.dirname(path)
    while True:
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700, folder
        if os.path.samefile(folder, desktop.deliveries):
            return
        folder = os.path.dirname(folder)


# MARK: Photos become picks

def test_two_photos_chosen_on_the_sheet_arrive_as_the_originals(stack, desktop, browser, shoot):
    browser.get(stack.base + "/")
    app, called = request_photos(desktop, IMAGES, multiple=True)
    shown = sheet(browser, poll=0.005)
    on_screen = time.time()
    # A host app under xdg-desktop-portal 1.16 has no app id.
    assert "An app wants any number of photos" in shown.text
    cell(browser, "summit.jpg").click()
    cell(browser, "harbour.jpg").click()
    click(browser, "location-precise")  # the originals, harbour's location included
    shoot("portal-01-sheet")
    added = time.time()
    click(browser, "sheet-add")
    answer = app.next()
    app.finish()
    files = paths(answer)
    assert sorted(os.path.basename(path) for path in files) == ["harbour.jpg", "summit.jpg"]
    for path in files:
        original = os.path.join(stack.photos if path.endswith("summit.jpg") else SAMPLES, os.path.basename(path))
        assert contents(path) == contents(original)
        private(path, desktop)
        assert os.path.basename(os.path.dirname(os.path.dirname(path))) == "host"
    sheet_gone(browser)
    print(f"\nportal timing: OpenFile → the sheet on screen in Chromium: {(on_screen - called) * 1000:.0f} ms "
          f"(polled every 5 ms); Add → Response with 2 files (a 12-megapixel JPEG of "
          f"{os.path.getsize(files[0] if files[0].endswith('summit.jpg') else files[1]) / 1e6:.1f} MB and a small one): "
          f"{(answer['at'] - added) * 1000:.0f} ms")


def test_timings_of_a_12_megapixel_photo(stack, desktop):
    """OpenFile → the pick pending for the owner, and the owner's choice → the app's Response, for one
    12-megapixel JPEG, five times each (medians): the owner's side through the owner API, since the
    browser adds its own page and click latency to both."""
    to_pending, to_response = [], []
    for _ in range(5):
        app, called = request_photos(desktop, "JPEG=mime:image/jpeg")
        picks = pending(stack, wait_ms=10_000)
        arrived = time.time()
        assert len(picks) == 1
        to_pending.append(arrived - called)
        added = time.time()
        choose(stack, picks[0].pick, ["summit.jpg"])
        answer = app.next()
        app.finish()
        to_response.append(answer["at"] - added)
        [path] = paths(answer)
        assert contents(path) == contents(os.path.join(stack.photos, "summit.jpg"))
    print(f"\nportal timing: OpenFile → pick pending on the owner's side: median {statistics.median(to_pending) * 1000:.0f} ms "
          f"(min {min(to_pending) * 1000:.0f}, max {max(to_pending) * 1000:.0f}); owner.choose → Response with the "
          f"12-megapixel JPEG ({os.path.getsize(path) / 1e6:.1f} MB) written: median {statistics.median(to_response) * 1000:.0f} ms "
          f"(min {min(to_response) * 1000:.0f}, max {max(to_response) * 1000:.0f})")


def test_remove_location_on_the_sheet_strips_the_delivered_file(stack, desktop, browser):
    browser.get(stack.base + "/")
    app, _ = request_photos(desktop, IMAGES)
    sheet(browser)
    cell(browser, "harbour.jpg").click()
    browser.find_element(By.ID, "remove-location").click()
    click(browser, "sheet-add")
    [path] = paths(app.next())
    app.finish()
    assert exif(os.path.join(SAMPLES, "harbour.jpg"), "GPSLatitude", "Model")[0] != ""
    latitude, model = exif(path, "GPSLatitude", "Model")
    assert latitude == "" and model == "Sample Camera 1"
    assert contents(path) != contents(os.path.join(SAMPLES, "harbour.jpg"))


def test_an_app_that_takes_only_jpeg_gets_the_compatible_jpeg(stack, desktop):
    app, _ = request_photos(desktop, "JPEG images=mime:image/jpeg;glob:*.jpg")
    [pick] = pending(stack, wait_ms=10_000)
    assert pick.configuration["filter"] == {"types": ["public.jpeg"]}
    # The sheet shows what the app can open: JPEGs, and stills the picker delivers as JPEG.
    with owner(stack) as connection:
        shown = {asset.file_name for asset in lb.OwnerSurface(connection).assets(pick.pick)}
    assert {"harbour.jpg", "portrait.jpg", "summit.jpg", "meadow.webp"} <= shown
    assert not shown & {"sunset.png", "bounce.gif", "spinner.webp", "clip.mp4"}
    choose(stack, pick.pick, ["meadow.webp"])
    [path] = paths(app.next())
    app.finish()
    assert os.path.basename(path) == "meadow.jpg"
    assert contents(path)[:3] == b"\xff\xd8\xff"
    assert exif(path, "ImageSize") == ["400x300"]


def test_cancel_on_the_sheet_answers_1(stack, desktop, browser):
    browser.get(stack.base + "/")
    app, _ = request_photos(desktop, IMAGES, multiple=True)
    sheet(browser)
    click(browser, "sheet-cancel")
    answer = app.next()
    app.finish()
    assert answer["response"] == 1 and answer["results"].get("uris", []) == []
    sheet_gone(browser)


def test_closing_the_request_withdraws_the_pick(stack, desktop, browser):
    browser.get(stack.base + "/")
    app, _ = request_photos(desktop, IMAGES)
    sheet(browser)
    assert len(pending(stack)) == 1
    app.close()
    assert app.next().get("closed") is True
    sheet_gone(browser)
    assert pending(stack) == []
    app.finish()
    assert "the pick was withdrawn from the owner's sheet" in desktop.portal_log_text()
    # The picker reports its audit lines in batches: the answer's line arrives within moments.
    for _ in range(40):
        with stack.directory.auth_as_owner() as connection:
            lines = lb.OwnerSettings(connection).audit(app="portal:host", operation="pick:answered", limit=1)
        if lines and lines[0].outcome == "cancelled":
            break
        time.sleep(0.05)
    assert lines and lines[0].outcome == "cancelled"


# MARK: Everything else is the desktop's

def test_documents_folders_and_saving_are_answered_by_the_desktop_backend(stack, desktop):
    before = len(desktop.mock_calls())
    answers = {}
    for name, arguments in {
        "text": ["open-file", "--filter", "Text=mime:text/plain"],
        "images or anything": ["open-file", "--filter", IMAGES, "--filter", "All files=glob:*"],
        "folder": ["open-file", "--directory"],
        "save": ["save-file", "--name", "notes.txt"],
    }.items():
        app = desktop.app(*arguments)
        app.next(), app.next()
        answers[name] = app.next()
        app.finish()
    assert {name: (answer["response"], answer["results"]["uris"]) for name, answer in answers.items()} == {
        "text": (0, ["file:///mock/chosen.txt"]), "images or anything": (0, ["file:///mock/chosen.txt"]),
        "folder": (0, ["file:///mock/chosen.txt"]), "save": (0, ["file:///mock/saved.txt"]),
    }
    calls = desktop.mock_calls()[before:]
    assert [call["method"] for call in calls] == ["OpenFile", "OpenFile", "OpenFile", "SaveFile"]
    # As the frontend sent them: the filters and the name reached the desktop's backend unchanged.
    assert calls[0]["args"][4]["filters"] == [["Text", [[1, "text/plain"]]]]
    assert calls[2]["args"][4]["directory"] is True
    assert calls[3]["args"][4]["current_name"] == "notes.txt"
    assert pending(stack) == []


# MARK: Apps by name, revoked by name

def test_an_app_with_a_desktop_file_is_named_and_revoking_it_removes_its_files(stack, desktop, browser, shoot):
    browser.get(stack.base + "/")
    app, _ = request_photos(desktop, IMAGES, app_id=VIEWER_ID)
    shown = sheet(browser)
    assert f"{VIEWER_NAME} wants one photo" in shown.text
    cell(browser, "portrait.jpg").click()
    click(browser, "sheet-add")
    [path] = paths(app.next())
    app.finish()
    assert contents(path) == contents(os.path.join(SAMPLES, "portrait.jpg"))
    app_folder = os.path.join(desktop.deliveries, VIEWER_ID)
    assert path.startswith(app_folder + "/")

    # The privacy center lists the app by its desktop name; revoking it removes what it was given.
    browser.get(stack.base + "/privacy")
    row = wait(browser, visible.visibility_of_element_located((By.CSS_SELECTOR, f'tr[data-app="portal:{VIEWER_ID}"]')))
    assert VIEWER_NAME in row.text and "Picks only" in row.text
    shoot("portal-02-privacy")
    row.find_element(By.CSS_SELECTOR, '[data-app-action="revoke"]').click()
    wait(browser, lambda driver: "Revoked 1 item" in driver.find_element(By.ID, "privacy-status").text)
    deadline = time.monotonic() + 10
    while os.path.exists(app_folder) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(app_folder)

    # The activity page tells its picks and loads under the same name.
    browser.get(stack.base + f"/activity?app=portal:{VIEWER_ID}")
    table = wait(browser, visible.visibility_of_element_located((By.CSS_SELECTOR, "table.activity")))
    assert VIEWER_NAME in table.text and "Received 1 item you picked" in table.text
    raw = browser.find_element(By.CSS_SELECTOR, "table.raw-trail").get_attribute("textContent")
    assert "pick:answered" in raw and "load" in raw
    shoot("portal-03-activity")


def test_a_request_from_an_app_id_that_is_not_one_is_answered_2(stack, desktop):
    app, _ = request_photos(desktop, IMAGES, app_id="../../etc")
    answer = app.next()
    app.finish()
    assert answer["response"] == 2
    assert "is not a desktop app id" in desktop.portal_log_text()
    assert pending(stack) == []


# MARK: Nothing delivered can write back

# Run in the sandbox with the document's path: what the app can and cannot do with its photo.
PROBE = r"""
import hashlib, json, os, sys
path, host_path = sys.argv[1:3]
def attempt(action):
    try:
        action()
        return "succeeded"
    except OSError as error:
        return error.strerror
def create_beside():
    os.close(os.open(os.path.join(os.path.dirname(path), "beside.jpg"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
print(json.dumps({
    "read": hashlib.sha256(open(path, "rb").read()).hexdigest(),
    "open for writing": attempt(lambda: os.close(os.open(path, os.O_WRONLY | os.O_APPEND))),
    "open read-write": attempt(lambda: os.close(os.open(path, os.O_RDWR))),
    "chmod": attempt(lambda: os.chmod(path, 0o666)),
    "create beside": attempt(create_beside),
    "rename": attempt(lambda: os.rename(path, path + ".moved")),
    "host path visible": os.path.exists(host_path),
}))
"""


def test_a_sandboxed_app_gets_its_photo_read_only_through_the_document_portal(stack, desktop):
    app = desktop.sandboxed_app(VIEWER_ID, "open-file", "--title", "Open", "--filter", IMAGES)
    app.next()
    assert "handle" in app.next()
    [pick] = pending(stack, wait_ms=10_000)
    choose(stack, pick.pick, ["portrait.jpg"])
    [path] = paths(app.next())
    app.finish()
    # The app sees its photo under the document portal's mount, not the host's file.
    documents = os.path.join(desktop.runtime, "doc")
    assert path.startswith(documents + "/"), path
    delivered = [os.path.join(folder, name) for folder, _, names in os.walk(os.path.join(desktop.deliveries, VIEWER_ID))
                 for name in names if name == "portrait.jpg"]
    assert delivered, "lightbox-portal delivered no file for the app"

    probe = subprocess.run([*desktop.sandbox(VIEWER_ID), "/usr/bin/python3", "-c", PROBE, path, delivered[0]],
                           capture_output=True, text=True, timeout=60, env=desktop.environment)
    assert probe.returncode == 0, probe.stderr
    seen = json.loads(probe.stdout)
    print("portal sandbox:", seen)
    # The document portal holds the document read-only for the app (xdg-desktop-portal asked so
    # because lightbox-portal answered writable=false).
    document = os.path.relpath(path, documents).split("/")[0]
    info = subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.portal.Documents",
                           "--object-path", "/org/freedesktop/portal/documents", "--method", "org.freedesktop.portal.Documents.Info", document],
                          capture_output=True, text=True, env=desktop.environment, timeout=30).stdout
    assert f"'{VIEWER_ID}': ['read', 'grant-permissions']" in info, info
    assert seen["read"] == hashlib.sha256(contents(os.path.join(SAMPLES, "portrait.jpg"))).hexdigest()
    for action in ("open for writing", "open read-write", "chmod", "create beside", "rename"):
        assert seen[action] != "succeeded", f"the sandboxed app could {action} its photo"
    assert not seen["host path visible"]
    # And the file lightbox-portal delivered is as it was.
    assert contents(delivered[0]) == contents(os.path.join(SAMPLES, "portrait.jpg"))
    private(delivered[0], desktop)
