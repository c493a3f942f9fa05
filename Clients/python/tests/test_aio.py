"""The asyncio API (lightbox.aio) against the real services: the same operations as the blocking
classes, several at once on one connection."""

import asyncio
import hashlib
import os

import pytest
import zmq

import lightbox as lb
from conftest import APP, SAMPLES
from lightbox.aio import AsyncConnection, AsyncPhotoLibrary, AsyncPhotoPicker, AsyncServiceDirectory

USAGE = "To show your photos in the tests."


def directory_of(services):
    return AsyncServiceDirectory(services.data, services.auth_endpoint, services.picker_endpoint)


def sha256_of(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def test_ping_both_services_and_many_requests_at_once(services):
    async def main():
        directory = directory_of(services)
        async with directory.picker_as_app(APP) as picker, directory.auth_as_app(APP) as auth:
            pings = await asyncio.gather(picker.ping(), auth.ping(), *(picker.request("service.whoami") for _ in range(20)))
        return pings

    pings = asyncio.run(main())
    assert pings[0] == {"service": "picker", "principal": f"app:{APP}"}
    assert pings[1] == {"service": "auth", "principal": f"app:{APP}"}
    assert pings[2:] == [pings[0]] * 20


def test_unregistered_key_times_out_and_errors_raise(services):
    public, secret = zmq.curve_keypair()
    stranger = lb.KeyPair(public.decode("ascii"), secret.decode("ascii"))

    async def main():
        directory = directory_of(services)
        async with directory.connect_to_picker(stranger, timeout=1.0) as connection:
            with pytest.raises(lb.LightboxError) as timed_out:
                await connection.ping()
        async with directory.picker_as_app(APP) as connection:
            with pytest.raises(lb.LightboxError) as unknown:
                await connection.request("picker.nonsense")
            # The connection goes on serving after an error.
            assert (await connection.ping())["principal"] == f"app:{APP}"
        return timed_out.value.code, unknown.value.code

    assert asyncio.run(main()) == ("timeout", "unknownOp")


def test_pick_and_load(services, owner_thread, tmp_path):
    owner = owner_thread(files=["harbour.jpg", "clip.mp4"])

    async def main():
        async with directory_of(services).picker_as_app(APP) as connection:
            started = []
            results = await AsyncPhotoPicker(connection).pick(selection_limit=2, ordered=True, photo_library=True, location="precise",
                                                              on_started=started.append, timeout=60)
            assert len(started) == 1
            photo, movie = (result.item_provider for result in results)
            calls = []
            # Both loads at once on one connection, each with its own credit window.
            data, completion = await asyncio.gather(
                photo.load_data(chunk_size=4096, credit=2, progress=lambda done, total: calls.append(done)),
                movie.load_file(tmp_path / movie.file_name(), chunk_size=4096, credit=3))
            description = await photo.describe()
            return results, data, completion, description, calls

    results, data, completion, description, calls = asyncio.run(main())
    answered = owner.join_and_check()
    assert answered.app == APP
    assert [result.asset_identifier for result in results] == owner.chosen
    assert isinstance(results[0].item_provider, lb.aio.AsyncItemProvider)
    assert hashlib.sha256(data).hexdigest() == sha256_of(os.path.join(SAMPLES, "harbour.jpg"))
    assert calls == sorted(calls) and calls[-1] == len(data)
    assert completion.sha256 == sha256_of(os.path.join(SAMPLES, "clip.mp4")) == sha256_of(tmp_path / "clip.mp4")
    assert description["fileSize"] == len(data)
    assert os.listdir(tmp_path) == ["clip.mp4"]


def test_library_authorization_fetch_and_watch(services, owner_settings, prompt_thread):
    app = services.register_app("py-async", usage_read_write=USAGE)
    ids = services.sample_identifiers()
    first, second = ids["harbour.jpg"], ids["sunset.png"]
    owner = prompt_thread(app, "limited", selection=[first])

    async def main():
        async with directory_of(services).photo_library(app) as library:
            assert isinstance(library, AsyncPhotoLibrary)
            assert await library.authorization_status(lb.AccessLevel.READ_WRITE) == "notDetermined"
            shown = []
            status = await library.request_authorization("readWrite", on_prompt=shown.append, timeout=60)
            assert status is lb.AuthorizationStatus.LIMITED and len(shown) == 1
            fetched, (page, total), legacy = await asyncio.gather(
                library.fetch_assets([second, first]), library.query(), library.authorization_status())
            assert [asset.identifier for asset in fetched] == [first]
            assert ([asset.identifier for asset in page], total, legacy) == ([first], 1, "authorized")

            changes = await library.watch(since=0, timeout=20)
            replayed = await changes.__anext__()
            token = await asyncio.to_thread(lambda: owner_settings.set_access(app, read_write="none").token)
            async for change in changes:
                if change.token == token:
                    break
            await changes.aclose()
            history, latest = await library.changes(0)
            # The connection goes on serving after the watch was abandoned.
            return replayed, change, history, latest, await library.authorization_status("readWrite")

    replayed, last, history, latest, status = asyncio.run(main())
    owner.join_and_check()
    assert (replayed.status, replayed.added) == ("limited", [first])
    assert (last.status, last.level) == ("denied", "readWrite")
    assert history[-1] == last and latest == last.token
    assert status == "denied"


def test_connection_can_be_built_directly(services):
    async def main():
        key_pair = services.directory.owner_key_pair()
        connection = AsyncConnection(services.picker_endpoint, services.directory.service_public_key("picker"), key_pair)
        try:
            return await connection.ping(timeout=5)
        finally:
            connection.close()

    assert asyncio.run(main()) == {"service": "picker", "principal": "owner"}
