"""Picking, for apps: :class:`PhotoPicker` (PHPickerViewController) returns :class:`PickerResult`
objects whose :class:`ItemProvider` (NSItemProvider) loads the picked bytes behind a token."""

from __future__ import annotations

import datetime as _dt
from typing import Any, Callable, Generic, List, Optional, Sequence, Type, TypeVar

from .delivery import DeliveredFile, open_call, stream_instead, uses_descriptor_delivery
from .errors import LightboxError
from .protocol import (DEFAULT_CHUNK_SIZE, DEFAULT_CREDIT, Filter, JSONObject, LoadCompletion, Reply, ReplyStatus,
                       conforms_to, load_request_body, parse_date, pick_request_body, preferred_filename_extension)
from .selection_limits import SelectionLimits
from .transport import Call, Connection, Exchange, PathLike, Progress, StreamExchange, partial_file

__all__ = ["ItemProvider", "PickerResult", "PhotoPicker", "parse_pick_response"]

C = TypeVar("C")
P = TypeVar("P", bound="ItemProviderBase[Any]")


class ItemProviderBase(Generic[C]):
    """What an item provider is without a connection: the token and the registered types. The
    blocking :class:`ItemProvider` and :class:`lightbox.aio.AsyncItemProvider` add the loads."""

    def __init__(self, token: str, registered_type_identifiers: Sequence[str], suggested_name: Optional[str] = None,
                 expires_at: Optional[_dt.datetime] = None, connection: Optional[C] = None) -> None:
        self.token = token
        self.registered_type_identifiers = list(registered_type_identifiers)
        self.suggested_name = suggested_name
        self.expires_at = expires_at
        self.connection = connection
        #: ``"automatic"``: over an ipc endpoint, loads take a read-only file descriptor from the
        #: picker's delivery socket (``provider.open``), else or when that fails the credit stream;
        #: ``"stream"``: always the credit stream (``provider.load``).
        self.delivery = "automatic"

    @classmethod
    def from_json(cls: Type[P], body: JSONObject, connection: Optional[Any] = None) -> P:
        return cls(token=body["token"], registered_type_identifiers=list(body.get("registeredTypeIdentifiers") or []),
                   suggested_name=body.get("suggestedName"), expires_at=parse_date(body.get("expiresAt")),
                   connection=connection)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(token={self.token[:10]}…, types={self.registered_type_identifiers}, "
                f"suggested_name={self.suggested_name!r}, expires_at={self.expires_at})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ItemProviderBase):
            return NotImplemented
        return (self.token, self.registered_type_identifiers, self.suggested_name, self.expires_at) == (
            other.token, other.registered_type_identifiers, other.suggested_name, other.expires_at)

    __hash__ = None  # type: ignore[assignment]

    def has_item_conforming_to(self, uti: str) -> bool:
        """Whether a registered type is ``uti`` or conforms to it (``public.jpeg`` → ``public.image``)."""
        return any(conforms_to(registered, uti) for registered in self.registered_type_identifiers)

    def file_name(self, type: Optional[str] = None) -> str:
        """``suggestedName`` plus the extension of ``type`` (default: the first registered type)."""
        name = self.suggested_name or "item"
        uti = type or (self.registered_type_identifiers[0] if self.registered_type_identifiers else "")
        extension = preferred_filename_extension(uti)
        return f"{name}.{extension}" if extension else name

    def _require_connection(self) -> C:
        if self.connection is None:
            raise LightboxError("badRequest", "This item provider has no connection to the picker.")
        return self.connection

    def _tries_descriptor(self, endpoint: str) -> bool:
        return self.delivery == "automatic" and uses_descriptor_delivery(endpoint)

    def _describe_call(self, timeout: Optional[float]) -> Call[JSONObject]:
        return Call("provider.describe", {"token": self.token}, lambda body: body, timeout=timeout)

    def _load_exchange(self, type: Optional[str], consume: Callable[[bytes], Any], progress: Optional[Progress],
                       credit: int, chunk_size: int, timeout: float) -> "LoadExchange":
        return LoadExchange(load_request_body(self.token, type, credit, chunk_size), consume, progress, timeout)


class LoadExchange(StreamExchange[LoadCompletion]):
    """``provider.load``: a credit-based stream of the representation."""

    def __init__(self, body: JSONObject, consume: Callable[[bytes], Any], progress: Optional[Progress],
                 timeout: Optional[float]) -> None:
        super().__init__("provider.load", body, consume, progress, timeout)

    def finish(self, reply: Reply) -> LoadCompletion:
        return self.completion(reply)


class ItemProvider(ItemProviderBase[Connection]):
    """NSItemProvider for a picked asset: the app holds the token, the picker holds the bytes."""

    def describe(self, timeout: Optional[float] = None) -> JSONObject:
        """``provider.describe``: types, suggestedName, fileSize and image properties, without the bytes."""
        return self._require_connection().run(self._describe_call(timeout))

    def load_data(self, type: Optional[str] = None, progress: Optional[Progress] = None,
                  credit: int = DEFAULT_CREDIT, chunk_size: int = DEFAULT_CHUNK_SIZE, timeout: float = 30.0) -> bytes:
        """Loads the whole representation into memory (prefer :meth:`load_file` for large files)."""
        delivered = self._open_delivered(type, timeout)
        if delivered is not None:
            with delivered:
                return delivered.read(progress)
        parts: List[bytes] = []
        self._require_connection().run(self._load_exchange(type, parts.append, progress, credit, chunk_size, timeout))
        return b"".join(parts)

    def load_file(self, path: PathLike, type: Optional[str] = None, progress: Optional[Progress] = None,
                  credit: int = DEFAULT_CREDIT, chunk_size: int = DEFAULT_CHUNK_SIZE,
                  timeout: float = 30.0) -> LoadCompletion:
        """Writes the representation into ``path``, which the caller owns: copied from a delivered
        descriptor (ipc endpoints), or streamed.

        Bytes go to a temporary file in the same folder that replaces ``path`` only once every byte
        arrived (and, streamed, the digest matched), so nobody sees a half-written file. Memory
        stays within a few chunks whatever the file's size.
        """
        connection = self._require_connection()
        with partial_file(path) as handle:
            delivered = self._open_delivered(type, timeout)
            if delivered is not None:
                with delivered:
                    return delivered.copy_to(handle, progress)
            return connection.run(self._load_exchange(type, handle.write, progress, credit, chunk_size, timeout))

    def _open_delivered(self, type: Optional[str], timeout: float) -> Optional[DeliveredFile]:
        """The representation as a delivered descriptor, or None when the stream should carry it."""
        connection = self._require_connection()
        if not self._tries_descriptor(connection.endpoint):
            return None
        try:
            ticket = connection.run(open_call(self.token, type, timeout))
        except LightboxError as error:
            if stream_instead(error):
                return None
            raise
        return DeliveredFile.present(ticket)


class PickerResult(Generic[P]):
    """One picked asset (PHPickerResult). ``asset_identifier`` is set only for photo-library picks."""

    def __init__(self, asset_identifier: Optional[str], item_provider: P) -> None:
        self.asset_identifier = asset_identifier
        self.item_provider = item_provider

    def __repr__(self) -> str:
        return f"PickerResult({self.asset_identifier!r}, {self.item_provider!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PickerResult):
            return NotImplemented
        return (self.asset_identifier, self.item_provider) == (other.asset_identifier, other.item_provider)

    __hash__ = None  # type: ignore[assignment]


def parse_pick_response(body: JSONObject, connection: Optional[Any] = None,
                        provider: Type[P] = ItemProvider) -> List[PickerResult[P]]:  # type: ignore[assignment]
    """The results of a ``picker.pick`` ``ok`` body (empty when the owner cancelled), with item
    providers of class ``provider`` on ``connection``."""
    return [PickerResult(result.get("assetIdentifier"), provider.from_json(result["itemProvider"], connection))
            for result in body.get("results") or []]


class PickExchange(Exchange[JSONObject]):
    """``picker.pick``: a ``pickStarted`` event once the owner's surfaces see it, then the results."""

    def __init__(self, body: JSONObject, on_started: Optional[Callable[[str], Any]], timeout: float) -> None:
        super().__init__("picker.pick", body, timeout=timeout)
        self.on_started = on_started

    def step(self, reply: Reply) -> None:
        if reply.status == ReplyStatus.EVENT and reply.body.get("event") == "pickStarted":
            if self.on_started is not None:
                self.on_started(str(reply.body.get("pick", "")))

    def finish(self, reply: Reply) -> JSONObject:
        return reply.body


def pick_exchange(selection_limit: int = 1, filter: Optional[Filter] = None, ordered: bool = False,
                  photo_library: bool = False, on_started: Optional[Callable[[str], Any]] = None,
                  timeout: float = 600, preselected_asset_identifiers: Sequence[str] = (),
                  strip_metadata: str = "none", limits: Optional[SelectionLimits] = None,
                  location: str = "none") -> PickExchange:
    body = pick_request_body(selection_limit=selection_limit, filter=filter, ordered=ordered,
                             photo_library=photo_library, preselected_asset_identifiers=preselected_asset_identifiers,
                             strip_metadata=strip_metadata, limits=limits, location=location)
    return PickExchange(body, on_started, timeout)


class PhotoPicker:
    """PHPickerViewController for a process: asks the picker for a pick the owner completes."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def pick(self, selection_limit: int = 1, filter: Optional[Filter] = None, ordered: bool = False,
             photo_library: bool = False, on_started: Optional[Callable[[str], Any]] = None,
             timeout: float = 600, preselected_asset_identifiers: Sequence[str] = (),
             strip_metadata: str = "none", limits: Optional[SelectionLimits] = None,
             location: str = "none") -> List[PickerResult[ItemProvider]]:
        """Waits (up to ``timeout`` seconds) for the owner; an empty list means the owner cancelled.

        ``selection_limit`` 0 means no limit; ``filter`` is a leaf name or ``{"any"|"all": […]}`` /
        ``{"not": F}`` (see :func:`~lightbox.protocol.parse_filter` for the text form);
        ``photo_library`` asks for asset identifiers too. ``on_started`` gets the pick's id as soon
        as the owner's surfaces can see it. ``limits`` (:class:`~lightbox.SelectionLimits`: largest
        file, fewest and most pixels, longest video, kinds) show the owner what does not fit
        disabled, and the picker never delivers it. ``location`` (none, approximate, precise) asks
        for where the items were taken; without the owner's consent they carry no location at all.
        """
        body = self.connection.run(pick_exchange(selection_limit, filter, ordered, photo_library, on_started, timeout,
                                                 preselected_asset_identifiers, strip_metadata, limits, location))
        return parse_pick_response(body, self.connection, ItemProvider)

