"""Lightbox on a desktop, end to end and headless: a private session bus (dbus-run-session), Debian's
xdg-desktop-portal choosing lightbox-portal by XDG_CURRENT_DESKTOP=lightbox and our own
deploy/portal/lightbox.portal (XDG_DESKTOP_PORTAL_DIR), lightbox-portal started by D-Bus activation
from a copy of deploy/portal's service file, python-dbusmock standing in for the desktop's own file
chooser backend, the three services as processes on temporary endpoints and data folders (the
browser tests' Stack), and the owner answering in headless Chromium.

The desktop apps are processes too (desktop_app.py, under the system Python with GDBus), so the
frontend sees host apps exactly as it would see a GTK app started from a terminal."""

import importlib.util
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
PORTAL_FILES = os.path.join(REPO, "deploy", "portal")
FRONTEND = "/usr/libexec/xdg-desktop-portal"
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, with python3-gi and python3-dbusmock

# The services, the browser and the screenshots as the browser tests have them.
_spec = importlib.util.spec_from_file_location("browser_conftest", os.path.join(REPO, "Tests", "BrowserTests", "conftest.py"))
browser_tests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_tests)
BIN = browser_tests.BIN
lb = browser_tests.lb

# The desktop file the sheet names an app by.
VIEWER_ID = "org.example.Viewer"
VIEWER_NAME = "Example Viewer"


def make_photo(folder, name="summit.jpg"):
    """A 12-megapixel JPEG (4000 × 3000): a test pattern with noise, so it is about as large as a camera's."""
    path = os.path.join(folder, name)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=4000x3000,noise=alls=10:allf=t",
                    "-frames:v", "1", "-q:v", "2", "-y", path], check=True, timeout=120)
    return path


