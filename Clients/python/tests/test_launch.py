"""A launch is one process of the app: the client says its launch id (``service.hello``) on every
connection, so a limited app's "Select More Photos…" alert comes once per process, not once per
connection. Unit checks of the id, then the real services: two connections of this process give one
alert, a second process another."""

import json
import os
import re
import subprocess
import sys

import pytest

import lightbox as lb
from lightbox.transport import hello_frame, process_launch


def test_the_launch_is_one_per_process_and_new_after_fork():
    launch = process_launch()
    assert re.fullmatch(r"[0-9a-f]{32}", launch)
    assert process_launch() == launch
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # the child: another process, another launch
        os.write(writing, process_launch().encode())
        os._exit(0)
    os.close(writing)
    assert os.waitpid(child, 0)[1] == 0
    with os.fdopen(reading) as pipe:
        theirs = pipe.read()
    assert re.fullmatch(r"[0-9a-f]{32}", theirs) and theirs != launch
    assert process_launch() == launch


def test_hello_is_a_request_with_the_launch():
    frame = json.loads(hello_frame("abc"))
    assert (frame["v"], frame["op"], frame["body"]) == (1, "service.hello", {"launch": "abc"})


def test_a_connection_keeps_its_first_launch(services):
    key = services.directory.app_key_pair("demo")
    with lb.Connection(services.picker_endpoint, services.directory.service_public_key("picker"), key, 10.0,
                       launch="first-launch") as connection:
        # The first request goes after the connection's own hello; saying the same again is fine.
        assert connection.request("service.hello", {"launch": "first-launch"}) == {}
        for other in ("second-launch", "", "x" * 65, "a b"):
            with pytest.raises(lb.LightboxError) as refused:
                connection.request("service.hello", {"launch": other})
            assert refused.value.code == "badRequest"
        assert connection.request("service.whoami", {})["principal"] == "app:demo"


SCRIPT = """
import sys
import lightbox as lb
data, auth, picker, app = sys.argv[1:5]
directory = lb.ServiceDirectory(data, auth, picker)
for _ in range(2):  # two connections to each service, one after the other, in one process
    library = directory.photo_library(app)
    print(len(library.fetch_assets(sys.argv[5:])), flush=True)
    sys.stdin.readline()
"""


def test_one_alert_per_process(services, owner_settings):
    app = services.register_app("py-launch", usage_read_write="To test launches.")
    barrier = services.register_app("py-launch-barrier", usage_read_write="To order the test.")
    everything = list(services.sample_identifiers().values())
    for each in (app, barrier):
        owner_settings.set_access(each, read_write="limited", selection=everything[:1])

    def alerts(of):
        return [prompt for prompt in owner_settings.prompts() if prompt.app == of and prompt.kind == "limitedLibrary"]

    def next_alert(of, wait_ms=10_000):
        for _ in range(20):
            found = [prompt for prompt in owner_settings.prompts(wait_ms=wait_ms // 20) if prompt.app == of
                     and prompt.kind == "limitedLibrary"]
            if found:
                return found[0]
        raise AssertionError(f"no alert for {of}")

    def alert_open_after_barrier(of):
        # Another process of another app raises its own alert: the picker's notices before it are in.
        process = start(barrier)
        assert process.stdout.readline().strip() == "1"
        found = next_alert(barrier)
        assert found.on_launch
        open_ = bool(alerts(of))
        owner_settings.answer(found, "done", found.selection)
        process.kill()
        process.communicate()
        return open_

    def start(which):
        return subprocess.Popen([sys.executable, "-c", SCRIPT, services.data, services.auth_endpoint, services.picker_endpoint,
                                 which, *everything], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    first = start(app)
    try:
        assert first.stdout.readline().strip() == "1"
        alert = next_alert(app)
        assert alert.on_launch and alert.selection == everything[:1]
        owner_settings.answer(alert, "done", alert.selection)
        # The same process's second pair of connections: no alert.
        first.stdin.write("\n")
        first.stdin.flush()
        assert first.stdout.readline().strip() == "1"
        assert not alert_open_after_barrier(app)
    finally:
        first.kill()
        first.communicate()

    # Another process is another launch.
    second = start(app)
    try:
        assert second.stdout.readline().strip() == "1"
        alert = next_alert(app)
        owner_settings.answer(alert, "done", alert.selection)
    finally:
        second.kill()
        second.communicate()
