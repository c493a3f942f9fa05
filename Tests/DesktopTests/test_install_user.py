"""Lightbox for one person: `make install-user` (its copying half, install-user-files, from the debug
build) into a temporary HOME with its own XDG folders and runtime folder. Every file lands where a
desktop looks for it with its mode; `systemd-analyze --user verify` passes every unit; and the
installed units' command lines — read from the unit files, specifiers and variables expanded as the
user manager would — start the services, which find each other over ipc sockets in
$XDG_RUNTIME_DIR/lightbox with their CURVE keys from $XDG_DATA_HOME/lightbox."""

import http.client
import os
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
import urllib.parse

import pytest

from conftest import BIN, REPO, lb

EXECUTABLES = ["lightbox", "lightbox-auth", "lightbox-picker", "lightbox-surface", "lightbox-portal"]
SERVICES = ["lightbox-auth", "lightbox-picker", "lightbox-surface", "lightbox-portal"]
UNITS = [name + ".service" for name in SERVICES] + ["lightbox.target"]
PORTAL_SERVICE_FILE = "org.freedesktop.impl.portal.desktop.lightbox.service"


class Home:
    """A temporary HOME with the XDG folders a session has, and `make` run in it."""

    def __init__(self, root):
        self.root = root
        self.home = os.path.join(root, "home")
        self.data_home = os.path.join(self.home, ".local", "share")
        self.config_home = os.path.join(self.home, ".config")
        self.runtime = os.path.join(root, "run")
        os.makedirs(self.config_home)
        os.makedirs(self.runtime, mode=0o700)
        # A Pictures folder under another name, as xdg-user-dirs writes it for a German desktop.
        self.pictures = os.path.join(self.home, "Bilder")
        os.makedirs(self.pictures)
        with open(os.path.join(self.config_home, "user-dirs.dirs"), "w") as handle:
            handle.write('XDG_PICTURES_DIR="$HOME/Bilder"\n')
        self.environment = {key: value for key, value in os.environ.items() if not key.startswith(("LIGHTBOX_", "XDG_", "DBUS_"))}
        self.environment.update(HOME=self.home, XDG_DATA_HOME=self.data_home, XDG_CONFIG_HOME=self.config_home,
                                XDG_RUNTIME_DIR=self.runtime)

    def make(self, *targets):
        # A umask that leaves files group-writable: what must be private is private anyway.
        run = subprocess.run(["make", "-C", REPO, *targets, f"INSTALL_FROM={BIN}", "SYSTEMCTL=true"], capture_output=True,
                             text=True, timeout=300, env=self.environment, preexec_fn=lambda: os.umask(0o002))
        assert run.returncode == 0, run.stdout + run.stderr
        return run.stdout

    def path(self, *parts):
        return os.path.join(self.home, *parts)

    def mode(self, *parts):
        return stat.S_IMODE(os.stat(self.path(*parts)).st_mode)


@pytest.fixture(scope="module")
def installed():
    for executable in EXECUTABLES:
        assert os.access(os.path.join(BIN, executable), os.X_OK), f"build {executable} first (swift build)"
    root = tempfile.mkdtemp(prefix="lbh-", dir="/tmp")
    home = Home(root)
    home.make("install-user-files")
    yield home
    shutil.rmtree(root, ignore_errors=True)


def test_every_file_is_in_place_with_its_mode(installed):
    home = installed
    for executable in EXECUTABLES:
        assert home.mode(".local", "bin", executable) == 0o755, executable
    assert os.path.isfile(home.path(".local", "bin", "Lightbox_Surface.resources", "Web", "surface.js"))
    for unit in UNITS:
        assert home.mode(".local", "share", "systemd", "user", unit) == 0o644, unit
        with open(home.path(".local", "share", "systemd", "user", unit)) as handle:
            text = handle.read()
        assert "@" not in text.replace("desktop.lightbox", ""), f"{unit} has a placeholder left"
        if unit.endswith(".service"):
            assert f"ExecStart=%h/.local/bin/{unit[:-len('.service')]}" in text, unit
            assert "LIGHTBOX_DATA=%h/.local/share/lightbox" in text and "ipc://%t/lightbox/auth.sock" in text, unit
            assert "PartOf=lightbox.target" in text and "RuntimeDirectory=lightbox" in text, unit
    with open(home.path(".local", "share", "systemd", "user", "lightbox.target")) as handle:
        target = handle.read()
    assert all(name + ".service" in target for name in SERVICES) and "WantedBy=default.target" in target

    # D-Bus starts the portal through the user manager; the portal files for xdg-desktop-portal.
    activation = home.path(".local", "share", "dbus-1", "services", PORTAL_SERVICE_FILE)
    assert home.mode(".local", "share", "dbus-1", "services", PORTAL_SERVICE_FILE) == 0o644
    with open(activation) as handle:
        lines = handle.read().splitlines()
    assert "SystemdService=lightbox-portal.service" in lines
    assert f"Exec={home.home}/.local/bin/lightbox-portal --fallback gtk" in lines
    assert home.mode(".local", "share", "xdg-desktop-portal", "portals", "lightbox.portal") == 0o644
    assert home.mode(".local", "share", "xdg-desktop-portal", "lightbox-portals.conf") == 0o644

    # Private: the data folder and the person's settings, whose library is their Pictures folder.
    assert home.mode(".local", "share", "lightbox") == 0o700
    assert home.mode(".config", "lightbox", "lightbox.env") == 0o600
    assert f"LIGHTBOX_PICKER_WATCH={home.pictures}\n" in open(home.path(".config", "lightbox", "lightbox.env")).read()


