"""Delivery by file descriptor (``provider.open`` and the picker's delivery socket) against the
real services on ipc endpoints: the blocking and asyncio item providers receive the file as a
read-only descriptor by themselves, and a ticket is good once."""

import asyncio
import fcntl
import hashlib
import os
import time

import pytest

import lightbox as lb
from conftest import APP, SAMPLES
from lightbox.aio import AsyncServiceDirectory
from lightbox.delivery import DeliveredFile, FileTicket, open_call, receive_descriptor


def sha256_of(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def opens_audited(owner_settings, count, after):
    for _ in range(50):
        entries = [entry for entry in owner_settings.audit(app=APP, operation="open") if entry.id > after]
        entries = [entry for entry in entries for _ in range(entry.times)]
        if len(entries) >= count:
            return entries
        time.sleep(0.1)
    return entries


def test_item_provider_receives_a_read_only_descriptor(services, app_connection, owner_thread, owner_settings, tmp_path):
    newest = owner_settings.audit(limit=1)
    audited_before = newest[0].id if newest else 0
    owner = owner_thread(files=["harbour.jpg"])
    provider = lb.PhotoPicker(app_connection).pick(timeout=60, location="precise")[0].item_provider
    owner.join_and_check()
    original = os.path.join(SAMPLES, "harbour.jpg")
    size = os.path.getsize(original)
    expected = sha256_of(original)

    # The descriptor itself: the original's bytes, read-only.
    ticket = app_connection.run(open_call(provider.token, None, 10))
    assert isinstance(ticket, FileTicket) and ticket.file_size == size and ticket.type == "public.jpeg"
    assert ticket.socket == services.picker_endpoint[len("ipc://"):] + ".delivery"
    descriptor = receive_descriptor(ticket)
    try:
        with DeliveredFile(ticket, descriptor) as delivered:
            assert hashlib.sha256(delivered.read()).hexdigest() == expected
            assert fcntl.fcntl(descriptor, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
            with pytest.raises(OSError):
                os.write(descriptor, b"x")
    finally:
        assert delivered.descriptor == -1  # closed by the with block
    # Used once: presenting it again is refused.
    with pytest.raises(lb.LightboxError) as raised:
        receive_descriptor(ticket)
    assert raised.value.code == "tokenUnknown"

    # The item provider takes the same way by itself, in memory and into a file.
    calls = []
    data = provider.load_data(progress=lambda done, total: calls.append((done, total)))
    assert hashlib.sha256(data).hexdigest() == expected
    assert calls[-1] == (size, size)
    completion = provider.load_file(tmp_path / "harbour.jpg")
    assert completion.sha256 == expected == sha256_of(tmp_path / "harbour.jpg") and completion.bytes == size
    assert completion.type == "public.jpeg" and completion.suggested_name == "harbour"

    async def load_async():
        async with AsyncServiceDirectory(services.data, services.auth_endpoint, services.picker_endpoint).picker_as_app(APP) as picker:
            same = lb.aio.AsyncItemProvider(provider.token, provider.registered_type_identifiers, connection=picker)
            return await same.load_data()
    assert hashlib.sha256(asyncio.run(load_async())).hexdigest() == expected

    # The owner sees which process each descriptor went to.
    opens = opens_audited(owner_settings, 4, audited_before)
    assert [entry.outcome for entry in opens] == [f"delivered to pid {os.getpid()} uid {os.getuid()}"] * 4
    assert all(entry.bytes == size for entry in opens)
