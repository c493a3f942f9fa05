"""The library, for apps: :class:`PhotoLibrary` (PHPhotoLibrary and PHAsset) — authorization on
lightbox-auth, the library itself on lightbox-picker (which asks lightbox-auth before each call).

The module-level ``*_call`` functions and exchanges describe each operation once; the blocking
:class:`PhotoLibrary` here and :class:`lightbox.aio.AsyncPhotoLibrary` run them.
"""

from __future__ import annotations

from typing import Any, Callable, Generic, Iterator, List, Optional, Protocol, Sequence, Set, Tuple, TypeVar, Union

from .editing import AdjustmentData, EditedVersion, edit_call, editing_input_call, revert_call
from .errors import LightboxError
from .protocol import (MAXIMUM_CREATE_SIZE, AccessLevel, Album, AlbumPage, Asset, AuthorizationChange, DateLike, JSONObject,
                       LibraryChange, LimitedPickerResult, MediaType, Reply, ReplyStatus, StatusReply, album_assets_body,
                       album_membership_body, authorization_request_body, changes_request_body, create_album_body,
                       create_asset_body, fetch_assets_body, media_frame, prompt_shown, query_body, status_request_body)
from .transport import Call, Closeable, Connection, Exchange

__all__ = ["PhotoLibrary", "PromptCallback"]

#: ``on_prompt(prompt_id)``: the owner was just shown a prompt for this request.
PromptCallback = Callable[[str], Any]
Level = Union[AccessLevel, str]
C = TypeVar("C", bound=Closeable)
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

# ---------------------------------------------------------------------------------------------
# The operations, once
# ---------------------------------------------------------------------------------------------


def status_call(level: Optional[Level]) -> Call[str]:
    return Call("auth.status", status_request_body(level), lambda body: StatusReply.from_json(body).status)


class PromptedExchange(Exchange[JSONObject]):
    """A request that may show the owner a prompt first (``promptShown`` event); its ``ok`` body."""

    def __init__(self, op: str, body: JSONObject, on_prompt: Optional[PromptCallback], timeout: float) -> None:
        super().__init__(op, body, timeout=timeout)
        self.on_prompt = on_prompt

    def step(self, reply: Reply) -> None:
        prompt = prompt_shown(reply)
        if prompt is not None and self.on_prompt is not None:
            self.on_prompt(prompt)

    def finish(self, reply: Reply) -> JSONObject:
        return reply.body


def request_authorization_exchange(level: Level, on_prompt: Optional[PromptCallback],
                                   timeout: float, location: Optional[str] = None) -> PromptedExchange:
    return PromptedExchange("auth.request", authorization_request_body(level, location), on_prompt, timeout)


def limited_picker_exchange(on_prompt: Optional[PromptCallback], timeout: float) -> PromptedExchange:
    return PromptedExchange("auth.presentLimitedLibraryPicker", {}, on_prompt, timeout)


def added_identifiers(body: JSONObject) -> List[str]:
    return [str(identifier) for identifier in body.get("added") or []]


def changes_call(since: int) -> Call[Tuple[List[AuthorizationChange], int]]:
    return Call("auth.changes", changes_request_body(since), lambda body: (
        [AuthorizationChange.from_json(change) for change in body.get("changes") or []], int(body.get("token", since))))


def library_changes_call(since: int) -> Call[Tuple[List[LibraryChange], int]]:
    return Call("library.changes", changes_request_body(since), lambda body: (
        [LibraryChange.from_json(change) for change in body.get("changes") or []], int(body.get("token", since))))


def _assets(body: JSONObject) -> List[Asset]:
    return [Asset.from_json(asset) for asset in body.get("assets") or []]


def fetch_assets_call(identifiers: Sequence[str]) -> Call[List[Asset]]:
    return Call("library.fetchAssets", fetch_assets_body(identifiers), _assets)


def query_call(media_type: Union[MediaType, str, None], date_from: Optional[DateLike], date_to: Optional[DateLike],
               oldest_first: bool, offset: int, limit: int) -> Call[Tuple[List[Asset], int]]:
    return Call("library.query", query_body(media_type, date_from, date_to, oldest_first, offset, limit),
                lambda body: (_assets(body), int(body.get("total", 0))))


