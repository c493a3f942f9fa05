"""Images, movies and properties of assets, for apps: :class:`ImageManager` (PHImageManager).

These operations need library access (the picker asks lightbox-auth before each): readWrite
authorized for any asset, limited for the app's selection.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Union

from .protocol import (DEFAULT_CHUNK_SIZE, DEFAULT_CREDIT, AssetProperties, ImageContentMode, ImageDeliveryMode,
                       ImageResult, ImageVersion, LoadCompletion, MediaProgress, Reply, ReplyStatus,
                       VideoDeliveryMode, VideoInfo, image_cancel_body, image_request_body, properties_request_body,
                       video_request_body)
from .transport import Call, Connection, Exchange, PathLike, Post, Progress, StreamExchange, partial_file

__all__ = ["ImageManager", "VideoResult", "ProgressCallback"]

#: ``on_progress(MediaProgress)``: a cloud download (bytes) or a transcode (seconds) advanced.
ProgressCallback = Callable[[MediaProgress], Any]


@dataclass(frozen=True)
class VideoResult:
    """What ``video.request`` delivered: ``completion`` (size, SHA-256, type) of the file written,
    the quality delivered (``fast``, ``medium``, ``original``); or ``is_in_cloud`` and no file."""

    is_in_cloud: bool
    delivered_quality: Optional[str] = None
    type: Optional[str] = None
    completion: Optional[LoadCompletion] = None


class ImageExchange(Exchange[ImageResult]):
    """``image.request``: ``progress`` while a cloud original downloads, with opportunistic delivery
    an ``event`` with a degraded result, then the final result."""

    def __init__(self, body: dict[str, Any], on_result: Optional[Callable[[ImageResult], Any]],
                 on_progress: Optional[ProgressCallback], on_start: Optional[Callable[[str], Any]],
                 timeout: Optional[float]) -> None:
        super().__init__("image.request", body, timeout=timeout)
        self.on_result, self.on_progress, self.on_start = on_result, on_progress, on_start
        self.results: List[ImageResult] = []

    def started(self, request_id: str) -> None:
        super().started(request_id)
        if self.on_start is not None:
            self.on_start(request_id)

    def step(self, reply: Reply) -> None:
        if reply.status == ReplyStatus.EVENT:
            result = ImageResult.from_reply(reply)
            self.results.append(result)
            if self.on_result is not None:
                self.on_result(result)
        elif reply.status == ReplyStatus.PROGRESS:
            _report(reply, self.on_progress)

    def finish(self, reply: Reply) -> ImageResult:
        result = ImageResult.from_reply(reply)
        self.results.append(result)
        return result


def _report(reply: Reply, on_progress: Optional[ProgressCallback]) -> None:
    progress = MediaProgress.from_json(reply.body)
    if progress is not None and on_progress is not None:
        on_progress(progress)


def image_exchange(asset: str, target_width: Optional[int] = None, target_height: Optional[int] = None,
                   content_mode: Union[ImageContentMode, str, None] = None,
                   delivery_mode: Union[ImageDeliveryMode, str, None] = None,
                   version: Union[ImageVersion, str, None] = None, network_access_allowed: Optional[bool] = None,
                   on_result: Optional[Callable[[ImageResult], Any]] = None,
                   on_progress: Optional[ProgressCallback] = None, on_start: Optional[Callable[[str], Any]] = None,
                   timeout: Optional[float] = 60.0) -> ImageExchange:
    body = image_request_body(asset, target_width, target_height, content_mode, delivery_mode, version,
                              network_access_allowed)
    return ImageExchange(body, on_result, on_progress, on_start, timeout)


def cancel_image_call(request_id: str) -> Call[None]:
    return Call("image.cancel", image_cancel_body(request_id), lambda body: None)


def properties_call(asset: str) -> Call[AssetProperties]:
    return Call("library.properties", properties_request_body(asset), AssetProperties.from_json)


class VideoExchange(StreamExchange[VideoResult]):
    """``video.request``: ``progress`` while a derivative is made, an ``event`` naming the quality,
    then a credit-based stream as ``provider.load``; or an ``ok`` saying the original is in the cloud."""

    def __init__(self, body: dict[str, Any], consume: Callable[[bytes], Any], progress: Optional[Progress],
                 on_progress: Optional[ProgressCallback], timeout: Optional[float]) -> None:
        super().__init__("video.request", body, consume, progress, timeout)
        self.on_progress = on_progress
        self.info = VideoInfo(False)

    def step(self, reply: Reply) -> Optional[Post]:
        if reply.status == ReplyStatus.EVENT:
            self.info = VideoInfo.from_json(reply.body)
            return None
        if reply.status == ReplyStatus.PROGRESS:
            _report(reply, self.on_progress)
            return None
        return super().step(reply)

    def finish(self, reply: Reply) -> VideoResult:
        if VideoInfo.from_json(reply.body).is_in_cloud:
            return VideoResult(is_in_cloud=True)
        completion = self.completion(reply)
        return VideoResult(False, self.info.delivered_quality or "original", self.info.type or completion.type,
                           completion)


def video_exchange(asset: str, consume: Callable[[bytes], Any], delivery_mode: Union[VideoDeliveryMode, str, None],
                   network_access_allowed: Optional[bool], progress: Optional[Progress],
                   on_progress: Optional[ProgressCallback], credit: int, chunk_size: int,
                   timeout: Optional[float], version: Union[ImageVersion, str, None] = None) -> VideoExchange:
    body = video_request_body(asset, delivery_mode, network_access_allowed, credit, chunk_size, version)
    return VideoExchange(body, consume, progress, on_progress, timeout)


class ImageManager:
    """PHImageManager on one picker connection (as an app)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def request_image(self, asset: str, target_width: Optional[int] = None, target_height: Optional[int] = None,
                      content_mode: Union[ImageContentMode, str, None] = None,
                      delivery_mode: Union[ImageDeliveryMode, str, None] = None,
                      version: Union[ImageVersion, str, None] = None, network_access_allowed: Optional[bool] = None,
                      on_result: Optional[Callable[[ImageResult], Any]] = None,
                      on_progress: Optional[ProgressCallback] = None,
                      on_start: Optional[Callable[[str], Any]] = None, timeout: Optional[float] = 60.0) -> ImageResult:
        """``requestImage(for:targetSize:contentMode:options:)``: the final image of ``asset``.

        Both targets absent gives the full size, upright; an image is never enlarged. With
        ``delivery_mode`` ``opportunistic``, ``on_result`` gets the degraded result that comes
        first. ``on_start`` gets the request's id (for :meth:`cancel_image_request` from another
        connection of the same app); ``on_progress`` reports a cloud download.
        """
        return self.connection.run(image_exchange(asset, target_width, target_height, content_mode, delivery_mode,
                                                  version, network_access_allowed, on_result, on_progress, on_start,
                                                  timeout))

    def cancel_image_request(self, request_id: str) -> None:
        """``cancelImageRequest``: the request ends with a result whose ``is_cancelled`` is set."""
        self.connection.run(cancel_image_call(request_id))

    def request_video_file(self, asset: str, path: PathLike, delivery_mode: Union[VideoDeliveryMode, str, None] = None,
                           network_access_allowed: Optional[bool] = None, progress: Optional[Progress] = None,
                           on_progress: Optional[ProgressCallback] = None, credit: int = DEFAULT_CREDIT,
                           chunk_size: int = DEFAULT_CHUNK_SIZE, timeout: Optional[float] = 60.0,
                           version: Union[ImageVersion, str, None] = None) -> VideoResult:
        """Streams the movie of ``asset`` into ``path`` (replaced only once complete and checked);
        ``version="original"`` asks past an app's edit for the original.

        ``fastFormat`` (≤ 360 px) and ``mediumQualityFormat`` (≤ 720 px) are H.264/AAC MP4 files
        the picker makes once (``on_progress`` reports the transcode) and caches; ``automatic`` and
        ``highQualityFormat`` give the original. Returns ``is_in_cloud`` and writes nothing when the
        original is in the cloud and network access was not allowed.
        """
        destination = partial_file(path)
        with destination as handle:
            result = self.connection.run(video_exchange(asset, handle.write, delivery_mode, network_access_allowed,
                                                        progress, on_progress, credit, chunk_size, timeout, version))
            if result.is_in_cloud:
                destination.discard()
        return result

    def properties(self, asset: str) -> AssetProperties:
        """``library.properties``: CGImageSource-style properties (``PixelWidth``, ``{Exif}``, …)."""
        return self.connection.run(properties_call(asset))
