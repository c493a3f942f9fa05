"""Location only by consent, from Python: what a pick and library reads deliver of where a photo
was taken with no consent, approximate and precise (read back with exiftool)."""

import json
import subprocess
import threading

import lightbox as lb
from conftest import APP, OwnerThread

USAGE = "To place your days on a map."


def gps_of(path):
    """exiftool's GPS tags of a file, numbers as numbers."""
    output = subprocess.run(["exiftool", "-j", "-n", "-a", "-G1", str(path)], capture_output=True, text=True, check=True).stdout
    return {key: value for key, value in json.loads(output)[0].items() if "GPS" in key or "Location" in key}


def picked(services, app_connection, tmp_path, name, asked, given):
    owner = OwnerThread(services, files=["harbour.jpg"], location=given)
    owner.start()
    results = lb.PhotoPicker(app_connection).pick(filter="images", timeout=60, location=asked)
    owner.join_and_check()
    provider = results[0].item_provider
    provider.delivery = "stream"
    destination = tmp_path / name
    provider.load_file(str(destination))
    return provider, gps_of(destination)


def test_a_pick_delivers_the_location_the_owner_gave(services, app_connection, tmp_path):
    assert lb.LocationAccess("approximate") is lb.LocationAccess.APPROXIMATE
    assert lb.protocol.approximate_degrees(59.9139) == 59.9 and lb.protocol.approximate_degrees(-10.75) == -10.8

    _, nothing = picked(services, app_connection, tmp_path, "none.jpg", "none", "precise")
    assert nothing == {}, "without consent there is no location at all"
    _, refused = picked(services, app_connection, tmp_path, "refused.jpg", "precise", None)
    assert refused == {}, "an owner who chose nothing gave nothing"

    provider, approximate = picked(services, app_connection, tmp_path, "approximate.jpg", "approximate", "precise")
    assert (approximate["GPS:GPSLatitude"], approximate["GPS:GPSLongitude"]) == (59.9, 10.8)
    assert "GPS:GPSAltitude" not in approximate
    assert provider.describe()["imageProperties"]["{GPS}"] == {
        "Latitude": 59.9, "LatitudeRef": "N", "Longitude": 10.8, "LongitudeRef": "E"}

    _, precise = picked(services, app_connection, tmp_path, "precise.jpg", "precise", "precise")
    assert abs(precise["GPS:GPSLatitude"] - 59.9139) < 1e-4 and precise["GPS:GPSAltitude"] == 12


def test_library_access_asks_for_a_location_once(services, owner_settings):
    app = services.register_app("py-journal", usage_read_write=USAGE)
    library = services.directory.photo_library(app)
    try:
        answered = []

        def owner():
            for _ in range(60):
                for prompt in owner_settings.prompts(wait_ms=500):
                    if prompt.app == app:
                        answered.append(prompt)
                        owner_settings.answer(prompt, "full", location="approximate")
                        return

        thread = threading.Thread(target=owner, daemon=True)
        thread.start()
        reply = library.request_access("readWrite", location="precise")
        thread.join(30)
        assert answered and answered[0].kind == "authorization" and answered[0].location == "precise"
        assert (reply.status, reply.location) == ("authorized", "approximate")
        # Asked once: the stored answer, no prompt.
        assert library.request_access("readWrite", location="precise").location == "approximate"
        access = {entry.app: entry for entry in owner_settings.apps()}[app]
        assert (access.location, access.location_requested) == ("approximate", "precise")
        updated = owner_settings.set_access(app, location="none")
        assert updated.access.location == "none"
        assert ("location:settings", "none") in [(entry.operation, entry.outcome) for entry in owner_settings.audit(app=app)]
    finally:
        library.close()
