"""ImageManager (image.request, image.cancel, video.request, library.properties) against the real
services, blocking and asyncio, for an app with full library access."""

import asyncio
import hashlib
import os

import pytest

import lightbox as lb
from conftest import SAMPLES
from lightbox.aio import AsyncImageManager, AsyncServiceDirectory

USAGE = "To show your photos in the tests."


@pytest.fixture(scope="module")
def viewer(services):
    """An app with full readWrite access, and {file name: identifier} of the samples."""
    app = services.register_app("py-viewer", usage_read_write=USAGE)
    with services.directory.auth_as_owner() as connection:
        assert lb.OwnerSettings(connection).set_access(app, read_write="full").access.read_write == "authorized"
    return app, services.sample_identifiers()


def sha256_of(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def test_images_in_a_box_full_size_and_opportunistic(services, viewer):
    app, ids = viewer
    with services.directory.picker_as_app(app) as connection:
        manager = lb.ImageManager(connection)
        started = []
        small = manager.request_image(ids["harbour.jpg"], 100, 100, content_mode="fit", on_start=started.append)
        assert len(started) == 1 and started[0]
        assert (small.is_degraded, small.is_in_cloud, small.is_cancelled) == (False, False, False)
        assert max(small.pixel_width, small.pixel_height) == 100 and small.data[:2] == b"\xff\xd8"

        full = manager.request_image(ids["harbour.jpg"], delivery_mode=lb.protocol.ImageDeliveryMode.HIGH_QUALITY_FORMAT)
        assert full.pixel_width == 640 and full.type == "public.jpeg"

        degraded = []
        final = manager.request_image(ids["sunset.png"], 64, 64, content_mode="fill", delivery_mode="opportunistic",
                                      on_result=degraded.append)
        assert not final.is_degraded and (final.pixel_width, final.pixel_height) == (64, 64)
        assert all(result.is_degraded for result in degraded)

        with pytest.raises(lb.LightboxError) as raised:
            manager.request_image(ids["harbour.jpg"], 100, 100, content_mode="stretch")
        assert raised.value.code == "badRequest"
        with pytest.raises(lb.LightboxError) as raised:
            manager.cancel_image_request("no-such-request")
        assert raised.value.code == "notFound"


def test_properties_and_the_original_movie(services, viewer, tmp_path):
    app, ids = viewer
    with services.directory.picker_as_app(app) as connection:
        manager = lb.ImageManager(connection)
        properties = manager.properties(ids["harbour.jpg"])
        assert properties.asset == ids["harbour.jpg"] and properties.pixel_width == 640
        assert isinstance(properties.properties.get("{Exif}", {}), dict)

        calls = []
        destination = tmp_path / "clip.mp4"
        video = manager.request_video_file(ids["clip.mp4"], destination, delivery_mode="highQualityFormat",
                                           progress=lambda done, total: calls.append((done, total)), chunk_size=4096,
                                           credit=2)
        original = os.path.join(SAMPLES, "clip.mp4")
        assert (video.is_in_cloud, video.delivered_quality) == (False, "original")
        assert video.completion.sha256 == sha256_of(original) == sha256_of(destination)
        assert calls[-1] == (os.path.getsize(original),) * 2
        assert os.listdir(tmp_path) == ["clip.mp4"]


def test_asyncio_image_manager(services, viewer, tmp_path):
    app, ids = viewer

    async def main():
        directory = AsyncServiceDirectory(services.data, services.auth_endpoint, services.picker_endpoint)
        async with directory.picker_as_app(app) as connection:
            manager = AsyncImageManager(connection)
            image, properties = await asyncio.gather(
                manager.request_image(ids["portrait.jpg"], 50, 50), manager.properties(ids["portrait.jpg"]))
            video = await manager.request_video_file(ids["clip.mp4"], tmp_path / "fast.mp4", delivery_mode="fastFormat")
            return image, properties, video

    image, properties, video = asyncio.run(main())
    assert max(image.pixel_width, image.pixel_height) == 50 and image.data
    assert properties.pixel_width and properties.pixel_height
    assert video.delivered_quality == "fast" and video.type == "public.mpeg-4"
    assert video.completion.bytes == os.path.getsize(tmp_path / "fast.mp4") > 0