def create_asset_call(data: Union[bytes, bytearray, memoryview], file_name: Optional[str],
                      timeout: Optional[float]) -> Call[str]:
    data = media_frame(data, "library.create")

    def identifier(body: JSONObject) -> str:
        if "identifier" not in body:
            raise LightboxError("internal", "library.create ended without an identifier.")
        return str(body["identifier"])

    return Call("library.create", create_asset_body(file_name), identifier, attachments=[data], timeout=timeout)


def albums_call() -> Call[List[Album]]:
    return Call("library.albums", {}, lambda body: [Album.from_json(album) for album in body.get("albums") or []])


def create_album_call(title: str) -> Call[Album]:
    return Call("library.createAlbum", create_album_body(title), lambda body: Album.from_json(body["album"]))


def album_membership_call(album: str, assets: Sequence[str], adding: bool) -> Call[None]:
    return Call("library.albums.add" if adding else "library.albums.remove", album_membership_body(album, assets), lambda body: None)


def album_assets_call(album: str, limit: int, after: Optional[str]) -> Call[AlbumPage]:
    return Call("library.albums.assets", album_assets_body(album, limit, after), AlbumPage.from_json)


class ChangeWatch(Protocol[T_co]):
    """How a watch's replies become changes: ``op`` starts it, ``accept`` reads each reply."""

    op: str

    def accept(self, reply: Reply) -> Optional[T_co]: ...


class AuthorizationWatch:
    """Reads ``auth.watch`` replies: each change once, even if it is both replayed and broadcast."""

    op = "auth.watch"

    def __init__(self) -> None:
        self.seen: Set[int] = set()

    def accept(self, reply: Reply) -> Optional[AuthorizationChange]:
        if reply.status != ReplyStatus.EVENT:
            return None
        change = AuthorizationChange.from_json(reply.body)
        if change.token in self.seen:
            return None
        self.seen.add(change.token)
        return change


class LibraryWatch:
    """Reads ``library.watch`` replies: changes in token order, each once."""

    op = "library.watch"

    def __init__(self) -> None:
        self.latest = -1

    def accept(self, reply: Reply) -> Optional[LibraryChange]:
        if reply.status != ReplyStatus.EVENT:
            return None
        change = LibraryChange.from_json(reply.body)
        if change.token <= self.latest:
            return None
        self.latest = change.token
        return change


# ---------------------------------------------------------------------------------------------
# PhotoLibrary
# ---------------------------------------------------------------------------------------------


class LibraryBase(Generic[C]):
    """The two connections of a photo library (either may be None when only the other service's
    operations are used: a tool that only asks for authorization needs no picker)."""

    def __init__(self, auth_conn: Optional[C], picker_conn: Optional[C] = None) -> None:
        self.auth_connection = auth_conn
        self.picker_connection = picker_conn

    def close(self) -> None:
        """Closes both connections (ending any watch)."""
        for connection in (self.auth_connection, self.picker_connection):
            if connection is not None:
                connection.close()

    @property
    def auth(self) -> C:
        if self.auth_connection is None:
            raise LightboxError("badRequest", "This photo library has no connection to lightbox-auth.")
        return self.auth_connection

    @property
    def picker(self) -> C:
        if self.picker_connection is None:
            raise LightboxError("badRequest", "This photo library has no connection to lightbox-picker.")
        return self.picker_connection