class App:
    """A desktop app choosing files: desktop_app.py as a process, its JSON lines read as they come."""

    def __init__(self, session, *arguments, sandbox=()):
        self.process = subprocess.Popen([*sandbox, SYSTEM_PYTHON, os.path.join(HERE, "desktop_app.py"), *arguments],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        env=session.environment)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def next(self, timeout=60):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("the desktop app heard nothing in time")
        if line is None:
            raise AssertionError("the desktop app ended: " + self.process.stderr.read())
        return line

    def close(self):
        self.process.stdin.write("close\n")
        self.process.stdin.flush()

    def finish(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


class DesktopSession:
    """The private session bus and what runs on it: the portal frontend, the mock backend and, once
    activated, lightbox-portal."""

    def __init__(self, root, stack):
        self.root = root
        self.stack = stack
        self.processes = []
        share = os.path.join(root, "share")
        os.makedirs(os.path.join(share, "applications"))
        with open(os.path.join(share, "applications", VIEWER_ID + ".desktop"), "w") as handle:
            handle.write(f"[Desktop Entry]\nType=Application\nName={VIEWER_NAME}\nExec=viewer %U\n")
        self.deliveries = os.path.join(root, "delivered")
        self.portal_log = os.path.join(root, "lightbox-portal.log")
        self.write_activation_file(os.path.join(share, "dbus-1", "services"))
        # The session's runtime folder: the real xdg-document-portal, activated by the frontend,
        # mounts its FUSE file system at doc/ in it.
        self.runtime = os.path.join(root, "runtime")
        os.makedirs(self.runtime, mode=0o700)
        # The bus finds our service file through XDG_DATA_DIRS, as a per-user install's would be found.
        self.environment = dict(os.environ, XDG_DATA_DIRS=f"{share}:/usr/local/share:/usr/share",
                                XDG_DATA_HOME=os.path.join(root, "home-share"), XDG_RUNTIME_DIR=self.runtime)
        self.start_bus()
        self.start("mock", [SYSTEM_PYTHON, "-m", "dbusmock", "--template", os.path.join(HERE, "mock_file_chooser.py")])
        self.wait_for_name("org.freedesktop.impl.portal.desktop.mock")
        self.start("xdg-desktop-portal", [FRONTEND, "--verbose"],
                   dict(self.environment, XDG_CURRENT_DESKTOP="lightbox", XDG_DESKTOP_PORTAL_DIR=PORTAL_FILES))
        self.wait_for_name("org.freedesktop.portal.Desktop")
        # The frontend made its FileChooser backend's proxy, and with it D-Bus started lightbox-portal.
        self.wait_for_name("org.freedesktop.impl.portal.desktop.lightbox")

    def write_activation_file(self, folder):
        """deploy/portal's service file, with the test's binary, data folder, endpoints and the mock as the fallback."""
        os.makedirs(folder)
        name = "org.freedesktop.impl.portal.desktop.lightbox.service"
        with open(os.path.join(PORTAL_FILES, name)) as handle:
            shipped = handle.read()
        command = (f"{BIN}/lightbox-portal --fallback mock --data {self.stack.data} --auth-endpoint {self.stack.auth_endpoint} "
                   f"--picker-endpoint {self.stack.picker_endpoint} --deliveries {self.deliveries} --log-level debug")
        lines = [f"Exec=/bin/sh -c 'exec {command} >> {self.portal_log} 2>&1'" if line.startswith("Exec=") else line
                 for line in shipped.splitlines()]
        assert any(line.startswith("Exec=/bin/sh") for line in lines) and "Name=org.freedesktop.impl.portal.desktop.lightbox" in lines
        with open(os.path.join(folder, name), "w") as handle:
            handle.write("\n".join(lines) + "\n")

    def start_bus(self):
        config = os.path.join(self.root, "session.conf")
        with open(config, "w") as handle:
            handle.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={self.root}</listen>
  <auth>EXTERNAL</auth>
  <standard_session_servicedirs/>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
""")
        # dbus-run-session keeps the bus for as long as its program runs: a shell that prints the
        # address and then waits for its input to close.
        log = open(os.path.join(self.root, "dbus.log"), "wb")
        self.bus = subprocess.Popen(["dbus-run-session", "--config-file", config, "--", "sh", "-c",
                                     'echo "$DBUS_SESSION_BUS_ADDRESS"; exec cat >/dev/null'],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, env=self.environment)
        log.close()
        address = self.bus.stdout.readline().strip()
        assert address.startswith("unix:"), f"no bus address from dbus-run-session: {address!r}"
        self.environment["DBUS_SESSION_BUS_ADDRESS"] = address

    def start(self, name, arguments, environment=None):
        log = open(os.path.join(self.root, f"{name}.log"), "wb")
        self.processes.append(subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, env=environment or self.environment))
        log.close()

    def wait_for_name(self, name, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            run = subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                  "--method", "org.freedesktop.DBus.NameHasOwner", name],
                                 capture_output=True, text=True, env=self.environment, timeout=30)
            if "true" in run.stdout:
                return
            for process in self.processes:
                assert process.poll() is None, f"{process.args[0]} exited:\n{self.logs()}"
            time.sleep(0.1)
        raise AssertionError(f"{name} did not appear on the bus:\n{self.logs()}")

    def app(self, *arguments):
        return App(self, *arguments)

    def sandbox(self, app_id):
        """A Flatpak-style sandbox for a program, as flatpak makes one: bubblewrap with a tmpfs root
        holding /.flatpak-info (how xdg-desktop-portal tells a Flatpak app and its id), the system
        read-only, the session bus's socket, and the document portal's view for `app_id` at
        $XDG_RUNTIME_DIR/doc — and nothing else of the host."""
        info = os.path.join(self.root, f"flatpak-info-{app_id}")
        with open(info, "w") as handle:
            handle.write(f"[Application]\nname={app_id}\n")
        bus = self.environment["DBUS_SESSION_BUS_ADDRESS"].split("unix:path=", 1)[1].split(",", 1)[0]
        documents = os.path.join(self.runtime, "doc")
        # bwrap reads the file for /.flatpak-info from descriptor 3, which the shell opens.
        return ["sh", "-c", 'exec "$@" 3<"$0"', info, shutil.which("bwrap"),
                "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                "--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                "--ro-bind", HERE, HERE, "--bind", bus, bus,
                "--bind", os.path.join(documents, "by-app", app_id), documents,
                "--file", "3", "/.flatpak-info", "--"]

    def sandboxed_app(self, app_id, *arguments):
        return App(self, *arguments, sandbox=self.sandbox(app_id))

    def mock_calls(self):
        app = self.app("mock-calls")
        calls = app.next()["calls"]
        app.finish()
        return calls

    def logs(self):
        text = []
        for name in ("lightbox-portal", "xdg-desktop-portal", "mock", "dbus"):
            path = os.path.join(self.root, f"{name}.log")
            if os.path.exists(path):
                with open(path, errors="replace") as handle:
                    text.append(f"--- {name}\n" + handle.read()[-4000:])
        return "\n".join(text) + "\n" + self.stack.logs()

    def portal_log_text(self):
        with open(self.portal_log, errors="replace") as handle:
            return handle.read()

    def stop(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        # Closing the bus ends lightbox-portal too: its connection closes, and it stops gracefully.
        self.bus.stdin.close()
        self.bus.wait(timeout=30)


@pytest.fixture(scope="session")
def stack():
    root = tempfile.mkdtemp(prefix="lbd-", dir="/tmp")
    photos = os.path.join(root, "photos")
    os.makedirs(photos)
    make_photo(photos)
    running = browser_tests.Stack(root, [os.path.join(REPO, "Samples", "library"), photos])
    running.photos = photos
    yield running
    running.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def desktop(stack):
    for tool in (FRONTEND, SYSTEM_PYTHON, shutil.which("dbus-run-session"), shutil.which("gdbus"), shutil.which("bwrap"),
                 "/usr/libexec/xdg-document-portal"):
        assert tool and os.path.exists(tool), f"{tool} is missing; run deploy/install-deps.sh"
    root = tempfile.mkdtemp(prefix="lbd-bus-", dir="/tmp")
    session = DesktopSession(root, stack)
    yield session
    session.stop()
    # lightbox-portal stops once the bus is gone; it said so last.
    deadline = time.monotonic() + 20
    while "lightbox-portal stopped" not in session.portal_log_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "lightbox-portal stopped" in session.portal_log_text(), session.logs()
    shutil.rmtree(root, ignore_errors=True)


# The browser tests' fixtures: headless Chromium logged in as the owner, and screenshots of it.
browser = browser_tests.browser
shoot = browser_tests.shoot
