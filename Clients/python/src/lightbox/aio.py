"""The asyncio API, on ``zmq.asyncio``: the same operations as the blocking classes, as coroutines.

    directory = AsyncServiceDirectory()                     # same defaults as ServiceDirectory
    async with directory.picker_as_app("demo") as connection:
        for result in await AsyncPhotoPicker(connection).pick(filter="images"):
            await result.item_provider.load_file(result.item_provider.file_name())

One :class:`AsyncConnection` may carry many requests at once from tasks of one event loop
(``asyncio.gather(library.fetch_assets(…), library.query())``): replies go to the request they
answer. Use a connection from its own event loop only.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, AsyncIterator, Callable, Deque, Dict, List, Optional, Sequence, Tuple, TypeVar, Union

import zmq
import zmq.asyncio

from .delivery import DeliveredFile, open_call, stream_instead
from .errors import LightboxError
from .image_manager import (ProgressCallback, VideoResult, cancel_image_call, image_exchange, properties_call,
                            video_exchange)
from .editing import AdjustmentData, EditedVersion, edit_call, editing_input_call, revert_call
from .library import (AuthorizationWatch, ChangeWatch, LibraryBase, LibraryWatch, Level, PromptCallback,
                      added_identifiers, albums_call, changes_call, create_album_call, create_asset_call,
                      fetch_assets_call, library_changes_call, limited_picker_exchange, query_call,
                      request_authorization_exchange, status_call)
from .picker import ItemProviderBase, PickerResult, parse_pick_response, pick_exchange
from .protocol import (DEFAULT_CHUNK_SIZE, DEFAULT_CREDIT, Album, Asset, AssetProperties, AuthorizationChange,
                       DateLike, Filter, ImageContentMode, ImageDeliveryMode, ImageResult, ImageVersion, JSONObject,
                       LibraryChange, LoadCompletion, MediaType, Reply, ReplyStatus, StatusReply, VideoDeliveryMode,
                       build_request, changes_request_body, encode_header, new_request_id, parse_reply,
                       stream_cancel_body)
from .selection_limits import SelectionLimits
from .transport import (BaseServiceDirectory, Call, Exchange, KeyPair, PathLike, Progress, closed, curve_dealer,
                        hello_frame, no_answer, partial_file, process_launch, send_failed)

__all__ = ["AsyncConnection", "AsyncServiceDirectory", "AsyncItemProvider", "AsyncPhotoPicker",
           "AsyncPhotoLibrary", "AsyncImageManager"]

T = TypeVar("T")
#: The longest single poll while holding the reader's turn, so other waiters get theirs.
POLL_SLICE_SECONDS = 0.5


class AsyncConnection:
    """One DEALER socket to one service, as a CURVE client, for asyncio (see
    :class:`lightbox.transport.Connection`: the same timeouts, replies and stream cancelling)."""

    def __init__(self, endpoint: str, server_public_key: str, key_pair: KeyPair, timeout: float = 10.0,
                 context: Optional[zmq.asyncio.Context] = None, launch: Optional[str] = None) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self._hello: Optional[bytes] = hello_frame(launch or process_launch())
        self._socket: zmq.asyncio.Socket = curve_dealer(
            context or zmq.asyncio.Context.instance(), endpoint, server_public_key, key_pair, timeout)
        self._inbox: Dict[str, Deque[Reply]] = {}
        self._reader: Optional[asyncio.Lock] = None  # made in the loop that first reads

    # -- lifecycle --

    def close(self) -> None:
        """Closes the socket (unsent messages are dropped; waiting requests end)."""
        if not self._socket.closed:
            self._socket.close(linger=0)
        self._inbox.clear()

    @property
    def closed(self) -> bool:
        return bool(self._socket.closed)

    async def __aenter__(self) -> "AsyncConnection":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        self.close()

    # -- sending --

    async def _send_frames(self, op: str, body: Optional[JSONObject], id: str, attachments: Sequence[bytes],
                           wait: bool = True) -> None:
        if self._socket.closed:
            raise closed(self.endpoint)
        frames = [encode_header(build_request(op, body, id)), *attachments]
        try:
            if self._hello is not None:
                await self._socket.send(self._hello, flags=0 if wait else zmq.NOBLOCK)
                self._hello = None
            await self._socket.send_multipart(frames, flags=0 if wait else zmq.NOBLOCK)
        except zmq.Again:
            raise send_failed(op, self.endpoint) from None

    async def send(self, op: str, body: Optional[JSONObject] = None, attachments: Sequence[bytes] = (),
                   id: Optional[str] = None) -> str:
        """Sends a request and returns its id; read its replies with :meth:`replies`."""
        request_id = id or new_request_id()
        self._inbox.setdefault(request_id, deque())
        await self._send_frames(op, body, request_id, attachments)
        return request_id

    async def post(self, op: str, body: Optional[JSONObject] = None, wait: bool = True) -> None:
        """Sends a message that gets no reply (``stream.credit``)."""
        await self._send_frames(op, body, new_request_id(), (), wait)

    # -- receiving --

    async def _receive(self, timeout: float) -> Optional[Reply]:
        """The next readable reply within ``timeout`` seconds, or None."""
        if not await self._socket.poll(max(1, int(timeout * 1000))):
            return None
        try:
            return parse_reply(await self._socket.recv_multipart())
        except LightboxError:
            return None

    async def next_reply(self, id: str, timeout: float) -> Reply:
        """The next reply to request ``id`` within ``timeout`` seconds, without ending the request
        when none comes (``LightboxError("timeout")``); :meth:`forget` ends it."""
        return await self._wait_for(id, timeout)

    def forget(self, id: str) -> None:
        """Drops request ``id``: later replies to it are discarded."""
        self._inbox.pop(id, None)

    async def _wait_for(self, id: str, idle: float) -> Reply:
        """The next reply to ``id``; whoever holds the reader's turn files others' replies for them."""
        loop = asyncio.get_running_loop()
        if self._reader is None:
            self._reader = asyncio.Lock()
        deadline = loop.time() + idle
        queue = self._inbox.setdefault(id, deque())
        while True:
            if queue:
                return queue.popleft()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise no_answer(self.endpoint, idle)
            async with self._reader:
                if queue or self._socket.closed:
                    if self._socket.closed:
                        raise closed(self.endpoint)
                    continue
                reply = await self._receive(min(remaining, POLL_SLICE_SECONDS))
            if reply is None:
                continue
            if reply.id == id:
                return reply
            if reply.id in self._inbox:
                self._inbox[reply.id].append(reply)

    async def replies(self, id: str, timeout: Optional[float] = None) -> AsyncIterator[Reply]:
        """Every reply to request ``id``, ending with the final ``ok`` (which is yielded); an ``error``
        raises. Closing the iterator early (``aclose()``) asks the service to stop a stream it runs
        for the request (``stream.cancel``)."""
        idle = self.timeout if timeout is None else timeout
        finished = False
        self._inbox.setdefault(id, deque())
        try:
            while True:
                reply = await self._wait_for(id, idle)
                finished = reply.is_final
                if reply.status == ReplyStatus.ERROR:
                    raise reply.error()
                yield reply
                if finished:
                    return
        finally:
            self._inbox.pop(id, None)
            if not finished and not self._socket.closed:
                try:
                    await self.post("stream.cancel", stream_cancel_body(id), wait=False)
                except (LightboxError, zmq.ZMQError):
                    pass

    async def run(self, exchange: Exchange[T]) -> T:
        """Sends ``exchange``'s request and reads its replies to the end; returns its result."""
        request_id = await self.send(exchange.op, exchange.body, exchange.attachments)
        exchange.started(request_id)
        replies = self.replies(request_id, exchange.timeout)
        try:
            async for reply in replies:
                if reply.status == ReplyStatus.OK:
                    return exchange.finish(reply)
                message = exchange.step(reply)
                if message is not None:
                    await self.post(*message)
        finally:
            await replies.aclose()  # type: ignore[attr-defined]
        raise LightboxError("internal", f"The service ended {exchange.op} without a final reply.")  # pragma: no cover

    async def request(self, op: str, body: Optional[JSONObject] = None,
                      timeout: Optional[float] = None) -> JSONObject:
        """Sends a request and returns the body of its final ``ok`` reply."""
        return await self.run(Call(op, body, lambda body: body, timeout=timeout))

    async def ping(self, timeout: Optional[float] = None) -> JSONObject:
        """``service.ping``: ``{"service":"picker","principal":"app:demo"}``."""
        return await self.request("service.ping", {}, timeout)


