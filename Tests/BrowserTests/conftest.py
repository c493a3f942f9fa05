"""Browser tests of the owner's surface: real lightbox-auth, lightbox-picker and lightbox-surface
processes on temporary endpoints, data folders and a free port, driven by headless Chromium
(Debian's chromium and chromium-driver, PyPI's selenium). Screenshots of every screen go to
.build/screenshots/ for a person to look at."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

import lightbox as lb  # the Python client package (Clients/python), which `make test` installs

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))

BIN = os.environ.get("LIGHTBOX_BIN", os.path.join(REPO, ".build", "debug"))
SCREENSHOTS = os.path.join(REPO, ".build", "screenshots")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Stack:
    """The three processes, and how to reach them as the owner, an app or a browser."""

    # Nothing opens the sheet on the test machine's desktop unless a test says so (--open-command).
    def __init__(self, root, import_folders, surface_arguments=("--open-command", "none"), watch_folders=()):
        self.root = root
        self.data = os.path.join(root, "d")
        self.auth_endpoint = f"ipc://{root}/auth.sock"
        self.picker_endpoint = f"ipc://{root}/picker.sock"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.directory = lb.ServiceDirectory(self.data, self.auth_endpoint, self.picker_endpoint)
        self.processes = []
        common = ["--data", self.data, "--log-level", "warning"]
        self.start("lightbox-auth", common + ["--endpoint", self.auth_endpoint])
        picker = common + ["--endpoint", self.picker_endpoint, "--auth-endpoint", self.auth_endpoint]
        for folder in import_folders:
            picker += ["--import", folder]
        for folder in watch_folders:
            picker += ["--watch", folder]
        self.start("lightbox-picker", picker)
        self.start("lightbox-surface", common + ["--listen", f"127.0.0.1:{self.port}", "--auth-endpoint", self.auth_endpoint,
                                                 "--picker-endpoint", self.picker_endpoint, *surface_arguments])
        self.wait_until_ready()

    def start(self, name, arguments):
        log = open(os.path.join(self.root, f"{name}.log"), "wb")
        self.processes.append(subprocess.Popen([os.path.join(BIN, name), *arguments], stdout=log, stderr=subprocess.STDOUT))
        log.close()

    def wait_until_ready(self):
        login_file = os.path.join(self.data, "surface", "login-url")
        deadline = time.monotonic() + 120
        while not os.path.exists(login_file):
            for process in self.processes:
                assert process.poll() is None, f"a service exited:\n{self.logs()}"
            assert time.monotonic() < deadline, f"the surface did not start:\n{self.logs()}"
            time.sleep(0.1)
        with open(login_file) as handle:
            self.first_login = handle.read().strip()

    def logs(self):
        text = []
        for name in ("lightbox-auth", "lightbox-picker", "lightbox-surface"):
            path = os.path.join(self.root, f"{name}.log")
            if os.path.exists(path):
                with open(path, errors="replace") as handle:
                    text.append(f"--- {name}\n" + handle.read()[-4000:])
        return "\n".join(text)

    def lightbox(self, *arguments):
        environment = dict(os.environ, LIGHTBOX_DATA=self.data, LIGHTBOX_AUTH_ENDPOINT=self.auth_endpoint,
                           LIGHTBOX_PICKER_ENDPOINT=self.picker_endpoint)
        run = subprocess.run([os.path.join(BIN, "lightbox"), *arguments], capture_output=True, text=True, timeout=120, env=environment)
        assert run.returncode == 0, run.stderr
        return run.stdout

    def login_url(self):
        return self.lightbox("user", "login", "--data", self.data).strip()

    def register(self, app, name, usage=None):
        arguments = ["app", "register", app, "--name", name, "--data", self.data, "--auth-endpoint", self.auth_endpoint]
        if usage:
            arguments += ["--usage-read-write", usage]
        self.lightbox(*arguments)

    def assets(self):
        with self.directory.picker_as_owner() as connection:
            return lb.OwnerSurface(connection).assets()

    def stop(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def sample_stack(prefix):
    """A stack on the sample library in a new temporary folder, for a fixture to yield from; stopped
    and removed afterwards."""
    root = tempfile.mkdtemp(prefix=prefix, dir="/tmp")
    running = Stack(root, [os.path.join(REPO, "Samples", "library")])
    yield running
    running.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def stack():
    yield from sample_stack("lbs-")


def make_browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(argument)
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(service=service, options=options)


def logged_in_browser(stack):
    """Headless Chromium, logged in to `stack`'s surface with a one-time address from `lightbox user
    login`, for a fixture to yield from."""
    os.makedirs(SCREENSHOTS, exist_ok=True)
    driver = make_browser()
    driver.get(stack.login_url())
    yield driver
    driver.quit()


@pytest.fixture(scope="session")
def browser(stack):
    yield from logged_in_browser(stack)


@pytest.fixture
def shoot(browser):
    def save(name):
        browser.save_screenshot(os.path.join(SCREENSHOTS, f"{name}.png"))
    return save
