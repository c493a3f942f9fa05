"""The README's Swift app (Clients/swift-example): built as a package of its own that depends on
the repository by path, then run against the real services while a scripted owner picks, answers
its authorization prompt and changes its access."""

import os
import shutil
import subprocess
import threading
import time

from conftest import REPO

EXAMPLE = os.path.join(REPO, "Clients", "swift-example")
SCRATCH = os.path.join(REPO, ".build-example")


def build_example():
    # SwiftPM does not notice files added to a path dependency: build from a clean scratch folder.
    shutil.rmtree(SCRATCH, ignore_errors=True)
    built = subprocess.run(["swift", "build", "--package-path", EXAMPLE, "--scratch-path", SCRATCH],
                           capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stdout + built.stderr
    paths = subprocess.run(["swift", "build", "--package-path", EXAMPLE, "--scratch-path", SCRATCH, "--show-bin-path"],
                           capture_output=True, text=True, timeout=120)
    return os.path.join(paths.stdout.strip(), "PickDemo")


def test_the_readme_swift_app_picks_loads_asks_and_watches(services, owner_thread, prompt_thread, owner_settings):
    binary = build_example()
    app = services.register_app("swiftdemo", usage_read_write="To show your photos")
    identifiers = services.sample_identifiers()
    owner = owner_thread(app=app, files=("harbour.jpg", "portrait.jpg"))
    prompt = prompt_thread(app, "limited", selection=[identifiers["sunset.png"]])

    # Line-buffered, so the test sees each line as the app prints it.
    process = subprocess.Popen(["stdbuf", "-oL", binary, app], env=services.environment(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    lines = []
    watching = threading.Event()

    def read():
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("watching for changes"):
                watching.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert watching.wait(120), "the app did not get to watching:\n" + "\n".join(lines)
        owner.join_and_check()
        prompt.join_and_check()
        # Give the watch a moment to be registered on the service before the change it waits for.
        time.sleep(0.5)
        owner_settings.set_access(app, read_write="none")
        assert process.wait(timeout=30) == 0, process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
    reader.join(5)

    sizes = {name: os.path.getsize(os.path.join(REPO, "Samples", "library", name)) for name in ("harbour.jpg", "portrait.jpg")}
    assert "picked 2 item(s)" in lines
    assert f"loaded harbour: {sizes['harbour.jpg']} bytes" in lines
    assert f"loaded portrait: {sizes['portrait.jpg']} bytes" in lines
    assert any(line.startswith("  loading harbour: 100%") for line in lines)
    assert "read-write access: limited" in lines
    assert "the library shows this app 1 asset(s)" in lines
    assert "access changed: readWrite is now denied" in lines
