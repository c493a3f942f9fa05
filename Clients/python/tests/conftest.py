"""pytest fixtures: real lightbox-auth and lightbox-picker processes on temporary ipc:// endpoints.

The binaries come from $LIGHTBOX_BIN (default: <repo>/.build/debug). One pair of services serves
the whole test session; at teardown both get SIGTERM and must exit with status 0. Because the
services (and their authorization database) are shared, each authorization test registers its own
app id, and assets tests add to the shared library are named py-….
"""

import contextlib
import os
import shutil
import signal
import subprocess
import sysconfig
import tempfile
import threading
import time

import pytest

import lightbox as lb

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT_DIR = os.path.dirname(HERE)
REPO = os.path.normpath(os.path.join(CLIENT_DIR, "..", ".."))

SAMPLES = os.path.join(REPO, "Samples", "library")
APP = "demo"


def binary(name):
    folder = os.environ.get("LIGHTBOX_BIN", os.path.join(REPO, ".build", "debug"))
    path = os.path.join(folder, name)
    # Another build may be replacing the binaries right now: give it a moment.
    deadline = time.monotonic() + 120
    while not os.access(path, os.X_OK):
        if time.monotonic() > deadline:
            pytest.fail(f"{path} is missing; build with `swift build` or set LIGHTBOX_BIN")
        time.sleep(1)
    return path


def console_script(name):
    """The installed entry point of a console script (pyproject.toml's [project.scripts])."""
    for folder in (sysconfig.get_path("scripts"), *os.environ.get("PATH", "").split(os.pathsep)):
        path = os.path.join(folder, name)
        if folder and os.access(path, os.X_OK):
            return path
    pytest.fail(f"{name} is not installed; run `python3 -m pip install ./Clients/python`")


