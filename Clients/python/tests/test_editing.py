"""Edits with the original kept (library.edit, library.editingInput, library.revert, owner.revert)
against the real services: the edited version is what image requests get by default, the original
stays readable with version="original", and a revert brings it back. Each test edits an asset it
created itself, so the shared library's samples stay as other tests expect them."""

import os
import subprocess

import pytest

import lightbox as lb
from conftest import SAMPLES
from lightbox.editing import AdjustmentData

USAGE = "To edit your photos in the tests."
ADJUSTMENT = AdjustmentData("com.example.darkroom", "1.0", b'{"crop":[0,0,320,240]}')


@pytest.fixture(scope="module")
def darkroom(services):
    app = services.register_app("py-darkroom", usage_read_write=USAGE)
    with services.directory.auth_as_owner() as connection:
        assert lb.OwnerSettings(connection).set_access(app, read_write="full").access.read_write == "authorized"
    return app


def cropped_harbour(tmp_path):
    """harbour.jpg (640 × 480) cropped to its top-left 320 × 240, as an editor would save it."""
    out = tmp_path / "cropped.jpg"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", os.path.join(SAMPLES, "harbour.jpg"), "-vf", "crop=320:240:0:0",
                    str(out)], check=True)
    return out.read_bytes()


def test_an_edit_is_the_current_version_and_a_revert_brings_the_original_back(services, darkroom, tmp_path):
    with open(os.path.join(SAMPLES, "harbour.jpg"), "rb") as handle:
        original = handle.read()
    with services.directory.picker_as_app(darkroom) as connection:
        library, manager = lb.PhotoLibrary(None, connection), lb.ImageManager(connection)
        asset = library.create_asset(original, "py-edit-harbour.jpg")
        assert library.editing_input(asset) is None

        version = library.edit(asset, ADJUSTMENT, cropped_harbour(tmp_path))
        assert (version.type, version.pixel_width, version.pixel_height) == ("public.jpeg", 320, 240)
        assert version.adjustment == ADJUSTMENT and version.edited_at is not None
        assert library.editing_input(asset).adjustment == ADJUSTMENT

        current = manager.request_image(asset, delivery_mode="highQualityFormat")
        kept = manager.request_image(asset, delivery_mode="highQualityFormat", version="original")
        assert (current.pixel_width, current.pixel_height) == (320, 240)
        assert (kept.pixel_width, kept.pixel_height) == (640, 480)

        with pytest.raises(lb.LightboxError) as raised:
            library.edit(asset, ADJUSTMENT, b"\xff\xd8\xff\xe0 not a JPEG after all" * 10)
        assert raised.value.code == "badMedia" and "edited version" in raised.value.message
        assert library.editing_input(asset).adjustment == ADJUSTMENT  # the broken edit changed nothing

        assert library.revert_to_original(asset) is True
        assert library.editing_input(asset) is None
        back = manager.request_image(asset, delivery_mode="highQualityFormat")
        assert (back.pixel_width, back.pixel_height) == (640, 480)
        assert library.revert_to_original(asset) is False


def test_the_owner_reverts_and_add_only_apps_may_not_edit(services, darkroom, tmp_path):
    adder = services.register_app("py-adder", usage_add_only="To add photos in the tests.")
    with services.directory.auth_as_owner() as connection:
        lb.OwnerSettings(connection).set_access(adder, add_only="allow")
    with open(os.path.join(SAMPLES, "portrait.jpg"), "rb") as handle:
        portrait = handle.read()
    with services.directory.picker_as_app(darkroom) as connection:
        library = lb.PhotoLibrary(None, connection)
        asset = library.create_asset(portrait, "py-edit-portrait.jpg")
        library.edit(asset, ADJUSTMENT, cropped_harbour(tmp_path))
    with services.directory.picker_as_app(adder) as connection:
        with pytest.raises(lb.LightboxError) as raised:
            lb.PhotoLibrary(None, connection).edit(asset, ADJUSTMENT, portrait)
        assert raised.value.code == "notAuthorized" and "read-write" in raised.value.message
    with services.directory.picker_as_owner() as connection:
        owner = lb.OwnerSurface(connection)
        assert owner.revert(asset) is True and owner.revert(asset) is False
    with services.directory.picker_as_app(darkroom) as connection:
        assert lb.PhotoLibrary(None, connection).editing_input(asset) is None