@pytest.mark.parametrize("unit", UNITS)
def test_systemd_analyze_verifies_the_unit(installed, unit):
    """`systemd-analyze --user verify` runs its own manager in test mode: it needs no running user
    manager or bus, only XDG_RUNTIME_DIR (for %t) and HOME (for %h), which point into the temporary home.
    It loads the unit with its dependencies from the user search path, checks every setting and that
    ExecStart's program exists and is executable."""
    analyzer = shutil.which("systemd-analyze")
    assert analyzer, "systemd-analyze is missing; run deploy/install-deps.sh"
    path = installed.path(".local", "share", "systemd", "user", unit)
    run = subprocess.run([analyzer, "--user", "verify", "--man=no", path], capture_output=True, text=True, timeout=120,
                         env=installed.environment)
    assert run.returncode == 0 and run.stdout + run.stderr == "", run.stdout + run.stderr


# MARK: The units' command lines, run


def unit_settings(path):
    """Key → values of a unit file's [Service] section (repeated keys keep every value)."""
    settings = {}
    section = None
    with open(path) as handle:
        for line in handle:
            line = line.strip()
            if line.startswith("["):
                section = line
            elif line and not line.startswith("#") and section == "[Service]":
                key, _, value = line.partition("=")
                settings.setdefault(key, []).append(value)
    return settings


def expand_specifiers(text, home):
    specifiers = {"h": home.home, "t": home.runtime, "E": home.config_home, "%": "%"}
    out, index = [], 0
    while index < len(text):
        if text[index] == "%":
            letter = text[index + 1]
            assert letter in specifiers, f"the test does not expand %{letter}"
            out.append(specifiers[letter])
            index += 2
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


def unit_command(home, name):
    """The command line and environment the user manager would start `name` with."""
    settings = unit_settings(home.path(".local", "share", "systemd", "user", name + ".service"))
    environment = dict(home.environment)
    for line in settings.get("Environment", []):
        for assignment in shlex.split(expand_specifiers(line, home)):
            key, _, value = assignment.partition("=")
            environment[key] = value
    for line in settings.get("EnvironmentFile", []):
        path = expand_specifiers(line.lstrip("-"), home)
        if os.path.exists(path):
            with open(path) as handle:
                for entry in handle:
                    entry = entry.strip()
                    if entry and not entry.startswith("#"):
                        key, _, value = entry.partition("=")
                        environment[key] = value
    [exec_start] = settings["ExecStart"]
    words = []
    for word in expand_specifiers(exec_start, home).split():
        if word.startswith("${") and word.endswith("}"):
            word = environment[word[2:-1]]
        words.append(word)
    return words, environment


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(condition, processes, what, timeout=120):
    deadline = time.monotonic() + timeout
    while not condition():
        for name, process, log in processes:
            assert process.poll() is None, f"{name} exited before {what}:\n" + open(log, errors="replace").read()[-3000:]
        assert time.monotonic() < deadline, f"no {what} in time"
        time.sleep(0.1)


