"""Library authorization end to end: PhotoLibrary and OwnerSettings against real services, and the
lightbox-request-access / lightbox-expand-limited console scripts as subprocesses (see conftest.py).

The services are shared by the session, so every test registers its own app id.
"""

import datetime as dt
import os
import re
import selectors
import subprocess
import time

import pytest

import lightbox as lb
from conftest import REPO, SAMPLES, console_script, running_services
from lightbox.protocol import MAXIMUM_CREATE_SIZE

USAGE = "To show your photos in the tests."


def run_script(services, name, *arguments, timeout=90):
    return subprocess.run(
        [console_script(name), *arguments, *services.endpoint_arguments()],
        capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def start_script(services):
    """Starts a client script in the background (killed at the end of the test if still running)."""
    processes = []

    def start(name, *arguments):
        process = subprocess.Popen(
            [console_script(name), *arguments, *services.endpoint_arguments()],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        processes.append(process)
        return process

    yield start
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.communicate()


def waiting_for_prompt(process, within=30.0):
    """The prompt id from the script's `waiting for the owner to answer <prompt>` line."""
    selector = selectors.DefaultSelector()
    selector.register(process.stderr, selectors.EVENT_READ)
    deadline = time.monotonic() + within
    try:
        while time.monotonic() < deadline:
            if selector.select(timeout=deadline - time.monotonic()):
                line = process.stderr.readline()
                match = re.fullmatch(r"waiting for the owner to answer (prompt-\S+)\n", line)
                assert match, f"unexpected line {line!r}; the script exited with {process.poll()}"
                return match.group(1)
        raise AssertionError(f"the script showed no prompt within {within} s")
    finally:
        selector.close()


def finish(process, timeout=30):
    """(exit status, standard output, the rest of standard error)."""
    stdout, stderr = process.communicate(timeout=timeout)
    return process.returncode, stdout, stderr


def open_prompts(owner_settings, app):
    return [prompt for prompt in owner_settings.prompts() if prompt.app == app]


@pytest.fixture
def library_for(services):
    """Opens a PhotoLibrary for an app (both connections); closed at the end of the test."""
    libraries = []

    def open_library(app):
        library = services.directory.photo_library(app)
        libraries.append(library)
        return library

    yield open_library
    for library in libraries:
        library.close()


def test_request_access_console_script_full_then_stored(services, owner_settings, prompt_thread):
    app = services.register_app("py-full", usage_read_write=USAGE)
    owner = prompt_thread(app, "full")
    first = run_script(services, "lightbox-request-access", "--app", app)
    answered = owner.join_and_check()
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines() == ["readWrite: notDetermined", "readWrite: authorized"]
    assert first.stderr.strip() == f"waiting for the owner to answer {answered.prompt}"
    assert (answered.kind, answered.level, answered.usage_description, answered.app_name) == (
        "authorization", "readWrite", USAGE, "Py-full")

    # Asking again answers with the stored status at once: the owner sees no new prompt.
    second = run_script(services, "lightbox-request-access", "--app", app, timeout=30)
    assert second.returncode == 0, second.stderr
    assert second.stdout.splitlines() == ["readWrite: authorized", "readWrite: authorized"]
    assert "waiting" not in second.stderr
    assert open_prompts(owner_settings, app) == []

    access = {entry.app: entry for entry in owner_settings.apps()}[app]
    assert (access.read_write, access.add_only, access.selection_count) == ("authorized", "notDetermined", 0)
    operations = [(entry.operation, entry.outcome) for entry in owner_settings.audit(app=app)]
    assert ("prompt:readWrite", "authorized") in operations
    assert ("request:readWrite", "stored:authorized") in operations
    assert operations[0] == ("request:readWrite", "stored:authorized"), "the newest entry comes first"
    assert len(owner_settings.audit(app=app, limit=2)) == 2
    assert owner_settings.audit(app=app, limit=2) == owner_settings.audit(app=app)[:2]
    # Paged: the pages together are the whole trail, newest first.
    whole = owner_settings.audit(app=app)
    paged, before = [], None
    while True:
        page = owner_settings.audit_page(app=app, limit=1, before=before)
        paged += page.entries
        if page.next is None:
            break
        before = page.next
    assert paged == whole and [entry.id for entry in whole] == sorted((entry.id for entry in whole), reverse=True)
    requests = owner_settings.audit(app=app, operation="request")
    assert requests and all(entry.operation == "request:readWrite" for entry in requests)


def test_missing_usage_description_prompts_nobody(services, owner_settings, library_for):
    app = services.register_app("py-nousage", usage_add_only="To save copies.")
    script = run_script(services, "lightbox-request-access", "--app", app, timeout=30)
    assert script.returncode == 1
    assert script.stderr.count("\n") == 1 and "missingUsageDescription" in script.stderr, script.stderr
    assert "--usage-read-write" in script.stderr
    assert script.stdout.splitlines() == ["readWrite: notDetermined"]
    assert open_prompts(owner_settings, app) == []

    library = library_for(app)
    prompted = []
    with pytest.raises(lb.LightboxError) as raised:
        library.request_authorization("readWrite", on_prompt=prompted.append, timeout=10)
    assert raised.value.code == "missingUsageDescription" and prompted == []
    assert library.authorization_status("readWrite") == "notDetermined"
    assert open_prompts(owner_settings, app) == []
    assert ("request:readWrite", "missingUsageDescription") in [
        (entry.operation, entry.outcome) for entry in owner_settings.audit(app=app, limit=10)]


def test_limited_grant_then_expand_limited_console_script(services, owner_settings, prompt_thread, library_for, start_script):
    app = services.register_app("py-limited", usage_read_write=USAGE)
    ids = services.sample_identifiers()
    first, second = ids["harbour.jpg"], ids["sunset.png"]

    library = library_for(app)
    owner = prompt_thread(app, "limited", selection=[first])
    shown = []
    assert library.request_authorization("readWrite", on_prompt=shown.append, timeout=60) == "limited"
    assert shown == [owner.join_and_check().prompt]
    assert library.authorization_status("readWrite") == "limited"
    assert library.authorization_status() == "authorized", "the legacy status reads limited as authorized"

    # Only the selection is visible, in the order asked; unknown identifiers are simply absent.
    assert [asset.identifier for asset in library.fetch_assets([second, first, "nope/L0/001"])] == [first]
    assets, total = library.query()
    assert ([asset.identifier for asset in assets], total) == ([first], 1)
    with pytest.raises(lb.LightboxError) as raised:
        library.albums()
    assert raised.value.code == "notAuthorized"

    # That first library access in this launch raised the limited-library picker for the owner.
    automatic = [prompt for prompt in open_prompts(owner_settings, app) if prompt.kind == "limitedLibrary"]
    assert len(automatic) == 1 and automatic[0].selection == [first]

    # The app asks for it too, which joins the open prompt; the owner adds one asset and is done.
    script = start_script("lightbox-expand-limited", "--app", app)
    assert waiting_for_prompt(script) == automatic[0].prompt
    owner_settings.answer(automatic[0], "done", automatic[0].selection + [second])
    status, stdout, stderr = finish(script)
    assert status == 0, stderr
    assert stdout.splitlines() == [second]
    assert [asset.identifier for asset in library.fetch_assets([first, second])] == [first, second]
    assert library.query()[1] == 2
    assert {entry.app: entry for entry in owner_settings.apps()}[app].selection_count == 2
    assert open_prompts(owner_settings, app) == []

    # Done again without changes: nothing added.
    script = start_script("lightbox-expand-limited", "--app", app)
    shown = waiting_for_prompt(script)
    prompt = {prompt.prompt: prompt for prompt in open_prompts(owner_settings, app)}[shown]
    # (The service keeps no particular order in a selection.)
    assert (prompt.kind, sorted(prompt.selection)) == ("limitedLibrary", sorted([first, second]))
    owner_settings.answer(prompt, "done", prompt.selection)
    status, stdout, stderr = finish(script)
    assert (status, stdout.splitlines()) == (0, ["nothing added"]), stderr

    # What a limited app adds joins its selection.
    with open(os.path.join(SAMPLES, "harbour.jpg"), "rb") as handle:
        created = library.create_asset(handle.read() + b"\x00py-limited", file_name="py-limited-harbour.jpg")
    assert [asset.identifier for asset in library.fetch_assets([created, first])] == [created, first]
    assert {entry.app: entry for entry in owner_settings.apps()}[app].selection_count == 3
    assert sorted(library.changes(0)[0][-1].added) == [created]


def test_expand_limited_needs_limited_access(services, owner_settings):
    app = services.register_app("py-notlimited", usage_read_write=USAGE)
    for setting, status in ((None, "notDetermined"), ("full", "authorized"), ("none", "denied")):
        if setting is not None:
            assert owner_settings.set_access(app, read_write=setting).access.read_write == status
        script = run_script(services, "lightbox-expand-limited", "--app", app, timeout=30)
        assert script.returncode == 1, script.stdout
        assert script.stderr.count("\n") == 1 and "notLimited" in script.stderr, script.stderr
        assert script.stdout == ""
        assert open_prompts(owner_settings, app) == []


def test_add_only_app_creates_but_sees_nothing(services, owner_settings, prompt_thread, library_for):
    app = services.register_app("py-addonly", usage_add_only="To save edited copies.")
    library = library_for(app)
    owner = prompt_thread(app, "allow")
    assert library.request_authorization("addOnly", timeout=60) == "authorized"
    answered = owner.join_and_check()
    assert (answered.level, answered.usage_description) == ("addOnly", "To save edited copies.")
    assert library.authorization_status("addOnly") == "authorized"
    assert library.authorization_status("readWrite") == "notDetermined"
    assert library.authorization_status() == "notDetermined"

    with open(os.path.join(SAMPLES, "harbour.jpg"), "rb") as handle:
        data = handle.read() + b"\x00py-addonly"  # other bytes, so another identifier
    identifier = library.create_asset(data, file_name="py-edited-harbour.jpg")
    assert library.fetch_assets([identifier]) == []
    assert library.query() == ([], 0)
    with pytest.raises(lb.LightboxError) as raised:
        library.albums()
    assert raised.value.code == "notAuthorized"

    # The owner's catalog has it, under the file name given.
    with services.directory.picker_as_owner() as connection:
        catalog = {asset.identifier: asset for asset in lb.OwnerSurface(connection).assets()}
    assert catalog[identifier].file_name == "py-edited-harbour.jpg"
    assert catalog[identifier].file_size == len(data)
    assert ("create", "created") in [(entry.operation, entry.outcome) for entry in owner_settings.audit(app=app)]

    # The same bytes again are a new asset (creating never hands back an existing one); bytes
    # that are no media are refused.
    again = library.create_asset(data)
    assert again != identifier and again.endswith("/L0/001")
    with pytest.raises(lb.LightboxError) as raised:
        library.create_asset(b"not a photo at all")
    assert raised.value.code == "badMedia"


def test_create_needs_access(services, library_for):
    app = services.register_app("py-noaccess", usage_read_write=USAGE)
    library = library_for(app)
    with open(os.path.join(SAMPLES, "harbour.jpg"), "rb") as handle:
        data = handle.read() + b"\x00py-noaccess"
    with pytest.raises(lb.LightboxError) as raised:
        library.create_asset(data)
    assert raised.value.code == "notAuthorized"
    assert library.fetch_assets(list(services.sample_identifiers().values())) == []
    # Too big for the picker: refused before anything is sent.
    with pytest.raises(lb.LightboxError) as raised:
        library.create_asset(bytes(MAXIMUM_CREATE_SIZE + 1))
    assert raised.value.code == "badRequest"


def test_full_access_library(services, owner_settings, library_for):
    app = services.register_app("py-library", usage_read_write=USAGE)
    assert owner_settings.set_access(app, read_write="full").access.read_write == "authorized"
    library = library_for(app)
    with services.directory.picker_as_owner() as connection:
        catalog = lb.OwnerSurface(connection).assets()  # newest first
    ids = [asset.identifier for asset in catalog]

    assert [asset.identifier for asset in library.fetch_assets(ids[::-1])] == ids[::-1]
    everything, total = library.query(limit=1000)
    assert total == len(ids) and [asset.identifier for asset in everything] == ids
    page, total = library.query(offset=1, limit=2)
    assert total == len(ids) and [asset.identifier for asset in page] == ids[1:3]
    oldest, _ = library.query(oldest_first=True, limit=1000)
    assert [asset.creation_date for asset in oldest] == sorted(asset.creation_date for asset in catalog)

    videos, total = library.query(media_type="video")
    assert total == len(videos) == sum(asset.media_type == "video" for asset in catalog) > 0
    assert all(asset.media_type == "video" for asset in videos)

    dates = sorted({asset.creation_date for asset in catalog})
    middle = dates[len(dates) // 2]
    newer, total = library.query(date_from=middle, limit=1000)
    assert total == sum(asset.creation_date >= middle for asset in catalog)
    assert all(asset.creation_date >= middle for asset in newer)
    older, total = library.query(date_to=middle, limit=1000)
    assert total == sum(asset.creation_date < middle for asset in catalog)

    album = library.create_album("Py Trips")
    assert album.title == "Py Trips" and album.identifier
    assert album in library.albums()
    with pytest.raises(lb.LightboxError) as raised:
        library.create_album("   ")
    assert raised.value.code == "badRequest"


def test_watch_sees_owner_changes_in_order(services, owner_settings, library_for):
    app = services.register_app("py-watch", usage_read_write=USAGE)
    ids = services.sample_identifiers()
    first, second = ids["harbour.jpg"], ids["sunset.png"]
    library = library_for(app)
    assert library.changes(0) == ([], 0)

    tokens = [owner_settings.set_access(app, read_write="limited", selection=[first]).token]
    changes = library.watch(since=0, timeout=20)
    # The change before the watch is replayed from `since`; the rest arrive as they happen.
    replayed = next(changes)
    assert (replayed.token, replayed.level, replayed.status, replayed.added) == (tokens[0], "readWrite", "limited", [first])
    tokens.append(owner_settings.set_access(app, selection=[first, second]).token)
    tokens.append(owner_settings.set_access(app, read_write="full").token)
    tokens.append(owner_settings.set_access(app, add_only="allow").token)
    tokens.append(owner_settings.set_access(app, reset=True).token)
    tokens.append(owner_settings.set_access(app, read_write="none").token)
    seen = [replayed]
    for change in changes:
        seen.append(change)
        if change.token == tokens[-1]:
            break
    changes.close()

    # (Selections have no particular order, so neither have added and removed.)
    assert [(change.level, change.status, sorted(change.added), sorted(change.removed)) for change in seen] == [
        ("readWrite", "limited", [first], []),
        ("readWrite", "limited", [second], []),
        ("readWrite", "authorized", [], sorted([first, second])),
        ("addOnly", "authorized", [], []),
        ("readWrite", "notDetermined", [], []),
        ("addOnly", "notDetermined", [], []),
        ("readWrite", "denied", [], []),
    ]
    assert all(change.app == app and change.at is not None for change in seen)
    assert [change.token for change in seen] == sorted({change.token for change in seen})
    assert {tokens[-1], tokens[-3]} <= {change.token for change in seen}

    # auth.changes tells an app that was away the same story, from any token on.
    history, latest = library.changes(0)
    assert history == seen and latest == tokens[-1]
    assert library.changes(seen[2].token) == (seen[3:], latest)
    assert library.changes(latest) == ([], latest)
    # The connection goes on serving after the watch was abandoned.
    assert library.authorization_status("readWrite") == "denied"
    assert library.authorization_status() == "denied"


def test_legacy_status_reads_limited_as_authorized(services, owner_settings, library_for):
    app = services.register_app("py-legacy", usage_read_write=USAGE)
    library = library_for(app)
    expected = [
        ({"read_write": "limited", "selection": []}, "limited", "authorized"),
        ({"read_write": "full"}, "authorized", "authorized"),
        ({"read_write": "restricted"}, "restricted", "restricted"),
        ({"read_write": "none"}, "denied", "denied"),
        ({"reset": True}, "notDetermined", "notDetermined"),
    ]
    for setting, read_write, legacy in expected:
        owner_settings.set_access(app, **setting)
        assert (library.authorization_status("readWrite"), library.authorization_status()) == (read_write, legacy), setting
        assert library.authorization_status("addOnly") == "notDetermined"


def test_deny_is_stored_and_answers_must_fit(services, owner_settings, library_for):
    app = services.register_app("py-deny", usage_read_write=USAGE, usage_add_only="To save copies.")
    library = library_for(app)
    with services.directory.auth_as_owner() as connection:
        owner = lb.OwnerSettings(connection)
        shown = []

        def answer_on_prompt(prompt):
            shown.append(prompt)
            # addOnly prompts take allow or deny, not full; a wrong answer leaves the prompt open.
            with pytest.raises(lb.LightboxError) as raised:
                owner.answer(prompt, "full")
            assert raised.value.code == "badRequest"
            owner.answer(prompt, "deny")

        assert library.request_authorization("addOnly", on_prompt=answer_on_prompt, timeout=30) == "denied"
        assert len(shown) == 1
        with pytest.raises(lb.LightboxError) as raised:
            owner.answer(shown[0], "allow")
        assert raised.value.code == "notFound", "an answered prompt is gone"

    # Denied stays denied: no new prompt, the stored status at once.
    assert library.request_authorization("addOnly", on_prompt=shown.append, timeout=10) == "denied"
    assert len(shown) == 1
    assert open_prompts(owner_settings, app) == []


def test_apps_and_owners_keep_to_their_operations(services, library_for):
    app = services.register_app("py-roles", usage_read_write=USAGE)
    library = library_for(app)
    assert library.auth.ping() == {"service": "auth", "principal": f"app:{app}"}
    for call in (lambda: lb.OwnerSettings(library.auth).prompts(), lambda: lb.OwnerSettings(library.auth).apps(),
                 lambda: lb.OwnerSettings(library.auth).set_access(app, read_write="full")):
        with pytest.raises(lb.LightboxError) as raised:
            call()
        assert raised.value.code == "notAuthorized"
    with services.directory.auth_as_owner() as connection:
        owner_as_app = lb.PhotoLibrary(connection)
        with pytest.raises(lb.LightboxError) as raised:
            owner_as_app.authorization_status()
        assert raised.value.code == "notAuthorized"
        with pytest.raises(lb.LightboxError) as raised:
            lb.OwnerSettings(connection).set_access("py-nosuchapp", read_write="full")
        assert raised.value.code == "notFound"
        with pytest.raises(lb.LightboxError) as raised:
            lb.OwnerSettings(connection).answer("prompt-nosuchprompt", "deny")
        assert raised.value.code == "notFound"
    assert library.authorization_status("readWrite") == "notDetermined"


def test_unanswered_prompt_times_out_and_nothing_changes():
    with running_services(register=(), prompt_timeout=1) as private:
        app = private.register_app("py-slow", usage_read_write=USAGE)
        with private.directory.photo_library(app) as library, private.directory.auth_as_owner() as connection:
            owner = lb.OwnerSettings(connection)
            shown = []
            started = dt.datetime.now()
            with pytest.raises(lb.LightboxError) as raised:
                library.request_authorization("readWrite", on_prompt=shown.append, timeout=30)
            assert raised.value.code == "timeout"
            assert (dt.datetime.now() - started).total_seconds() < 20
            assert len(shown) == 1
            assert owner.prompts() == [], "a timed-out prompt is withdrawn"
            assert library.authorization_status("readWrite") == "notDetermined"
            with pytest.raises(lb.LightboxError) as raised:
                owner.answer(shown[0], "full")
            assert raised.value.code == "notFound"
            assert library.changes(0) == ([], 0)


def test_library_changes_reach_a_watching_app(services, owner_settings, library_for, tmp_path):
    """An owner import and an offload reach an authorized app's library watch; a denied app sees nothing."""
    app = services.register_app("pylibwatch", usage_read_write="To follow the library")
    denied = services.register_app("pylibdenied", usage_read_write="To try")
    owner_settings.set_access(app, read_write="full")
    owner_settings.set_access(denied, read_write="none")
    library = library_for(app)
    _, start = library.library_changes(0)
    events = library.watch_library(since=start, timeout=20)

    source = os.path.join(REPO, "Samples", "extra", "harbour.heic")
    with open(source, "rb") as handle:
        data = handle.read()
    folder = tmp_path / "new"
    folder.mkdir()
    # Different bytes from any import elsewhere in the session: a trailing byte after the image.
    (folder / "py-watch.heic").write_bytes(data + b"\0")
    with services.directory.picker_as_owner() as connection:
        summary = connection.request("owner.import", {"path": str(folder)}, timeout=60)
        inserted = summary["imported"][0]
        connection.request("owner.offload", {"asset": inserted})

    first = next(events)
    assert first.inserted == [inserted]
    second = next(events)
    assert second.changed == [inserted] and second.token > first.token
    changes, token = library.library_changes(start)
    assert [change.token for change in changes][-2:] == [first.token, second.token]
    assert library_for(denied).library_changes(0)[0] == []
    assert token >= second.token


def test_a_grant_with_a_term_ends(services, owner_settings, library_for):
    app = services.register_app("py-visitor", usage_read_write=USAGE)
    end = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=3)
    update = owner_settings.set_access(app, read_write="full", until=end, then_deny=True)
    assert update.access.read_write == "authorized"
    assert abs((update.access.read_write_until - end).total_seconds()) < 1
    library = library_for(app)
    assert library.authorization_status("readWrite") == "authorized"
    # Real time: the term ends, and the level is denied, as the term said.
    deadline = time.monotonic() + 60
    while library.authorization_status("readWrite") != "denied":
        assert time.monotonic() < deadline, "the grant outlived its term"
        time.sleep(0.2)
    access = next(entry for entry in owner_settings.apps() if entry.app == app)
    assert access.read_write_until is None
    # A term needs an end before then_deny means anything.
    with pytest.raises(lb.LightboxError) as raised:
        owner_settings.set_access(app, read_write="full", then_deny=True)
    assert raised.value.code == "badRequest"