class AsyncServiceDirectory(BaseServiceDirectory[AsyncConnection]):
    """:class:`lightbox.ServiceDirectory` for asyncio: the same keys and endpoints, async connections."""

    def connect(self, endpoint: str, server_public_key: str, key_pair: KeyPair, timeout: float) -> AsyncConnection:
        return AsyncConnection(endpoint, server_public_key, key_pair, timeout)

    def connect_to_picker(self, key_pair: KeyPair, timeout: float = 10.0) -> AsyncConnection:
        """A connection to the picker; with several picker endpoints, one that fails over between them."""
        endpoints = self.picker_endpoints
        if len(endpoints) == 1:
            return super().connect_to_picker(key_pair, timeout)
        from .failover import AsyncFailoverConnection  # builds on this module

        return AsyncFailoverConnection(endpoints, self.service_public_key("picker"), key_pair, timeout)

    def photo_library(self, app: str, timeout: float = 10.0) -> "AsyncPhotoLibrary":
        """An :class:`AsyncPhotoLibrary` for ``app`` with its own connections (``async with`` closes them)."""
        return AsyncPhotoLibrary(*self.app_connections(app, timeout))


class AsyncItemProvider(ItemProviderBase[AsyncConnection]):
    """:class:`lightbox.ItemProvider` for asyncio."""

    async def describe(self, timeout: Optional[float] = None) -> JSONObject:
        """``provider.describe``: types, suggestedName, fileSize and image properties."""
        return await self._require_connection().run(self._describe_call(timeout))

    async def load_data(self, type: Optional[str] = None, progress: Optional[Progress] = None,
                        credit: int = DEFAULT_CREDIT, chunk_size: int = DEFAULT_CHUNK_SIZE,
                        timeout: float = 30.0) -> bytes:
        """Loads the whole representation into memory."""
        delivered = await self._open_delivered(type, timeout)
        if delivered is not None:
            with delivered:
                return await asyncio.to_thread(delivered.read, _on_loop(progress))
        parts: List[bytes] = []
        await self._require_connection().run(
            self._load_exchange(type, parts.append, progress, credit, chunk_size, timeout))
        return b"".join(parts)

    async def load_file(self, path: PathLike, type: Optional[str] = None, progress: Optional[Progress] = None,
                        credit: int = DEFAULT_CREDIT, chunk_size: int = DEFAULT_CHUNK_SIZE,
                        timeout: float = 30.0) -> LoadCompletion:
        """Writes the representation into ``path`` (replaced only once complete): copied from a
        delivered descriptor (ipc endpoints), or streamed and checked."""
        connection = self._require_connection()
        with partial_file(path) as handle:
            delivered = await self._open_delivered(type, timeout)
            if delivered is not None:
                with delivered:
                    return await asyncio.to_thread(delivered.copy_to, handle, _on_loop(progress))
            return await connection.run(self._load_exchange(type, handle.write, progress, credit, chunk_size, timeout))

    async def _open_delivered(self, type: Optional[str], timeout: float) -> Optional[DeliveredFile]:
        """The representation as a delivered descriptor, or None when the stream should carry it."""
        connection = self._require_connection()
        if not self._tries_descriptor(connection.endpoint):
            return None
        try:
            ticket = await connection.run(open_call(self.token, type, timeout))
        except LightboxError as error:
            if stream_instead(error):
                return None
            raise
        return await asyncio.to_thread(DeliveredFile.present, ticket)


