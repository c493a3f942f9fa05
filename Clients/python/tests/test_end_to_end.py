"""The Python client against real lightbox-auth and lightbox-picker processes (see conftest.py)."""

import contextlib
import hashlib
import json
import os
import subprocess
import threading
import time

import pytest
import zmq

import lightbox as lb
from conftest import APP, SAMPLES, binary, console_script, running_services
from lightbox.protocol import build_request, encode_header, parse_reply


def sha256_of(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def recording():
    calls = []
    return calls, lambda completed, total: calls.append((completed, total))


def assert_progress(calls, size):
    assert calls, "the progress callback was never called"
    completed = [done for done, _ in calls]
    assert completed == sorted(completed) and len(set(completed)) == len(completed), calls
    assert all(total == size for _, total in calls), calls
    assert calls[-1] == (size, size)


def test_ping_and_whoami(app_connection, owner_connection):
    assert app_connection.ping() == {"service": "picker", "principal": f"app:{APP}"}
    assert owner_connection.request("service.whoami") == {"service": "picker", "principal": "owner"}


def test_owner_chooses_and_app_loads(services, app_connection, owner_thread, owner_settings, tmp_path):
    newest = owner_settings.audit(limit=1)
    audited_before = newest[0].id if newest else 0
    owner = owner_thread(files=["harbour.jpg"])
    started = []
    results = lb.PhotoPicker(app_connection).pick(filter="images", photo_library=True, on_started=started.append,
                                                  timeout=60, location="precise")
    answered = owner.join_and_check()
    assert started == [answered.pick]
    assert answered.configuration["filter"] == "images"

    assert len(results) == 1
    result = results[0]
    assert result.asset_identifier == owner.chosen[0]
    provider = result.item_provider
    # The credit stream itself (over ipc the client would take a descriptor: test_descriptor_delivery).
    provider.delivery = "stream"
    assert provider.suggested_name == "harbour"
    assert provider.registered_type_identifiers == ["public.jpeg"]
    assert provider.token.startswith("lbt_")
    assert provider.has_item_conforming_to("public.image")
    assert provider.has_item_conforming_to("public.data")
    assert not provider.has_item_conforming_to("public.movie")

    original = os.path.join(SAMPLES, "harbour.jpg")
    size = os.path.getsize(original)
    expected = sha256_of(original)

    description = provider.describe()
    assert description["fileSize"] == size
    assert description["properties"]["PixelWidth"] == 640

    # In memory, with small chunks and a small window so stream.credit grants are needed.
    calls, progress = recording()
    data = provider.load_data(progress=progress, chunk_size=4096, credit=2)
    assert hashlib.sha256(data).hexdigest() == expected
    assert len(calls) == -(-size // 4096)
    assert_progress(calls, size)

    # To a file, with the defaults, replacing a file already there.
    destination = tmp_path / "harbour.jpg"
    destination.write_bytes(b"old contents")
    calls, progress = recording()
    completion = provider.load_file(destination, type="public.image", progress=progress)
    assert completion.sha256 == expected and completion.bytes == size
    assert completion.type == "public.jpeg" and completion.suggested_name == "harbour"
    assert sha256_of(destination) == expected
    assert_progress(calls, size)
    assert sorted(os.listdir(tmp_path)) == ["harbour.jpg"], "a partial file was left behind"

    # The window larger than the file, and 64 small chunks through a window of 8.
    calls, progress = recording()
    assert hashlib.sha256(provider.load_data(progress=progress, chunk_size=4096)).hexdigest() == expected
    assert_progress(calls, size)

    # The owner's audit trail has the pick, the describe and each load with the bytes it delivered
    # (identical lines recorded together are one line with a count: expanded here).
    def audited(operation, count):
        for _ in range(50):
            entries = [entry for entry in owner_settings.audit(app=APP, operation=operation) if entry.id > audited_before]
            entries = [entry for entry in entries for _ in range(entry.times)]
            if len(entries) >= count:
                return entries
            time.sleep(0.1)
        return entries

    loads = audited("load", 3)
    assert [(entry.outcome, entry.bytes, entry.asset) for entry in loads] == [("completed", size, result.asset_identifier)] * 3
    assert [entry.outcome for entry in audited("pick", 2)] == ["delivered", "waiting"]
    assert [entry.outcome for entry in audited("describe", 1)] == ["ok"]


def test_load_errors_and_revoke(services, app_connection, owner_connection, owner_thread, tmp_path):
    owner = owner_thread(files=["clip.mp4"])
    results = lb.PhotoPicker(app_connection).pick(timeout=60)
    owner.join_and_check()
    provider = results[0].item_provider
    assert results[0].asset_identifier is None  # not a photo-library pick
    assert provider.has_item_conforming_to("public.movie")
    assert not provider.has_item_conforming_to("public.image")

    with pytest.raises(lb.LightboxError) as raised:
        provider.load_data(type="public.image")
    assert raised.value.code == "typeNotRegistered"

    destination = tmp_path / "clip.mp4"
    completion = provider.load_file(destination, type="public.movie", chunk_size=4096, credit=1)
    assert completion.sha256 == sha256_of(os.path.join(SAMPLES, "clip.mp4"))

    # A token only works for the app it was issued to: the owner is not an app.
    stranger = lb.ItemProvider(provider.token, provider.registered_type_identifiers, connection=owner_connection)
    with pytest.raises(lb.LightboxError) as raised:
        stranger.describe()
    assert raised.value.code == "notAuthorized"

    assert lb.OwnerSurface(owner_connection).revoke(token=provider.token) == 1
    with pytest.raises(lb.LightboxError) as raised:
        provider.load_file(tmp_path / "again.mp4")
    assert raised.value.code == "tokenRevoked"
    assert not (tmp_path / "again.mp4").exists()
    assert sorted(os.listdir(tmp_path)) == ["clip.mp4"], "a partial file was left behind"

    with pytest.raises(lb.LightboxError) as raised:
        lb.ItemProvider("lbt_nonsense", ["public.jpeg"], connection=app_connection).describe()
    assert raised.value.code == "tokenUnknown"


def test_cancel_gives_empty_results(services, app_connection, owner_thread):
    owner = owner_thread(cancel=True)
    results = lb.PhotoPicker(app_connection).pick(selection_limit=0, timeout=60)
    owner.join_and_check()
    assert results == []


def test_owner_operations(services, app_connection, owner_connection):
    owner = lb.OwnerSurface(owner_connection)
    assets = owner.assets()
    names = sorted(asset.file_name for asset in assets)
    samples = sorted(os.listdir(SAMPLES))
    # The library is shared: authorization tests add assets to it, always named py-….
    assert [name for name in names if not name.startswith("py-")] == samples
    assert owner.pending() == []
    with pytest.raises(lb.LightboxError) as raised:
        owner.choose("pick-doesnotexist", [assets[0].identifier])
    assert raised.value.code == "notFound"
    with pytest.raises(lb.LightboxError) as raised:
        owner.cancel("pick-doesnotexist")
    assert raised.value.code == "notFound"
    # An app may not use the owner's operations.
    with pytest.raises(lb.LightboxError) as raised:
        lb.OwnerSurface(app_connection).assets()
    assert raised.value.code == "notAuthorized"
    # Nothing was delivered to this app yet in this test, but revoking by app is always allowed.
    assert owner.revoke(app="nobody") == 0


def test_pick_console_script(services, tmp_path):
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"action": "choose", "strategy": "named", "files": ["sunset.png", "harbour.jpg"],
                                  "location": "precise"}))
    owner = subprocess.Popen(
        [binary("lightbox"), "user", "auto", "--policy", str(policy), "--max-picks", "1", *services.endpoint_arguments()],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out_dir = tmp_path / "out"
    try:
        script = subprocess.run(
            [console_script("lightbox-pick"), "--app", APP, "--limit", "2",
             "--filter", "images", "--out-dir", str(out_dir), "--location", "precise", *services.endpoint_arguments()],
            capture_output=True, text=True, timeout=90)
        owner_out, owner_err = owner.communicate(timeout=30)
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()
    assert script.returncode == 0, script.stderr
    assert owner.returncode == 0, owner_err
    assert "chose 2" in owner_out

    loaded = {}
    for line in script.stdout.splitlines():
        fields = line.split("\t")
        if len(fields) == 3 and fields[0].startswith(str(out_dir)):
            loaded[os.path.basename(fields[0])] = (int(fields[1]), fields[2])
    assert set(loaded) == {"harbour.jpg", "sunset.png"}, script.stdout
    for name, (size, digest) in loaded.items():
        original = os.path.join(SAMPLES, name)
        assert size == os.path.getsize(original)
        assert digest == sha256_of(original) == sha256_of(out_dir / name)
    assert sorted(os.listdir(out_dir)) == ["harbour.jpg", "sunset.png"]
    assert "100%" in script.stderr


def test_pick_console_script_reports_errors_in_one_line(services, tmp_path):
    script = subprocess.run(
        [console_script("lightbox-pick"), "--app", "nosuchapp",
         "--out-dir", str(tmp_path), *services.endpoint_arguments()],
        capture_output=True, text=True, timeout=30)
    assert script.returncode == 1
    assert script.stderr.count("\n") == 1 and "notFound" in script.stderr, script.stderr


def test_unregistered_key_times_out(services):
    public, secret = zmq.curve_keypair()
    stranger = lb.KeyPair(public.decode("ascii"), secret.decode("ascii"))
    with services.directory.connect_to_picker(stranger, timeout=1.5) as connection:
        with pytest.raises(lb.LightboxError) as raised:
            connection.ping()
    assert raised.value.code == "timeout"


@contextlib.contextmanager
def raw_dealer(services, key_pair):
    """A bare CURVE DEALER socket to the picker, for sending frames the client would never build."""
    socket = zmq.Context.instance().socket(zmq.DEALER)
    try:
        socket.setsockopt(zmq.LINGER, 0)
        socket.curve_secretkey = key_pair.secret.encode()
        socket.curve_publickey = key_pair.public.encode()
        socket.curve_serverkey = services.directory.service_public_key("picker").encode()
        socket.connect(services.picker_endpoint)
        yield socket
    finally:
        socket.close(linger=0)


def test_malformed_header_gets_bad_request(services):
    with raw_dealer(services, services.directory.app_key_pair(APP)) as socket:
        socket.send(b"{not json")
        assert socket.poll(10_000, zmq.POLLIN), "no reply to a malformed header"
        reply = parse_reply(socket.recv_multipart())
        assert reply.status == "error"
        assert reply.error().code == "badRequest"
        assert reply.error().message

        socket.send(encode_header(build_request("service.ping", {}, id="after-garbage")))
        assert socket.poll(10_000, zmq.POLLIN), "no reply to the ping after a malformed header"
        reply = parse_reply(socket.recv_multipart())
        assert (reply.id, reply.status) == ("after-garbage", "ok")
        assert reply.body["principal"] == f"app:{APP}"


def test_unsupported_version_and_unknown_op(services, app_connection):
    with pytest.raises(lb.LightboxError) as raised:
        app_connection.request("picker.nonsense", {})
    assert raised.value.code == "unknownOp"
    with raw_dealer(services, services.directory.app_key_pair(APP)) as socket:
        socket.send(json.dumps({"v": 2, "id": "v2-request", "op": "service.ping", "body": {}}).encode())
        assert socket.poll(10_000, zmq.POLLIN)
        reply = parse_reply(socket.recv_multipart())
    assert (reply.id, reply.status, reply.error().code) == ("v2-request", "error", "unsupportedVersion")


def test_shutdown_cancels_a_pending_pick_and_exits_cleanly():
    with running_services() as private:
        connection = private.directory.picker_as_app(APP)
        try:
            started = threading.Event()
            outcome = []

            def pick():
                try:
                    outcome.append(lb.PhotoPicker(connection).pick(on_started=lambda _: started.set(), timeout=30))
                except lb.LightboxError as error:
                    outcome.append(error)

            picker = threading.Thread(target=pick, daemon=True)
            picker.start()
            assert started.wait(10), "the pick never started"
            with private.directory.picker_as_owner() as owner_connection:
                assert [p.app for p in lb.OwnerSurface(owner_connection).pending()] == [APP]
            statuses = private.stop()  # SIGTERM while the pick waits for the owner
            picker.join(30)
            assert statuses == {"lightbox-picker": 0, "lightbox-auth": 0}
            assert len(outcome) == 1 and isinstance(outcome[0], lb.LightboxError), outcome
            assert outcome[0].code == "cancelled"
        finally:
            connection.close()
