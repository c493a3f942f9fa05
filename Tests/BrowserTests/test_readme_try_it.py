"""README.md's "Try it", followed literally: its commands, read from between the README's
try-it markers so the two cannot drift apart, run in order against real services, with a scripted
owner answering in headless Chromium; whatever a command needs copied (a token, identifiers) comes
from what an earlier command printed."""

import os
import re
import shlex
import shutil
import subprocess
import tempfile
import threading

import pytest
from selenium.webdriver.common.by import By

from conftest import BIN, REPO, SCREENSHOTS, Stack, make_browser
from test_surface import click, open_sheet, sheet_gone, wait


def readme_commands():
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    section = text.split("<!-- try-it:begin -->")[1].split("<!-- try-it:end -->")[0]
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            if command:
                commands.append(command)
    return commands


class Command(threading.Thread):
    """One README command as a process; `output()` waits for it and returns what it printed."""

    def __init__(self, line, stack, folder):
        super().__init__(daemon=True)
        arguments = shlex.split(line.replace("$B/", BIN + "/"))
        environment = dict(os.environ, LIGHTBOX_DATA=stack.data, LIGHTBOX_AUTH_ENDPOINT=stack.auth_endpoint,
                           LIGHTBOX_PICKER_ENDPOINT=stack.picker_endpoint)
        self.process = subprocess.Popen(arguments, cwd=folder, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.line = line
        self.start()

    def run(self):
        self.stdout, self.stderr = self.process.communicate(timeout=120)

    def output(self):
        self.join(130)
        assert self.process.returncode == 0, f"{self.line}\n{self.stderr}"
        return self.stdout


@pytest.fixture
def fresh(tmp_path):
    root = tempfile.mkdtemp(prefix="lbr-", dir="/tmp")
    stack = Stack(root, [os.path.join(REPO, "Samples", "library")])
    browser = make_browser()
    browser.get(stack.first_login)
    yield stack, browser, tmp_path
    browser.quit()
    stack.stop()
    shutil.rmtree(root, ignore_errors=True)


def keep_the_selection(browser, app_name):
    """A limited app's launch shows a small alert in the page; the owner keeps the selection."""
    alert = open_sheet(browser, ".sheet.alert[data-prompt]")
    assert f"“{app_name}” Can See Only Some of Your Photos" in alert.text
    assert browser.find_element(By.ID, "select-more").text == "Select More Photos…"
    click(browser, "keep-selection")
    sheet_gone(browser)


def test_try_it_runs_as_written(fresh):
    stack, browser, folder = fresh
    commands = readme_commands()
    assert commands[0] == "B=.build/debug" and len(commands) == 8, commands
    printed = {}
    ran = []
    for line in commands[1:]:
        words = shlex.split(line)
        action = " ".join(words[1:3])
        # What the README tells the reader to copy, from what an earlier command printed.
        line = line.replace("<TOKEN>", printed.get("token", "<TOKEN>"))
        line = line.replace("<ID>…", " ".join(printed.get("identifiers", ["<ID>…"])))
        assert "<" not in line, f"nothing printed before `{line}` shows what to put there"
        command = Command(line, stack, folder)
        ran.append(words[1] if words[1] in ("pick", "load") else action)
        if action == "pick --app":
            sheet = open_sheet(browser, ".sheet[data-pick]")
            assert "Demo App wants up to 2 photos or videos, in order" in sheet.text
            for name in ("sunset.png", "harbour.jpg"):
                wait(browser, lambda driver, name=name: driver.find_element(By.CSS_SELECTOR, f'#sheet-grid .cell[title="{name}"]')).click()
            browser.save_screenshot(os.path.join(SCREENSHOTS, "try-it-pick.png"))
            click(browser, "sheet-add")
            rows = [row.split("\t") for row in command.output().splitlines() if row.startswith("lbt_")]
            assert len(rows) == 2 and rows[0][1].split(",")[0] == "public.png", rows
            printed["token"] = rows[0][0]
        elif words[1] == "load":
            output = command.output()
            # The owner chose a PNG first: the file is named for what it holds.
            assert os.path.exists(os.path.join(folder, "picked.png")), output
            assert output.split("\t")[0].endswith("picked.png")
        elif action == "library request":
            open_sheet(browser, ".sheet.alert")
            click(browser, "limit-access")
            wait(browser, lambda driver: driver.find_element(By.CSS_SELECTOR, '#sheet-grid .cell[title="harbour.jpg"]')).click()
            click(browser, "confirm-selection")
            assert command.output().strip() == "limited"
            sheet_gone(browser)
        elif action == "library query":
            keep_the_selection(browser, "Editor")
            rows = [row.split("\t") for row in command.output().splitlines() if row.strip()]
            assert [row[1] for row in rows] == ["harbour.jpg"], rows
            printed["identifiers"] = [row[0] for row in rows]
        elif action == "library fetch":
            keep_the_selection(browser, "Editor")
            rows = [row.split("\t") for row in command.output().splitlines() if row.strip()]
            assert [row[0] for row in rows] == printed["identifiers"] and rows[0][1] == "harbour.jpg"
        else:
            command.output()
    assert ran == ["app register", "pick", "load", "app register", "library request", "library query", "library fetch"], ran
