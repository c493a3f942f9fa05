"""Two real pickers of one library behind one client (the Freelance pattern): the picker in use is
SIGKILLed and reads go on at the other; a write in flight is not sent twice; a load broken
mid-stream finishes at the other picker; with both dead, ``timeout`` names them.

The second picker's data folder is a copy of the first's (keys and catalog) made while the first
was stopped, so both serve the same assets and tokens.
"""

import asyncio
import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import pytest

import lightbox as lb
from lightbox.aio import AsyncServiceDirectory
from lightbox.failover import AsyncFailoverConnection
from conftest import SAMPLES, OwnerThread, binary, start_services

APP = "py-failover"


def picker_arguments(data, endpoint, services):
    return ["--data", data, "--endpoint", endpoint, "--auth-endpoint", services.auth_endpoint, "--import", SAMPLES,
            "--log-level", "warning"]


def wait_for_ping(directory, process, deadline):
    while True:
        assert process.poll() is None, f"a picker exited with {process.returncode}"
        try:
            with directory.connect(directory.picker_endpoints[-1], directory.service_public_key("picker"),
                                   directory.owner_key_pair(), 1.0) as connection:
                connection.ping()
                return
        except lb.LightboxError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@contextlib.contextmanager
def two_pickers(before_copy=lambda services: None):
    """(services, second picker process, its endpoint, what ``before_copy`` returned): the first
    picker, stopped after ``before_copy`` ran and restarted beside a second with a copy of its data."""
    root = tempfile.mkdtemp(prefix="lbfo")
    services = start_services(root, register=(APP,))
    second = None
    try:
        with services.directory.auth_as_owner() as connection:
            lb.OwnerSettings(connection).set_access(APP, read_write="full")
        prepared = before_copy(services)
        first = services.processes["lightbox-picker"]
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=20) == 0
        copy = os.path.join(root, "d2")
        for folder in ("keys", "picker"):
            shutil.copytree(os.path.join(services.data, folder), os.path.join(copy, folder))
        services.start("lightbox-picker", picker_arguments(services.data, services.picker_endpoint, services))
        endpoint = f"ipc://{root}/picker2.sock"
        with open(os.path.join(root, "lightbox-picker-2.log"), "wb") as log:
            second = subprocess.Popen([binary("lightbox-picker"), *picker_arguments(copy, endpoint, services)],
                                      stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        wait_for_ping(services.directory, services.processes["lightbox-picker"], deadline)
        wait_for_ping(lb.ServiceDirectory(services.data, services.auth_endpoint, endpoint), second, deadline)
        yield services, second, endpoint, prepared
    finally:
        if second is not None and second.poll() is None:
            second.kill()
            second.wait()
        services.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pickers():
    with two_pickers() as (services, second, endpoint, _):
        yield services, second, endpoint


def picked_token(services):
    """The token of harbour.jpg, picked by the app and chosen by a scripted owner."""
    owner = OwnerThread(services, app=APP, files=["harbour.jpg"])
    owner.start()
    with services.directory.picker_as_app(APP) as connection:
        results = lb.PhotoPicker(connection).pick(timeout=60, location="precise")
    owner.join_and_check()
    return results[0].item_provider.token


def failover_library(services, second_endpoint):
    """The app's library with its picker connection over both pickers, the first first."""
    directory = lb.ServiceDirectory(services.data, services.auth_endpoint, f"{services.picker_endpoint},{second_endpoint}")
    key_pair = directory.app_key_pair(APP)
    picker = directory.connect_to_picker(key_pair)
    assert isinstance(picker, lb.FailoverConnection)
    picker.failover_time = 1.0
    return lb.PhotoLibrary(directory.connect_to_auth(key_pair), picker), picker


def kill(process):
    process.send_signal(signal.SIGKILL)
    process.wait()


def test_reads_go_on_at_the_other_picker(pickers):
    services, second, second_endpoint = pickers
    library, picker = failover_library(services, second_endpoint)
    with library:
        before, total = library.query(limit=1000)
        assert total > 0 and picker.endpoint == services.picker_endpoint

        kill(services.processes["lightbox-picker"])
        after, _ = library.query(limit=1000)
        assert [asset.identifier for asset in after] == [asset.identifier for asset in before]
        assert picker.endpoint == second_endpoint
        assert picker.dead_endpoints == [services.picker_endpoint]
        assert picker.ping()["service"] == "picker"
        fetched = library.fetch_assets([before[0].identifier])
        assert [asset.identifier for asset in fetched] == [before[0].identifier]

        kill(second)
        with pytest.raises(lb.LightboxError) as failure:
            library.query(limit=1000)
        assert failure.value.code == "timeout"
        assert services.picker_endpoint in failure.value.message and second_endpoint in failure.value.message


def test_a_write_in_flight_is_not_sent_to_the_other_picker(pickers):
    services, _, second_endpoint = pickers
    library, picker = failover_library(services, second_endpoint)
    with library:
        _, before = library.query(limit=1)
        first = services.processes["lightbox-picker"]
        # Stopped, the picker takes the request into its socket but never answers it.
        first.send_signal(signal.SIGSTOP)
        killer = threading.Timer(0.3, kill, (first,))
        killer.start()
        with open(os.path.join(SAMPLES, "harbour.jpg"), "rb") as handle:
            photo = handle.read()
        with pytest.raises(lb.LightboxError) as failure:
            library.create_asset(photo, file_name="py-failover.jpg")
        killer.join()
        assert failure.value.code == "timeout"
        assert "not sent to another picker" in failure.value.message
        assert library.query(limit=1)[1] == before
        assert picker.endpoint == second_endpoint


def test_a_load_broken_mid_stream_finishes_at_the_other_picker(tmp_path):
    with two_pickers(picked_token) as (services, _, second_endpoint, token), \
            failover_library(services, second_endpoint)[0] as library:
        picker = library.picker
        provider = lb.ItemProvider(token, [], connection=picker)
        provider.delivery = "stream"
        first = services.processes["lightbox-picker"]
        calls = []

        def progress(completed, total):
            if not calls:
                kill(first)
            calls.append((completed, total))

        destination = tmp_path / "harbour.jpg"
        completion = provider.load_file(destination, progress=progress, chunk_size=4096, credit=2)
        original = os.path.join(SAMPLES, "harbour.jpg")
        with open(original, "rb") as handle:
            expected = hashlib.sha256(handle.read()).hexdigest()
        assert first.returncode == -signal.SIGKILL
        assert picker.endpoint == second_endpoint
        assert completion.sha256 == expected and completion.bytes == os.path.getsize(original)
        assert hashlib.sha256(destination.read_bytes()).hexdigest() == expected
        completed = [done for done, _ in calls]
        assert completed == sorted(completed) and completed[-1] == os.path.getsize(original)


def test_asyncio_reads_go_on_at_the_other_picker(pickers):
    services, _, second_endpoint = pickers

    async def story():
        directory = AsyncServiceDirectory(services.data, services.auth_endpoint,
                                          f"{services.picker_endpoint},{second_endpoint}")
        async with directory.photo_library(APP) as library:
            picker = library.picker
            assert isinstance(picker, AsyncFailoverConnection)
            picker.failover_time = 1.0
            before, total = await library.query(limit=1000)
            assert total > 0 and picker.endpoint == services.picker_endpoint
            kill(services.processes["lightbox-picker"])
            after, _ = await library.query(limit=1000)
            assert [asset.identifier for asset in after] == [asset.identifier for asset in before]
            assert picker.endpoint == second_endpoint and picker.dead_endpoints == [services.picker_endpoint]

    asyncio.run(story())
