"""Live album grants from Python, against real lightbox-auth and lightbox-picker processes: the owner
lets a limited app follow an album; the app sees a photo added to it later and loses one taken out,
and its library watch is told both; the owner's settings, the outline and the auth watch say which
albums, and the limited-library picker returns the albums it added."""

import threading

import lightbox as lb
from test_authorization import library_for  # noqa: F401 (a fixture)


def test_an_album_grant_follows_the_album(services, owner_settings, library_for):  # noqa: F811
    samples = services.sample_identifiers()
    harbour, portrait, sunset = samples["harbour.jpg"], samples["portrait.jpg"], samples["sunset.png"]
    keeper = services.register_app("pyalbumkeeper")
    frame = services.register_app("pyframe", prevent_automatic_alert=True)
    owner_settings.set_access(keeper, read_write="full")
    curator = library_for(keeper)
    family = curator.create_album("Py Family")
    curator.add_to_album(family.identifier, [harbour])

    # The owner sees the album with its size, and lets the frame follow it beside one photo of its own.
    with services.directory.picker_as_owner() as connection:
        listed = {album.identifier: album for album in lb.OwnerSurface(connection).albums()}
    assert listed[family.identifier].title == "Py Family" and listed[family.identifier].asset_count == 1
    library = library_for(frame)
    _, token = library.changes(0)
    access_events = library.watch(since=token, timeout=20)
    update = owner_settings.set_access(frame, read_write="limited", selection=[sunset], albums=[family.identifier])
    assert update.access.albums == [family.identifier] and update.access.selection_count == 1
    granted = next(access_events)
    assert granted.added == [sunset] and granted.added_albums == [family.identifier] and granted.removed_albums == []
    assert {app.app: app for app in owner_settings.apps()}[frame].albums == [family.identifier]
    assert {asset.identifier for asset in library.fetch_assets(list(samples.values()))} == {harbour, sunset}

    _, start = library.library_changes(0)
    events = library.watch_library(since=start, timeout=20)
    # Added to the album afterwards: seen, and the watch says it was inserted.
    curator.add_to_album(family.identifier, [portrait])
    assert next(events).inserted == [portrait]
    assert [asset.identifier for asset in library.fetch_assets([portrait])] == [portrait]
    # Taken out: gone, and the watch says it was removed.
    curator.remove_from_album(family.identifier, [harbour])
    assert next(events).removed == [harbour]
    assert library.fetch_assets([harbour]) == []
    page, total = library.query(limit=10)
    assert total == 2 and {asset.identifier for asset in page} == {portrait, sunset}
    page = curator.album_assets(family.identifier, limit=1)
    assert [asset.identifier for asset in page.assets] == [portrait] and page.total == 1 and page.next is None

    # The limited-library picker shows the album preselected; the owner adds a second one.
    trips = curator.create_album("Py Trips")
    outcome = {}

    def present():
        try:
            outcome["result"] = library.present_limited_library_picker_with_albums(timeout=30)
        except lb.LightboxError as error:
            outcome["error"] = error

    presenter = threading.Thread(target=present)
    presenter.start()
    prompt = None
    for _ in range(60):
        prompts = [item for item in owner_settings.prompts(wait_ms=500) if item.app == frame and item.kind == "limitedLibrary"]
        if prompts:
            prompt = prompts[0]
            break
    assert prompt is not None and prompt.albums == [family.identifier] and prompt.selection == [sunset]
    owner_settings.answer(prompt, "done", albums=[family.identifier, trips.identifier])
    presenter.join(30)
    assert outcome.get("result") == lb.protocol.LimitedPickerResult(added=[], added_albums=[trips.identifier]), outcome

    # The owner stops the frame following the albums: their photos go, its own stays.
    owner_settings.set_access(frame, read_write="limited", albums=[])
    assert [asset.identifier for asset in library.fetch_assets(list(samples.values()))] == [sunset]
    changes, _ = library.changes(0)
    assert sorted(sum((change.removed_albums for change in changes), [])) == sorted([family.identifier, trips.identifier])