def _on_loop(progress: Optional[Progress]) -> Optional[Progress]:
    """``progress`` called on the running loop's thread, from whichever thread reports."""
    if progress is None:
        return None
    loop = asyncio.get_running_loop()
    report = progress

    def relay(completed: int, total: int) -> None:
        loop.call_soon_threadsafe(report, completed, total)
    return relay


class AsyncPhotoPicker:
    """:class:`lightbox.PhotoPicker` for asyncio."""

    def __init__(self, connection: AsyncConnection) -> None:
        self.connection = connection

    async def pick(self, selection_limit: int = 1, filter: Optional[Filter] = None, ordered: bool = False,
                   photo_library: bool = False, on_started: Optional[Callable[[str], Any]] = None,
                   timeout: float = 600, preselected_asset_identifiers: Sequence[str] = (),
                   strip_metadata: str = "none", limits: Optional[SelectionLimits] = None,
                   location: str = "none") -> List[PickerResult[AsyncItemProvider]]:
        """Waits (up to ``timeout`` seconds) for the owner; an empty list means the owner cancelled."""
        body = await self.connection.run(pick_exchange(selection_limit, filter, ordered, photo_library, on_started,
                                                       timeout, preselected_asset_identifiers, strip_metadata, limits,
                                                       location))
        return parse_pick_response(body, self.connection, AsyncItemProvider)


