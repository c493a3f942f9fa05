"""A pick with selection limits from the Python client, against real services (see conftest.py): the
owner's page marks what misses a limit with the reason, the picker refuses it at ``owner.choose``
and delivers what fits; bad limits are refused by the client (wrong kinds) or the picker (values)."""

import os
import threading
import time

import pytest

import lightbox as lb
from conftest import APP, SAMPLES

SAMPLE_NAMES = set(os.listdir(SAMPLES))


class LimitedOwner(threading.Thread):
    """Answers the next pick of the app: notes what its page marks unavailable, tries to choose
    harbour.jpg (which misses the limits), then chooses sunset.png."""

    def __init__(self, services):
        super().__init__(daemon=True)
        self.directory = services.directory
        self.marked = None
        self.refusal = None
        self.error = None

    def run(self):
        try:
            with self.directory.picker_as_owner() as connection:
                owner = lb.OwnerSurface(connection)
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    for pick in owner.pending(wait_ms=2000):
                        if pick.app != APP:
                            continue
                        offered = {asset.file_name: asset for asset in owner.assets(pick.pick) if asset.file_name in SAMPLE_NAMES}
                        self.marked = {name: asset.unavailable for name, asset in offered.items() if asset.unavailable}
                        try:
                            owner.choose(pick.pick, [offered["harbour.jpg"].identifier])
                        except lb.LightboxError as error:
                            self.refusal = error
                        owner.choose(pick.pick, [offered["sunset.png"].identifier])
                        return
                raise AssertionError("no pick arrived")
        except BaseException as error:  # reported by the test
            self.error = error


def test_a_pick_with_limits_delivers_only_what_fits(services, app_connection):
    owner = LimitedOwner(services)
    owner.start()
    limits = lb.SelectionLimits(max_file_size=20_000, max_pixels=400, media_types=[lb.MediaType.IMAGE])
    results = lb.PhotoPicker(app_connection).pick(selection_limit=0, limits=limits, timeout=30)
    owner.join(40)
    if owner.error is not None:
        raise owner.error
    assert owner.marked == {
        "harbour.jpg": lb.SelectionMisfit("maxFileSize", 31859, 20000, "Too large for Demo: 31.9 KB of 20 KB"),
        "clip.mp4": lb.SelectionMisfit("mediaTypes", None, None, "Demo takes photos only"),
    }
    assert owner.refusal is not None and owner.refusal.code == "badRequest"
    assert "harbour.jpg cannot be chosen for this pick: Too large for Demo" in str(owner.refusal)
    assert [result.item_provider.suggested_name for result in results] == ["sunset"]


def test_bad_limits_are_refused(app_connection, owner_connection):
    # Wrong kinds of values never leave the client.
    for limits in (lb.SelectionLimits(max_file_size="20MB"), lb.SelectionLimits(min_pixels=True),
                   lb.SelectionLimits(max_duration="1 minute"), lb.SelectionLimits(media_types="image")):
        with pytest.raises(lb.LightboxError) as refused:
            lb.PhotoPicker(app_connection).pick(limits=limits, timeout=10)
        assert refused.value.code == "badRequest"
    # Values no asset could meet, and kinds the picker does not know, are refused by the picker.
    for limits, named in ((lb.SelectionLimits(max_file_size=0), "limits.maxFileSize"),
                          (lb.SelectionLimits(min_pixels=2000, max_pixels=1000), "nothing could fit"),
                          (lb.SelectionLimits(max_duration=-1), "limits.maxDuration"),
                          (lb.SelectionLimits(media_types=[]), "limits.mediaTypes"),
                          (lb.SelectionLimits(media_types=["audio"]), "limits.mediaTypes")):
        with pytest.raises(lb.LightboxError) as refused:
            lb.PhotoPicker(app_connection).pick(limits=limits, timeout=10)
        assert refused.value.code == "badRequest" and named in str(refused.value), str(refused.value)
    assert [pick for pick in lb.OwnerSurface(owner_connection).pending() if pick.app == APP] == []