class Services:
    """Where the test services are, and how to reach them."""

    def __init__(self, root):
        self.root = root
        self.data = os.path.join(root, "d")
        self.auth_endpoint = f"ipc://{root}/auth.sock"
        self.picker_endpoint = f"ipc://{root}/picker.sock"
        self.directory = lb.ServiceDirectory(self.data, self.auth_endpoint, self.picker_endpoint)
        self.processes = {}
        self.logs = {}

    def endpoint_arguments(self):
        return ["--data", self.data, "--auth-endpoint", self.auth_endpoint, "--picker-endpoint", self.picker_endpoint]

    def environment(self):
        environment = dict(os.environ)
        environment.update(LIGHTBOX_DATA=self.data, LIGHTBOX_AUTH_ENDPOINT=self.auth_endpoint,
                           LIGHTBOX_PICKER_ENDPOINT=self.picker_endpoint)
        return environment

    def start(self, name, arguments):
        log = open(os.path.join(self.root, f"{name}.log"), "wb")
        self.logs[name] = log.name
        self.processes[name] = subprocess.Popen([binary(name), *arguments], stdout=log, stderr=subprocess.STDOUT)
        log.close()

    def log_text(self, name):
        try:
            with open(self.logs[name], "r", encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except (KeyError, OSError):
            return ""

    def check_running(self):
        for name, process in self.processes.items():
            if process.poll() is not None:
                pytest.fail(f"{name} exited with {process.returncode}:\n{self.log_text(name)}")

    def lightbox(self, *arguments, timeout=60):
        """Runs the `lightbox` CLI against these services."""
        return subprocess.run([binary("lightbox"), *arguments], capture_output=True, text=True, timeout=timeout,
                              env=self.environment())

    def register_app(self, app, usage_read_write=None, usage_add_only=None, prevent_automatic_alert=False):
        """Registers `app` (named `app` capitalized) with `lightbox app register`, with the usage
        descriptions given; returns its id."""
        arguments = ["app", "register", app, "--name", app.capitalize()]
        if usage_read_write is not None:
            arguments += ["--usage-read-write", usage_read_write]
        if usage_add_only is not None:
            arguments += ["--usage-add-only", usage_add_only]
        if prevent_automatic_alert:
            arguments.append("--prevent-automatic-limited-access-alert")
        registered = self.lightbox(*arguments, *self.endpoint_arguments())
        assert registered.returncode == 0, registered.stderr
        return app

    def sample_identifiers(self):
        """{file name: asset identifier} of the library, from the owner's catalog."""
        with self.directory.picker_as_owner() as connection:
            return {asset.file_name: asset.identifier for asset in lb.OwnerSurface(connection).assets()}

    def stop(self):
        """SIGTERM to both (picker first); returns {name: exit status}."""
        statuses = {}
        for name in ("lightbox-picker", "lightbox-auth"):
            process = self.processes.get(name)
            if process is None:
                continue
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                statuses[name] = process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                statuses[name] = process.wait()
        return statuses


def wait_for_owner_ping(services, deadline):
    while True:
        services.check_running()
        try:
            with services.directory.picker_as_owner(timeout=1.0) as connection:
                if connection.ping()["principal"] == "owner":
                    return
        except lb.LightboxError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def start_services(root, register=(APP,), prompt_timeout=None):
    """Starts lightbox-auth and lightbox-picker (importing Samples/library) under `root`, waits until
    the owner's ping works, and registers the apps in `register` with the `lightbox` CLI.
    `prompt_timeout` (seconds) is how long lightbox-auth keeps a prompt open (its default: 120)."""
    services = Services(root)
    auth_arguments = ["--prompt-timeout", str(prompt_timeout)] if prompt_timeout is not None else []
    services.start("lightbox-auth", ["--data", services.data, "--endpoint", services.auth_endpoint,
                                     "--log-level", "warning", *auth_arguments])
    services.start("lightbox-picker", ["--data", services.data, "--endpoint", services.picker_endpoint,
                                       "--auth-endpoint", services.auth_endpoint, "--import", SAMPLES,
                                       "--log-level", "warning"])
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(os.path.join(services.data, "keys", "picker.pub")):
            services.check_running()
            if time.monotonic() > deadline:
                pytest.fail("lightbox-picker did not write keys/picker.pub within 60 s")
            time.sleep(0.05)
        wait_for_owner_ping(services, deadline)
        for app in register:
            registered = services.lightbox("app", "register", app, "--name", app.capitalize(),
                                           *services.endpoint_arguments())
            assert registered.returncode == 0, registered.stderr
    except BaseException:
        services.stop()
        raise
    return services


@contextlib.contextmanager
def running_services(register=(APP,), prompt_timeout=None):
    """A private pair of services in a short temporary folder (ipc:// paths must stay under ~100
    characters); on exit both get SIGTERM and must exit with status 0."""
    root = tempfile.mkdtemp(prefix="lbpy")
    services = None
    try:
        services = start_services(root, register, prompt_timeout)
        yield services
    finally:
        statuses = services.stop() if services else {}
        logs = {name: services.log_text(name) for name in statuses}
        shutil.rmtree(root, ignore_errors=True)
    assert statuses == {"lightbox-picker": 0, "lightbox-auth": 0}, f"exit statuses {statuses}; logs: {logs}"


@pytest.fixture(scope="session")
def services():
    """One pair of services for the whole session, with the app `demo` registered."""
    with running_services() as services:
        yield services


@pytest.fixture
def app_connection(services):
    connection = services.directory.picker_as_app(APP)
    yield connection
    connection.close()


@pytest.fixture
def owner_connection(services):
    connection = services.directory.picker_as_owner()
    yield connection
    connection.close()


class _OwnerWorker(threading.Thread):
    """A background owner answering one pick or prompt; errors surface in join_and_check."""

    error = None
    answered = None

    def join_and_check(self, timeout=40.0):
        self.join(timeout)
        assert not self.is_alive(), f"the {type(self).__name__} did not finish"
        if self.error is not None:
            raise self.error
        return self.answered


class OwnerThread(_OwnerWorker):
    """A scripted owner in a thread: long-polls owner.pending for the next pick of `app` and answers
    it by choosing the named files (in order) or by cancelling. It gives the location the pick asks
    for, up to `location` (precise: a pick that asks for it gets the originals as they were before
    apps needed consent). `join_and_check` re-raises its errors."""

    def __init__(self, services, app=APP, files=("harbour.jpg",), cancel=False, within=30.0, location="precise"):
        super().__init__(daemon=True)
        self.directory = services.directory
        self.app, self.files, self.cancel, self.within = app, list(files), cancel, within
        self.location = location
        self.error = None
        self.answered = None  # the PendingPick answered
        self.chosen = []

    def run(self):
        try:
            with self.directory.picker_as_owner() as connection:
                owner = lb.OwnerSurface(connection)
                deadline = time.monotonic() + self.within
                while time.monotonic() < deadline:
                    for pick in owner.pending(wait_ms=2000):
                        if pick.app != self.app:
                            continue
                        if self.cancel:
                            owner.cancel(pick.pick)
                        else:
                            by_name = {asset.file_name: asset for asset in owner.assets(pick.pick)}
                            self.chosen = [by_name[name].identifier for name in self.files]
                            assert owner.choose(pick.pick, self.chosen, location=self.location) == len(self.chosen)
                        self.answered = pick
                        return
                raise AssertionError(f"no pick from {self.app} arrived within {self.within} s")
        except BaseException as error:  # reported by join_and_check
            self.error = error


def _started_workers(make):
    """A fixture body: yields a starter for background owners and joins them all afterwards."""
    threads = []

    def start(*arguments, **options):
        thread = make(*arguments, **options)
        thread.start()
        threads.append(thread)
        return thread

    yield start
    for thread in threads:
        thread.join(40.0)


@pytest.fixture
def owner_thread(services):
    yield from _started_workers(lambda **options: OwnerThread(services, **options))


@pytest.fixture
def owner_settings(services):
    """The owner's settings on the auth service (OwnerSettings over its own connection)."""
    connection = services.directory.auth_as_owner()
    yield lb.OwnerSettings(connection)
    connection.close()


class PromptThread(_OwnerWorker):
    """A scripted owner for prompts in a thread: long-polls owner.prompts for the next prompt of
    `kind` for `app` and answers it with `answer` and `selection` (a list, or a function of the
    OwnerPrompt returning one). `join_and_check` re-raises its errors and returns the prompt."""

    def __init__(self, services, app, answer, kind="authorization", selection=None, within=30.0):
        super().__init__(daemon=True)
        self.directory = services.directory
        self.app, self.answer, self.kind, self.selection, self.within = app, answer, kind, selection, within
        self.error = None
        self.answered = None  # the OwnerPrompt answered

    def run(self):
        try:
            with self.directory.auth_as_owner() as connection:
                owner = lb.OwnerSettings(connection)
                deadline = time.monotonic() + self.within
                while time.monotonic() < deadline:
                    for prompt in owner.prompts(wait_ms=500):
                        if prompt.app != self.app or prompt.kind != self.kind:
                            continue
                        selection = self.selection(prompt) if callable(self.selection) else self.selection
                        owner.answer(prompt, self.answer, selection)
                        self.answered = prompt
                        return
                    # prompts() returns at once while other apps' prompts are open: don't spin.
                    time.sleep(0.05)
                raise AssertionError(f"no {self.kind} prompt for {self.app} arrived within {self.within} s")
        except BaseException as error:  # reported by join_and_check
            self.error = error


@pytest.fixture
def prompt_thread(services):
    yield from _started_workers(lambda app, answer, **options: PromptThread(services, app, answer, **options))
