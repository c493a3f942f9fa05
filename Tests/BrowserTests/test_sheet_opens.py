"""The sheet comes to the person: when an app files a pick and no page of the surface is open,
lightbox-surface runs its --open-command with a fresh one-time login address (once per pick, never
while a page is open), and that address lands logged in on the sheet. `lightbox user login --open`
does the same by hand. The open command here is a small script that records its arguments."""

import os
import shutil
import socket
import tempfile
import time
import urllib.parse

import pytest
from selenium.webdriver.common.by import By

from conftest import REPO, Stack, lb, make_browser
from test_surface import cell, click, open_sheet, pick_in_background, request, sample_bytes, wait

# SheetOpening.interval in Services/Surface/SheetOpening.swift: the least time between two opens.
OPEN_INTERVAL = 5


@pytest.fixture
def opening_stack():
    root = tempfile.mkdtemp(prefix="lbo-", dir="/tmp")
    script = os.path.join(root, "open-sheet")
    calls = os.path.join(root, "calls")
    with open(script, "w") as handle:
        handle.write(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{calls}"\n')
    os.chmod(script, 0o755)
    running = Stack(root, [os.path.join(REPO, "Samples", "library")], surface_arguments=("--open-command", script))
    running.open_script, running.calls_file = script, calls
    yield running
    running.stop()
    shutil.rmtree(root, ignore_errors=True)


def calls(stack):
    if not os.path.exists(stack.calls_file):
        return []
    with open(stack.calls_file) as handle:
        return handle.read().splitlines()


def wait_for_calls(stack, count, timeout=30):
    deadline = time.monotonic() + timeout
    while len(calls(stack)) < count:
        assert time.monotonic() < deadline, f"the open command was not run:\n{stack.logs()}"
        time.sleep(0.01)
    return calls(stack)


def test_a_pick_with_no_page_open_opens_the_sheet_once(opening_stack):
    stack = opening_stack
    stack.register("opener", "Opener App")
    stack.register("later", "Later App")
    app = pick_in_background(stack, "opener", selection_limit=1, location="precise")
    [first] = wait_for_calls(stack, 1)
    if app.started_at is not None:
        print(f"\npick filed → open command run: {(time.monotonic() - app.started_at) * 1000:.0f} ms")
    url = first.split(" ")[-1]
    assert url.startswith(stack.base + "/login?secret="), first
    opened_at = time.monotonic()
    # Past the interval with the pick still waiting and no page open: still one open for one pick.
    time.sleep(OPEN_INTERVAL + 1)
    assert calls(stack) == [first]

    browser = make_browser()
    try:
        # The address logs in and lands on the sheet.
        browser.get(url)
        sheet = open_sheet(browser, ".sheet[data-pick]")
        assert "Opener App" in sheet.text
        # With the page open another pick opens nothing, though the interval has passed since the last open.
        while time.monotonic() - opened_at < OPEN_INTERVAL + 1:
            time.sleep(0.1)
        second = pick_in_background(stack, "later")
        wait(browser, lambda driver: driver.find_element(By.TAG_NAME, "body").get_attribute("data-waiting") == "2")
        time.sleep(1)  # several rounds of the surface's polls
        assert calls(stack) == [first]
        cell(browser, "harbour.jpg").click()
        click(browser, "location-precise")
        click(browser, "sheet-add")
        [(_, data)] = app.outcome()
        assert data == sample_bytes("harbour.jpg")
        wait(browser, lambda driver: "Later App" in driver.find_element(By.CSS_SELECTOR, "#overlay .sheet h2").text)
        click(browser, "sheet-cancel")
        assert second.outcome() == []
    finally:
        browser.quit()
    # The address worked once.
    status, _, _ = request(stack, "GET", url[len(stack.base):])
    assert status == 401
    assert calls(stack) == [first]


def test_user_login_open_runs_the_open_command(opening_stack):
    stack = opening_stack
    printed = stack.lightbox("user", "login", "--data", stack.data, "--open",
                             "--open-command", f"{stack.open_script} --app=%u").strip()
    assert printed.startswith(stack.base + "/login?secret=")
    assert wait_for_calls(stack, 1) == [f"--app={printed}"]


def test_a_page_closed_just_before_the_pick_does_not_hold_the_sheet_back(opening_stack):
    """A closed page looks open until the surface writes to it: the pick must open the sheet anyway."""
    stack = opening_stack
    stack.register("late", "Late App")
    login = urllib.parse.urlparse(stack.login_url())
    status, headers, _ = request(stack, "GET", login.path + "?" + login.query)
    assert status == 303
    cookie = headers["Set-Cookie"].split(";")[0]
    page = socket.create_connection(("127.0.0.1", stack.port), timeout=10)
    page.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{stack.port}\r\nCookie: {cookie}\r\n\r\n".encode())
    assert b"event: state" in page.recv(65536) or b"event: state" in page.recv(65536)
    page.close()
    app = pick_in_background(stack, "late")
    [call] = wait_for_calls(stack, 1)
    assert call.startswith(stack.base + "/login?secret=")
    with stack.directory.picker_as_owner() as connection:
        [pending] = lb.OwnerSurface(connection).pending()
        lb.OwnerSurface(connection).cancel(pending.pick)
    assert app.outcome() == []