class PhotoLibrary(LibraryBase[Connection]):
    """PHPhotoLibrary and PHAsset for an app, shaped like PhotoKit and like the Swift client's
    ``PhotoLibrary``. Statuses are :class:`~lightbox.protocol.AuthorizationStatus` members, levels
    :class:`~lightbox.protocol.AccessLevel` ones (or their wire names). Used as a context manager it
    closes both connections at the end.
    """

    def __enter__(self) -> "PhotoLibrary":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- authorization (auth service) --

    def authorization_status(self, level: Optional[Level] = None) -> str:
        """``PHPhotoLibrary.authorizationStatus(for:)``; without ``level`` the legacy
        ``authorizationStatus()``, which reports limited as authorized."""
        return self.auth.run(status_call(level))

    def request_authorization(self, level: Level, on_prompt: Optional[PromptCallback] = None,
                              timeout: float = 300) -> str:
        """``PHPhotoLibrary.requestAuthorization(for:)``: returns the status.

        Only while the status is notDetermined does the owner get a prompt (``on_prompt`` gets its id
        when it is shown) and this waits up to ``timeout`` seconds for the answer; otherwise the
        stored status comes back at once. Raises ``missingUsageDescription`` when the app's manifest
        does not say why it wants ``level``, and ``timeout`` when the owner does not answer (the
        status then stays notDetermined).
        """
        return StatusReply.from_json(self.auth.run(request_authorization_exchange(level, on_prompt, timeout))).status

    def request_access(self, level: Level, location: Optional[str] = None, on_prompt: Optional[PromptCallback] = None,
                       timeout: float = 300) -> StatusReply:
        """:meth:`request_authorization` asking also for where the photos were taken (``location``:
        none, approximate or precise, with readWrite). The owner is asked once per request, with
        the access prompt or, once access is granted, on its own; the reply's ``location`` is what
        this app's library reads deliver."""
        return StatusReply.from_json(self.auth.run(request_authorization_exchange(level, on_prompt, timeout, location)))

    def present_limited_library_picker(self, on_prompt: Optional[PromptCallback] = None,
                                       timeout: float = 300) -> List[str]:
        """``PHPhotoLibrary.presentLimitedLibraryPicker``: the owner edits this app's limited
        selection; returns the identifiers newly added (empty when none). Raises ``notLimited``
        unless readWrite access is limited."""
        return added_identifiers(self.auth.run(limited_picker_exchange(on_prompt, timeout)))

    def present_limited_library_picker_with_albums(self, on_prompt: Optional[PromptCallback] = None,
                                                   timeout: float = 300) -> LimitedPickerResult:
        """The limited-library picker, as :meth:`present_limited_library_picker`, saying also which
        albums the owner newly let the selection follow (their photos, now and later, are this app's)."""
        return LimitedPickerResult.from_json(self.auth.run(limited_picker_exchange(on_prompt, timeout)))

    def changes(self, since: int = 0) -> Tuple[List[AuthorizationChange], int]:
        """What changed after ``since`` (oldest first), and the newest token to pass next time."""
        return self.auth.run(changes_call(since))

    def watch(self, since: Optional[int] = None, timeout: Optional[float] = None) -> Iterator[AuthorizationChange]:
        """Changes to this app's access as they happen (PHPhotoLibraryChangeObserver).

        The ``auth.watch`` request is sent at once (so nothing after this call is missed); with
        ``since`` the changes after that token come first, so a reconnecting app misses nothing.
        The watch never ends by itself: stop iterating (``break``, or ``close()`` the iterator),
        then close the connection or keep using it for other requests. ``timeout`` is the longest
        wait for the next change (default: no limit); past it the iteration raises ``timeout``.
        """
        return _watch(self.auth, AuthorizationWatch(), since, timeout)

    # -- the library (picker) --

    def watch_library(self, since: Optional[int] = None, timeout: Optional[float] = None) -> Iterator[LibraryChange]:
        """Library changes this app may see, as they happen; with ``since`` the changes after that
        token come first. Ends and times out like :meth:`watch`."""
        return _watch(self.picker, LibraryWatch(), since, timeout)

    def library_changes(self, since: int = 0) -> Tuple[List[LibraryChange], int]:
        """Library changes after ``since`` that this app may see (oldest first), and the token to
        pass next time (more may follow when as many came as one reply holds: ask again)."""
        return self.picker.run(library_changes_call(since))

    def fetch_assets(self, identifiers: Sequence[str]) -> List[Asset]:
        """``PHAsset.fetchAssets(withLocalIdentifiers:)``: only the assets this app may see, in the
        order asked; without access (or for unknown identifiers) simply nothing, never an error."""
        return self.picker.run(fetch_assets_call(identifiers))

    def query(self, media_type: Union[MediaType, str, None] = None, date_from: Optional[DateLike] = None,
              date_to: Optional[DateLike] = None, oldest_first: bool = False, offset: int = 0,
              limit: int = 100) -> Tuple[List[Asset], int]:
        """``PHAsset.fetchAssets(with:options:)``: the assets this app may see, by media type
        (``image`` / ``video``) and creation date (``date_from`` inclusive, ``date_to`` exclusive),
        newest first unless ``oldest_first``, paged. Returns ``(page, total before paging)``."""
        return self.picker.run(query_call(media_type, date_from, date_to, oldest_first, offset, limit))

    def create_asset(self, data: Union[bytes, bytearray, memoryview], file_name: Optional[str] = None,
                     timeout: Optional[float] = None) -> str:
        """``PHAssetCreationRequest``: adds a photo or video (at most 16 MiB); returns its identifier.

        Needs addOnly authorized, or readWrite authorized or limited (``notAuthorized`` otherwise);
        media the picker cannot read gets ``badMedia``. A limited app's new asset joins its selection.
        """
        return self.picker.run(create_asset_call(data, file_name, timeout))

    def albums(self) -> List[Album]:
        """The albums (needs readWrite authorized; ``notAuthorized`` when limited)."""
        return self.picker.run(albums_call())

    def create_album(self, title: str) -> Album:
        """Creates an album (needs readWrite authorized)."""
        return self.picker.run(create_album_call(title))

    # -- edits with the original kept (picker) --

    def edit(self, asset: str, adjustment: AdjustmentData, edited: Union[bytes, bytearray, memoryview],
             timeout: Optional[float] = None) -> EditedVersion:
        """PHContentEditingOutput: saves ``edited`` (the whole edited photo or movie, at most 16 MiB,
        of the original's kind) as the asset's current version, described by ``adjustment``; the
        original is kept. Needs readWrite authorized, or limited with the asset in the selection
        (``notAuthorized`` otherwise; ``notFound`` outside the selection); a file that does not
        decode gets ``badMedia``."""
        return self.picker.run(edit_call(asset, adjustment, edited, timeout))

    def editing_input(self, asset: str) -> Optional[EditedVersion]:
        """PHContentEditingInput: the current version's adjustment data, or None while the
        asset is its original."""
        return self.picker.run(editing_input_call(asset))

    def revert_to_original(self, asset: str) -> bool:
        """Returns the asset to its original (who may: as :meth:`edit`); False when it had no edit."""
        return self.picker.run(revert_call(asset))

    def add_to_album(self, album: str, assets: Sequence[str]) -> None:
        """Adds 1 to 1000 assets to an album (needs readWrite authorized). Apps whose limited
        selection follows the album see them from now on, as insertions."""
        self.picker.run(album_membership_call(album, assets, adding=True))

    def remove_from_album(self, album: str, assets: Sequence[str]) -> None:
        """Takes 1 to 1000 assets out of an album (needs readWrite authorized)."""
        self.picker.run(album_membership_call(album, assets, adding=False))

    def album_assets(self, album: str, limit: int = 100, after: Optional[str] = None) -> AlbumPage:
        """One page of an album's assets, newest first (needs readWrite authorized)."""
        return self.picker.run(album_assets_call(album, limit, after))


def _watch(connection: Connection, watch: ChangeWatch[T], since: Optional[int],
           timeout: Optional[float]) -> Iterator[T]:
    # Sent here, not in the generator: the watch starts now, not at the first next().
    request_id = connection.send(watch.op, changes_request_body(since))
    return _events(connection, request_id, watch, float("inf") if timeout is None else timeout)


def _events(connection: Connection, request_id: str, watch: ChangeWatch[T], timeout: float) -> Iterator[T]:
    for reply in connection.replies(request_id, timeout):
        change = watch.accept(reply)
        if change is not None:
            yield change