class AsyncPhotoLibrary(LibraryBase[AsyncConnection]):
    """:class:`lightbox.PhotoLibrary` for asyncio; ``async with`` closes both connections."""

    async def __aenter__(self) -> "AsyncPhotoLibrary":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        self.close()

    async def authorization_status(self, level: Optional[Level] = None) -> str:
        return await self.auth.run(status_call(level))

    async def request_authorization(self, level: Level, on_prompt: Optional[PromptCallback] = None,
                                    timeout: float = 300) -> str:
        body = await self.auth.run(request_authorization_exchange(level, on_prompt, timeout))
        return StatusReply.from_json(body).status

    async def request_access(self, level: Level, location: Optional[str] = None,
                             on_prompt: Optional[PromptCallback] = None, timeout: float = 300) -> StatusReply:
        """:meth:`lightbox.PhotoLibrary.request_access` for asyncio."""
        return StatusReply.from_json(await self.auth.run(request_authorization_exchange(level, on_prompt, timeout, location)))

    async def present_limited_library_picker(self, on_prompt: Optional[PromptCallback] = None,
                                             timeout: float = 300) -> List[str]:
        return added_identifiers(await self.auth.run(limited_picker_exchange(on_prompt, timeout)))

    async def changes(self, since: int = 0) -> Tuple[List[AuthorizationChange], int]:
        return await self.auth.run(changes_call(since))

    async def watch(self, since: Optional[int] = None,
                    timeout: Optional[float] = None) -> AsyncIterator[AuthorizationChange]:
        """Sends ``auth.watch`` now and returns the changes as an async iterator (``aclose()`` it to stop)."""
        return await _watch(self.auth, AuthorizationWatch(), since, timeout)

    async def watch_library(self, since: Optional[int] = None,
                            timeout: Optional[float] = None) -> AsyncIterator[LibraryChange]:
        return await _watch(self.picker, LibraryWatch(), since, timeout)

    async def library_changes(self, since: int = 0) -> Tuple[List[LibraryChange], int]:
        return await self.picker.run(library_changes_call(since))

    async def fetch_assets(self, identifiers: Sequence[str]) -> List[Asset]:
        return await self.picker.run(fetch_assets_call(identifiers))

    async def query(self, media_type: Union[MediaType, str, None] = None, date_from: Optional[DateLike] = None,
                    date_to: Optional[DateLike] = None, oldest_first: bool = False, offset: int = 0,
                    limit: int = 100) -> Tuple[List[Asset], int]:
        return await self.picker.run(query_call(media_type, date_from, date_to, oldest_first, offset, limit))

    async def create_asset(self, data: Union[bytes, bytearray, memoryview], file_name: Optional[str] = None,
                           timeout: Optional[float] = None) -> str:
        return await self.picker.run(create_asset_call(data, file_name, timeout))

    async def albums(self) -> List[Album]:
        return await self.picker.run(albums_call())

    async def edit(self, asset: str, adjustment: AdjustmentData, edited: Union[bytes, bytearray, memoryview],
                   timeout: Optional[float] = None) -> EditedVersion:
        return await self.picker.run(edit_call(asset, adjustment, edited, timeout))

    async def editing_input(self, asset: str) -> Optional[EditedVersion]:
        return await self.picker.run(editing_input_call(asset))

    async def revert_to_original(self, asset: str) -> bool:
        return await self.picker.run(revert_call(asset))

    async def create_album(self, title: str) -> Album:
        return await self.picker.run(create_album_call(title))