def test_the_installed_units_start_and_talk_over_ipc(installed):
    home = installed
    port = free_port()
    # The person's settings, as they would edit them: another port, and no window opened on this machine.
    with open(home.path(".config", "lightbox", "lightbox.env"), "a") as handle:
        handle.write(f"LIGHTBOX_SURFACE_LISTEN=127.0.0.1:{port}\nLIGHTBOX_SURFACE_OPEN_COMMAND=none\n")
    # What RuntimeDirectory=lightbox makes before the first of them starts.
    sockets = os.path.join(home.runtime, "lightbox")
    os.makedirs(sockets, mode=0o700, exist_ok=True)
    # A photo in the Pictures folder, for a picker that follows it (--watch; LIGHTBOX_PICKER_WATCH from lightbox.env).
    picker = os.path.join(home.home, ".local", "bin", "lightbox-picker")
    follows_folders = "--watch" in subprocess.run([picker, "--help"], capture_output=True, text=True, timeout=60).stdout
    shutil.copy(os.path.join(REPO, "Samples", "library", "harbour.jpg"), home.pictures)
    data = os.path.join(home.data_home, "lightbox")
    processes = []
    try:
        for name in ("lightbox-auth", "lightbox-picker", "lightbox-surface"):
            command, environment = unit_command(home, name)
            assert command[0] == os.path.join(home.home, ".local", "bin", name)
            log = os.path.join(home.root, name + ".log")
            with open(log, "wb") as output:
                process = subprocess.Popen(command, env=environment, stdout=output, stderr=subprocess.STDOUT,
                                           preexec_fn=lambda: os.umask(0o077))  # UMask= in the units
            processes.append((name, process, log))
            # Ordered as After= orders them: each is ready before the next starts.
            ready = {"lightbox-auth": os.path.join(sockets, "auth.sock"), "lightbox-picker": os.path.join(sockets, "picker.sock"),
                     "lightbox-surface": os.path.join(data, "surface", "login-url")}[name]
            wait_for(lambda: os.path.exists(ready), processes, f"{ready} from {name}")
        assert environment["LIGHTBOX_AUTH_ENDPOINT"] == f"ipc://{sockets}/auth.sock"
        assert environment["LIGHTBOX_DATA"] == data

        # The CLI and the Python client reach both services over the ipc sockets, with the keys in the data folder.
        def lightbox(*arguments):
            run = subprocess.run([os.path.join(home.home, ".local", "bin", "lightbox"), *arguments], capture_output=True,
                                 text=True, timeout=120, env=environment)
            assert run.returncode == 0, run.stderr
            return run.stdout
        lightbox("app", "register", "org.example.Viewer", "--name", "Example Viewer")
        directory = lb.ServiceDirectory(data, environment["LIGHTBOX_AUTH_ENDPOINT"], environment["LIGHTBOX_PICKER_ENDPOINT"])
        with directory.picker_as_owner() as connection:
            owner = lb.OwnerSurface(connection)
            if follows_folders:
                wait_for(lambda: [asset.file_name for asset in owner.assets()] == ["harbour.jpg"], processes,
                         "the Pictures folder's photo in the library")
            else:
                assert owner.assets() == []
        with directory.auth_as_app("org.example.Viewer") as connection:
            assert lb.PhotoLibrary(connection).authorization_status() == lb.AuthorizationStatus.NOT_DETERMINED

        # The surface, connected to both, serves on the person's port; its login address works.
        login = urllib.parse.urlparse(lightbox("user", "login").strip())
        assert login.netloc == f"127.0.0.1:{port}"
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", login.path + "?" + login.query)
        response = connection.getresponse()
        assert response.status == 303
        connection.close()

        # The portal's unit, on a session bus of its own: it reaches both services and takes its name.
        command, portal_environment = unit_command(home, "lightbox-portal")
        assert command[1:] == ["--fallback", "gtk"]
        up = ('"$@" & portal=$!; gdbus wait --session --timeout 60 org.freedesktop.impl.portal.desktop.lightbox'
              ' && echo "on the bus"; kill -TERM $portal; wait $portal')
        run = subprocess.run(["dbus-run-session", "--", "sh", "-c", up, "sh", *command], capture_output=True, text=True,
                             timeout=120, env=portal_environment, preexec_fn=lambda: os.umask(0o077))
        assert run.returncode == 0 and "on the bus" in run.stdout, run.stdout + run.stderr
        assert os.path.exists(os.path.join(data, "keys", "portal.key"))

        # Private on disk: the data folder and the sockets' folder.
        assert stat.S_IMODE(os.stat(data).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(os.path.join(data, "keys", "owner.key")).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(sockets).st_mode) == 0o700
    finally:
        for _, process, _ in reversed(processes):
            process.send_signal(signal.SIGTERM)
        for name, process, log in processes:
            try:
                assert process.wait(timeout=30) == 0, f"{name} did not stop cleanly:\n" + open(log, errors="replace").read()[-3000:]
            except subprocess.TimeoutExpired:
                process.kill()
                raise


def test_uninstall_user_keeps_the_data_unless_asked():
    root = tempfile.mkdtemp(prefix="lbh-", dir="/tmp")
    try:
        home = Home(root)
        home.make("install-user-files")
        with open(home.path(".local", "share", "lightbox", "kept"), "w") as handle:
            handle.write("the person's data\n")
        home.make("uninstall-user")
        for executable in EXECUTABLES:
            assert not os.path.exists(home.path(".local", "bin", executable))
        assert not os.path.exists(home.path(".local", "bin", "Lightbox_Surface.resources"))
        for unit in UNITS:
            assert not os.path.exists(home.path(".local", "share", "systemd", "user", unit))
        assert not os.path.exists(home.path(".local", "share", "dbus-1", "services", PORTAL_SERVICE_FILE))
        assert not os.path.exists(home.path(".local", "share", "xdg-desktop-portal", "portals", "lightbox.portal"))
        assert os.path.exists(home.path(".local", "share", "lightbox", "kept"))
        assert os.path.exists(home.path(".config", "lightbox", "lightbox.env"))
        home.make("uninstall-user", "PURGE=yes")
        assert not os.path.exists(home.path(".local", "share", "lightbox"))
        assert not os.path.exists(home.path(".config", "lightbox", "lightbox.env"))
    finally:
        shutil.rmtree(root, ignore_errors=True)