async def _watch(connection: AsyncConnection, watch: ChangeWatch[T], since: Optional[int],
                 timeout: Optional[float]) -> AsyncIterator[T]:
    request_id = await connection.send(watch.op, changes_request_body(since))
    return _events(connection, request_id, watch, float("inf") if timeout is None else timeout)


async def _events(connection: AsyncConnection, request_id: str, watch: ChangeWatch[T],
                  timeout: float) -> AsyncIterator[T]:
    replies = connection.replies(request_id, timeout)
    try:
        async for reply in replies:
            change = watch.accept(reply)
            if change is not None:
                yield change
    finally:
        await replies.aclose()  # type: ignore[attr-defined]


class AsyncImageManager:
    """:class:`lightbox.ImageManager` for asyncio; cancel a running image request from another task
    with :meth:`cancel_image_request` (its id comes to ``on_start``)."""

    def __init__(self, connection: AsyncConnection) -> None:
        self.connection = connection

    async def request_image(self, asset: str, target_width: Optional[int] = None,
                            target_height: Optional[int] = None,
                            content_mode: Union[ImageContentMode, str, None] = None,
                            delivery_mode: Union[ImageDeliveryMode, str, None] = None,
                            version: Union[ImageVersion, str, None] = None,
                            network_access_allowed: Optional[bool] = None,
                            on_result: Optional[Callable[[ImageResult], Any]] = None,
                            on_progress: Optional[ProgressCallback] = None,
                            on_start: Optional[Callable[[str], Any]] = None,
                            timeout: Optional[float] = 60.0) -> ImageResult:
        return await self.connection.run(image_exchange(
            asset, target_width, target_height, content_mode, delivery_mode, version, network_access_allowed,
            on_result, on_progress, on_start, timeout))

    async def cancel_image_request(self, request_id: str) -> None:
        await self.connection.run(cancel_image_call(request_id))

    async def request_video_file(self, asset: str, path: PathLike,
                                 delivery_mode: Union[VideoDeliveryMode, str, None] = None,
                                 network_access_allowed: Optional[bool] = None, progress: Optional[Progress] = None,
                                 on_progress: Optional[ProgressCallback] = None, credit: int = DEFAULT_CREDIT,
                                 chunk_size: int = DEFAULT_CHUNK_SIZE, timeout: Optional[float] = 60.0,
                                 version: Union[ImageVersion, str, None] = None) -> VideoResult:
        destination = partial_file(path)
        with destination as handle:
            result = await self.connection.run(video_exchange(
                asset, handle.write, delivery_mode, network_access_allowed, progress, on_progress, credit,
                chunk_size, timeout, version))
            if result.is_in_cloud:
                destination.discard()
        return result

    async def properties(self, asset: str) -> AssetProperties:
        return await self.connection.run(properties_call(asset))
