"""A small Python client for Lightbox's picker and auth services.

Lightbox services speak the wire protocol in ``docs/PROTOCOL.md``: every service binds one
CURVE-secured ZeroMQ ROUTER socket; a client connects one DEALER socket, sends a JSON header frame
(``{"v":1,"id":…,"op":…,"body":{…}}``) plus optional binary frames, and gets back replies with the
same ``id`` and a ``status`` of ``ok`` / ``error`` (final) or ``progress`` / ``chunk`` / ``event``.

The pieces, from the bottom up:

- :class:`Connection` -- one DEALER socket with CURVE; ``request`` / ``send`` + ``replies`` / ``post``.
- :class:`ServiceDirectory` -- where the services are and where the keys live (a data directory).
- :class:`PhotoPicker` -- ``picker.pick`` for apps, returning :class:`PickerResult` objects.
- :class:`ItemProvider` -- ``provider.describe`` / ``provider.load`` behind a token, with
  credit-based flow control and digest checks.
- :class:`PhotoLibrary` -- PHPhotoLibrary / PHAsset for apps: authorization (auth service) and the
  library itself (picker): fetch, query, create, albums, and a watch on the app's access.
- :class:`OwnerSurface` -- the owner's operations (pending picks, assets, choose, cancel, revoke).
- :class:`AppRegistry` -- the owner's app registry on the auth service.
- :class:`OwnerSettings` -- the owner's prompts, per-app access settings and audit trail (auth service).

The request builders (``*_body`` functions, :func:`build_request`) and reply parsers
(:func:`parse_reply`, ``from_json`` class methods) are pure functions so the golden fixtures in
``Tests/Fixtures/golden`` can check them without a running service.

A :class:`Connection` is not thread-safe (neither is a ZeroMQ socket): give each thread its own.

Only dependency: pyzmq (with CURVE support, which the PyPI wheels have).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import math
import os
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import zmq

__all__ = [
    "PROTOCOL_VERSION",
    "DEFAULT_CREDIT",
    "DEFAULT_CHUNK_SIZE",
    "LightboxError",
    "KeyPair",
    "add_service_arguments",
    "load_key_pair",
    "load_public_key",
    "Reply",
    "Connection",
    "ServiceDirectory",
    "PhotoPicker",
    "PickerResult",
    "ItemProvider",
    "ChunkHeader",
    "LoadCompletion",
    "PendingPick",
    "Asset",
    "OwnerSurface",
    "AppRegistry",
    "PhotoLibrary",
    "OwnerSettings",
    "StatusReply",
    "AuthorizationChange",
    "OwnerPrompt",
    "AppAccess",
    "AccessUpdate",
    "AuditEntry",
    "AuditPage",
    "Album",
    "ACCESS_LEVELS",
    "AUTHORIZATION_STATUSES",
    "PROMPT_ANSWERS",
    "conforms_to",
    "preferred_filename_extension",
    "parse_filter",
    "validate_filter",
    "build_request",
    "parse_reply",
    "parse_pick_response",
    "parse_date",
    "encode_header",
    "new_request_id",
    "pick_configuration",
    "pick_request_body",
    "load_request_body",
    "stream_credit_body",
    "stream_cancel_body",
    "choose_request_body",
    "register_app_body",
    "format_date",
    "status_request_body",
    "authorization_request_body",
    "changes_request_body",
    "fetch_assets_body",
    "query_body",
    "create_asset_body",
    "create_album_body",
    "prompts_request_body",
    "answer_prompt_body",
    "set_access_body",
    "audit_body",
    "LibraryChange",
    "prompt_shown",
]

PROTOCOL_VERSION = 1
#: Chunks a load may send before the client grants more (the protocol's default).
DEFAULT_CREDIT = 8
#: Bytes per chunk the client asks for (the protocol's default).
DEFAULT_CHUNK_SIZE = 256 * 1024
#: The largest window the picker accepts; bigger requests are clamped by the service.
MAXIMUM_CREDIT = 64

FINAL_STATUSES = ("ok", "error")
#: The longest single poll; longer waits (a watch may wait forever) poll again.
MAXIMUM_POLL_SECONDS = 3600.0

#: PHAccessLevel: adding to the library, or reading and writing it.
ACCESS_LEVELS = ("readWrite", "addOnly")
#: PHAuthorizationStatus. ``limited`` exists for ``readWrite`` only.
AUTHORIZATION_STATUSES = ("notDetermined", "restricted", "denied", "authorized", "limited")
#: The owner's answers: readWrite prompts take full / limited / deny, addOnly prompts allow / deny,
#: the limited-library picker takes done.
PROMPT_ANSWERS = ("full", "limited", "deny", "allow", "done")
#: The owner's settings for an app (``owner.access.set``).
READ_WRITE_SETTINGS = ("full", "limited", "none", "restricted")
ADD_ONLY_SETTINGS = ("allow", "none", "restricted")
#: ``library.query``'s media types.
MEDIA_TYPES = ("image", "video")
#: The largest photo or video ``library.create`` takes (16 MiB).
MAXIMUM_CREATE_SIZE = 16 * 1024 * 1024

# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


class LightboxError(Exception):
    """An ``error`` reply from a service, or a client-side failure with a code from the same set.

    ``code`` is one of the protocol's error codes (``badRequest``, ``tokenExpired``, ``timeout``,
    …), ``message`` a sentence a person can act on, ``details`` an optional dict of strings.
    """

    def __init__(self, code: str, message: str, details: Optional[Dict[str, Any]] = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.details = details

    @classmethod
    def from_body(cls, body: Dict[str, Any]) -> "LightboxError":
        """The error an ``error`` reply's body describes."""
        return cls(str(body.get("code", "internal")), str(body.get("message", "")), body.get("details"))

    def __repr__(self) -> str:
        return f"LightboxError({self.code!r}, {self.message!r}, {self.details!r})"


# ---------------------------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyPair:
    """A CURVE key pair as Z85 text (40 characters each)."""

    public: str
    secret: str = field(repr=False)


def add_service_arguments(parser: "argparse.ArgumentParser", timeout: float) -> None:
    """The options every script shares: the app, the data directory, the endpoints, a time-out."""
    parser.add_argument("--app", required=True, help="the app id (its key is DATA/apps/ID.key)")
    parser.add_argument("--data", default=os.environ.get("LIGHTBOX_DATA", "var"),
                        help="data directory with keys/ and apps/ (env LIGHTBOX_DATA, default var)")
    parser.add_argument("--auth-endpoint", default=None, help="env LIGHTBOX_AUTH_ENDPOINT")
    parser.add_argument("--picker-endpoint", default=None, help="env LIGHTBOX_PICKER_ENDPOINT")
    parser.add_argument("--timeout", type=float, default=timeout,
                        help=f"seconds to wait for the owner (default {timeout:g})")


def load_key_pair(path: Union[str, os.PathLike]) -> KeyPair:
    """Reads a key file: ``{"public":"<Z85>","secret":"<Z85>"}``."""
    try:
        with open(path, "r", encoding="utf-8") as handle:
            data = json.load(handle)
        return KeyPair(public=data["public"], secret=data["secret"])
    except OSError as error:
        raise LightboxError("notFound", f"Cannot read the key file {path}: {error.strerror}.") from error
    except (ValueError, KeyError, TypeError) as error:
        raise LightboxError("badRequest", f'{path} is not a Lightbox key file ({{"public":…,"secret":…}}).') from error


def load_public_key(path: Union[str, os.PathLike], wait: float = 0.0) -> str:
    """Reads a public key file (Z85 text), waiting up to ``wait`` seconds for it to appear."""
    deadline = time.monotonic() + wait
    while True:
        try:
            with open(path, "r", encoding="utf-8") as handle:
                key = handle.read().strip()
            if len(key) == 40:
                return key
            raise LightboxError("badRequest", f"{path} does not hold a Z85 CURVE public key.")
        except FileNotFoundError:
            if time.monotonic() >= deadline:
                raise LightboxError(
                    "notFound",
                    f"Cannot read the public key {path}; has that service been started once with this data directory?",
                ) from None
            time.sleep(0.05)


# ---------------------------------------------------------------------------------------------
# Uniform type identifiers (a copy of Shared/LightboxProtocol/UTType.swift)
# ---------------------------------------------------------------------------------------------

#: Direct parents of each known type. Unknown types conform only to themselves.
UTI_PARENTS: Dict[str, Sequence[str]] = {
    "public.content": ("public.item",),
    "public.data": ("public.item",),
    "public.image": ("public.data", "public.content"),
    "public.jpeg": ("public.image",),
    "public.png": ("public.image",),
    "public.heif": ("public.image",),
    "public.heic": ("public.heif",),
    "org.webmproject.webp": ("public.image",),
    "com.compuserve.gif": ("public.image",),
    "public.audiovisual-content": ("public.data", "public.content"),
    "public.movie": ("public.audiovisual-content",),
    "public.video": ("public.movie",),
    "public.mpeg-4": ("public.movie",),
    "com.apple.live-photo": ("public.content",),
    "com.apple.quicktime-movie": ("public.movie",),
}

#: The file name extension an app gives a file of each type.
UTI_EXTENSIONS: Dict[str, str] = {
    "public.jpeg": "jpg",
    "public.png": "png",
    "public.heic": "heic",
    "public.heif": "heif",
    "org.webmproject.webp": "webp",
    "com.compuserve.gif": "gif",
    "public.mpeg-4": "mp4",
    "com.apple.quicktime-movie": "mov",
}


def conforms_to(uti: str, other: str) -> bool:
    """True when ``uti`` is ``other`` or one of its descendants (``public.jpeg`` → ``public.image``)."""
    if uti == other:
        return True
    return any(conforms_to(parent, other) for parent in UTI_PARENTS.get(uti, ()))


def preferred_filename_extension(uti: str) -> Optional[str]:
    """``jpg`` for ``public.jpeg`` and so on; None for types without one (``public.image``)."""
    return UTI_EXTENSIONS.get(uti)


# ---------------------------------------------------------------------------------------------
# Picker filters
# ---------------------------------------------------------------------------------------------

FILTER_LEAVES = (
    "images", "videos", "livePhotos", "screenshots", "panoramas", "bursts",
    "slomoVideos", "timelapseVideos", "animatedImages",
)

Filter = Union[str, Dict[str, Any]]


def validate_filter(value: Filter) -> Filter:
    """Checks a filter in wire form (a leaf name, ``{"any":[…]}``, ``{"all":[…]}``, ``{"not":F}``)."""
    if isinstance(value, str):
        if value not in FILTER_LEAVES:
            raise LightboxError("badRequest", f'Unknown filter "{value}"; known: {", ".join(sorted(FILTER_LEAVES))}.')
        return value
    if isinstance(value, dict) and len(value) == 1:
        (key, argument), = value.items()
        if key in ("any", "all") and isinstance(argument, (list, tuple)):
            return {key: [validate_filter(item) for item in argument]}
        if key == "not":
            return {"not": validate_filter(argument)}
    raise LightboxError("badRequest", f"Bad filter {value!r}: use a name, or one of any, all, not.")


def parse_filter(text: str) -> Filter:
    """Parses the text form the CLI accepts (``images``, ``any(images,not(videos))``) into wire form."""
    source = "".join(text.split())
    position = 0

    def fail(reason: str) -> LightboxError:
        return LightboxError(
            "badRequest", f"Bad filter: {reason}. Use a name such as images or videos, or any(…), all(…), not(…)."
        )

    def parse() -> Filter:
        nonlocal position
        start = position
        while position < len(source) and source[position].isalpha():
            position += 1
        name = source[start:position]
        if not name:
            raise fail(f'expected a filter name at "{source[start:]}"')
        if name in ("any", "all", "not"):
            if position >= len(source) or source[position] != "(":
                raise fail("expected ( after a combinator")
            position += 1
            arguments = []
            while True:
                arguments.append(parse())
                if position < len(source) and source[position] == ",":
                    position += 1
                    continue
                if position < len(source) and source[position] == ")":
                    position += 1
                    break
                raise fail(f'expected , or ) at "{source[position:]}"')
            if name == "not":
                if len(arguments) != 1:
                    raise fail("not(…) takes exactly one filter")
                return {"not": arguments[0]}
            return {name: arguments}
        if name not in FILTER_LEAVES:
            raise fail(f'unknown filter "{name}"')
        return name

    result = parse()
    if position != len(source):
        raise fail(f'unexpected "{source[position:]}"')
    return result


# ---------------------------------------------------------------------------------------------
# Request builders (pure)
# ---------------------------------------------------------------------------------------------


def new_request_id() -> str:
    return str(uuid.uuid4()).upper()


def build_request(op: str, body: Optional[Dict[str, Any]] = None, id: Optional[str] = None) -> Dict[str, Any]:
    """The header object of a request: ``{"v":1,"id":…,"op":…,"body":{…}}``."""
    return {"v": PROTOCOL_VERSION, "id": id or new_request_id(), "op": op, "body": body if body is not None else {}}


def encode_header(header: Dict[str, Any]) -> bytes:
    """JSON header frame bytes (UTF-8, compact, sorted keys like the Swift encoder)."""
    return json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def pick_configuration(
    selection_limit: int = 1,
    filter: Optional[Filter] = None,
    ordered: bool = False,
    photo_library: bool = False,
    preselected_asset_identifiers: Sequence[str] = (),
    preferred_asset_representation_mode: str = "automatic",
    strip_metadata: str = "none",
) -> Dict[str, Any]:
    """A PHPickerConfiguration in wire form. ``selection_limit`` 0 means no limit; ``strip_metadata``
    (none, location, all) removes metadata from delivered images."""
    if selection_limit < 0:
        raise LightboxError("badRequest", "selection_limit must be 0 (no limit) or more.")
    configuration: Dict[str, Any] = {"selectionLimit": int(selection_limit)}
    if filter is not None:
        configuration["filter"] = validate_filter(filter)
    configuration["selection"] = "ordered" if ordered else "default"
    configuration["preselectedAssetIdentifiers"] = list(preselected_asset_identifiers)
    configuration["preferredAssetRepresentationMode"] = preferred_asset_representation_mode
    configuration["photoLibrary"] = bool(photo_library)
    configuration["stripMetadata"] = _one_of("strip_metadata", strip_metadata, ("none", "location", "all"))
    return configuration


def pick_request_body(**configuration: Any) -> Dict[str, Any]:
    """The body of ``picker.pick``; keyword arguments as for :func:`pick_configuration`."""
    return {"configuration": pick_configuration(**configuration)}


def load_request_body(
    token: str, type: Optional[str] = None, credit: Optional[int] = DEFAULT_CREDIT,
    chunk_size: Optional[int] = DEFAULT_CHUNK_SIZE,
) -> Dict[str, Any]:
    """The body of ``provider.load``; ``type`` None loads the first registered type."""
    body: Dict[str, Any] = {"token": token}
    if type is not None:
        body["type"] = type
    if credit is not None:
        body["credit"] = int(credit)
    if chunk_size is not None:
        body["chunkSize"] = int(chunk_size)
    return body


def stream_credit_body(stream: str, credit: int) -> Dict[str, Any]:
    """The body of ``stream.credit``: lets the load ``stream`` send ``credit`` more chunks."""
    return {"stream": stream, "credit": int(credit)}


def stream_cancel_body(stream: str) -> Dict[str, Any]:
    return {"stream": stream}


def choose_request_body(pick: str, assets: Sequence[str]) -> Dict[str, Any]:
    return {"pick": pick, "assets": list(assets)}


def register_app_body(
    id: str, name: str, public_key: str, usage_read_write: Optional[str] = None,
    usage_add_only: Optional[str] = None, prevent_automatic_limited_access_alert: bool = False,
) -> Dict[str, Any]:
    """The body of ``owner.apps.register``."""
    manifest: Dict[str, Any] = {"id": id, "name": name, "publicKey": public_key}
    if usage_read_write is not None:
        manifest["usageReadWrite"] = usage_read_write
    if usage_add_only is not None:
        manifest["usageAddOnly"] = usage_add_only
    manifest["preventAutomaticLimitedAccessAlert"] = bool(prevent_automatic_limited_access_alert)
    return {"manifest": manifest}


def _one_of(name: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``, else ``LightboxError("badRequest")`` naming ``name``."""
    if value not in choices:
        raise LightboxError("badRequest", f"{name} must be one of {', '.join(choices)} (not {value!r}).")
    return value


DateLike = Union[_dt.datetime, _dt.date, str]


def format_date(value: DateLike) -> str:
    """A date in wire form, ``2026-01-01T12:00:00Z``: UTC, whole seconds (the wire has no fractions).

    Naive datetimes are taken as UTC, a ``date`` as its midnight UTC; strings are parsed first.
    """
    if isinstance(value, str):
        try:
            value = parse_date(value)
        except ValueError as error:
            raise LightboxError("badRequest", f"{value!r} is not an ISO 8601 date (2026-01-01T12:00:00Z).") from error
    if isinstance(value, _dt.datetime):
        moment = value.replace(tzinfo=_dt.timezone.utc) if value.tzinfo is None else value.astimezone(_dt.timezone.utc)
    elif isinstance(value, _dt.date):
        moment = _dt.datetime(value.year, value.month, value.day, tzinfo=_dt.timezone.utc)
    else:
        raise LightboxError("badRequest", f"Expected a date, not {value!r}.")
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def status_request_body(level: Optional[str] = None) -> Dict[str, Any]:
    """The body of ``auth.status``; ``level`` None asks for the legacy status (limited reads as authorized)."""
    return {} if level is None else {"level": _one_of("level", level, ACCESS_LEVELS)}


def authorization_request_body(level: str) -> Dict[str, Any]:
    """The body of ``auth.request``: ``readWrite`` or ``addOnly``."""
    return {"level": _one_of("level", level, ACCESS_LEVELS)}


def changes_request_body(since: Optional[int] = None) -> Dict[str, Any]:
    """The body of ``auth.watch`` (``since`` optional) and ``auth.changes``."""
    return {} if since is None else {"since": int(since)}


def fetch_assets_body(identifiers: Sequence[str]) -> Dict[str, Any]:
    """The body of ``library.fetchAssets``."""
    if isinstance(identifiers, str):
        raise LightboxError("badRequest", "fetch_assets takes a list of identifiers, not one string.")
    return {"localIdentifiers": list(identifiers)}


def query_body(
    media_type: Optional[str] = None, date_from: Optional[DateLike] = None, date_to: Optional[DateLike] = None,
    oldest_first: bool = False, offset: int = 0, limit: int = 100,
) -> Dict[str, Any]:
    """The body of ``library.query``: creation dates from ``date_from`` (inclusive) to ``date_to``
    (exclusive), newest first unless ``oldest_first``; ``limit`` at most 1000 (the picker clamps)."""
    if offset < 0 or limit < 0:
        raise LightboxError("badRequest", "offset and limit must be 0 or more.")
    body: Dict[str, Any] = {}
    if media_type is not None:
        body["mediaType"] = _one_of("media_type", media_type, MEDIA_TYPES)
    if date_from is not None:
        body["from"] = format_date(date_from)
    if date_to is not None:
        body["to"] = format_date(date_to)
    body["sort"] = "oldestFirst" if oldest_first else "newestFirst"
    body["offset"] = int(offset)
    body["limit"] = int(limit)
    return body


def create_asset_body(file_name: Optional[str] = None) -> Dict[str, Any]:
    """The header body of ``library.create``; the photo or video follows as one binary frame."""
    return {} if file_name is None else {"fileName": file_name}


def create_album_body(title: str) -> Dict[str, Any]:
    return {"title": title}


def prompts_request_body(wait_ms: int = 0) -> Dict[str, Any]:
    """The body of ``owner.prompts``; ``wait_ms`` > 0 long-polls (the service caps it at 60 s)."""
    return {"waitMs": max(0, int(wait_ms))}


def answer_prompt_body(prompt: str, answer: str, selection: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """The body of ``owner.prompts.answer``; ``selection`` goes with ``limited`` and ``done``."""
    body: Dict[str, Any] = {"prompt": prompt, "answer": _one_of("answer", answer, PROMPT_ANSWERS)}
    if selection is not None:
        body["selection"] = list(selection)
    return body


def set_access_body(
    app: str, read_write: Optional[str] = None, add_only: Optional[str] = None,
    selection: Optional[Sequence[str]] = None, reset: bool = False,
) -> Dict[str, Any]:
    """The body of ``owner.access.set``. Fields left None keep their value; ``selection`` (with
    readWrite limited) replaces the whole selection; ``reset`` goes back to notDetermined."""
    body: Dict[str, Any] = {"app": app}
    if read_write is not None:
        body["readWrite"] = _one_of("read_write", read_write, READ_WRITE_SETTINGS)
    if add_only is not None:
        body["addOnly"] = _one_of("add_only", add_only, ADD_ONLY_SETTINGS)
    if selection is not None:
        body["selection"] = list(selection)
    if reset:
        body["reset"] = True
    return body


def audit_body(app: Optional[str] = None, limit: int = 200, operation: Optional[str] = None,
               since: Optional[DateLike] = None, until: Optional[DateLike] = None,
               before: Optional[int] = None) -> Dict[str, Any]:
    """The body of ``owner.audit``: one page of at most ``limit`` entries, newest first.

    ``operation`` is a name or its prefix before ``:`` (``pick`` finds ``pick:opened`` and
    ``pick:answered``); ``since`` is inclusive, ``until`` exclusive; ``before`` is the ``next``
    cursor of the previous page.
    """
    body: Dict[str, Any] = {"limit": int(limit)}
    if app is not None:
        body["app"] = app
    if operation is not None:
        body["operation"] = operation
    if since is not None:
        body["since"] = format_date(since)
    if until is not None:
        body["until"] = format_date(until)
    if before is not None:
        body["before"] = int(before)
    return body


# ---------------------------------------------------------------------------------------------
# Replies and parsed bodies (pure)
# ---------------------------------------------------------------------------------------------


def parse_date(text: Optional[str]) -> Optional[_dt.datetime]:
    """An ISO 8601 date from the wire (``2026-01-01T12:00:00Z``) as an aware datetime."""
    if text is None:
        return None
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    parsed = _dt.datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=_dt.timezone.utc)
    return parsed


@dataclass
class Reply:
    """One reply message: its header fields and the binary frames after the header."""

    id: str
    status: str
    body: Dict[str, Any]
    frames: List[bytes] = field(default_factory=list)
    version: Optional[int] = PROTOCOL_VERSION

    @property
    def is_final(self) -> bool:
        return self.status in FINAL_STATUSES

    def error(self) -> LightboxError:
        return LightboxError.from_body(self.body)


def parse_reply(frames: Union[bytes, Sequence[bytes]]) -> Reply:
    """Reads a reply from its frames (or just its header bytes). A missing body reads as ``{}``."""
    if isinstance(frames, (bytes, bytearray, memoryview)):
        frames = [bytes(frames)]
    if not frames:
        raise LightboxError("badRequest", "A reply needs a JSON header frame.")
    try:
        header = json.loads(bytes(frames[0]).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise LightboxError("badRequest", f"The reply header is not JSON: {error}.") from error
    if not isinstance(header, dict) or not isinstance(header.get("status"), str):
        raise LightboxError("badRequest", "The reply header is not an object with id and status.")
    body = header.get("body")
    return Reply(
        id=str(header.get("id", "")),
        status=header["status"],
        body=body if isinstance(body, dict) else {},
        frames=[bytes(frame) for frame in frames[1:]],
        version=header.get("v"),
    )


@dataclass(frozen=True)
class ChunkHeader:
    """The body of a ``chunk`` reply; one binary frame of ``length`` bytes follows it."""

    offset: int
    length: int
    completed: int
    total: int

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "ChunkHeader":
        try:
            return cls(int(body["offset"]), int(body["length"]), int(body["completed"]), int(body["total"]))
        except (KeyError, TypeError, ValueError) as error:
            raise LightboxError("internal", f"The picker sent a chunk header without {error}.") from error


@dataclass(frozen=True)
class LoadCompletion:
    """The final ``ok`` body of a load: what was sent, with the digest the client checked."""

    bytes: int
    sha256: str
    type: Optional[str] = None
    suggested_name: Optional[str] = None

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "LoadCompletion":
        try:
            return cls(int(body["bytes"]), str(body["sha256"]), body.get("type"), body.get("suggestedName"))
        except (KeyError, TypeError, ValueError) as error:
            raise LightboxError("internal", f"The picker ended a load without {error}.") from error


@dataclass(frozen=True)
class PendingPick:
    """A pick waiting for the owner (``owner.pending``). ``configuration`` is in wire form."""

    pick: str
    app: str
    app_name: Optional[str]
    configuration: Dict[str, Any]
    created_at: Optional[_dt.datetime]

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "PendingPick":
        return cls(
            pick=body["pick"], app=body["app"], app_name=body.get("appName"),
            configuration=body.get("configuration") or {}, created_at=parse_date(body.get("createdAt")),
        )

    @property
    def selection_limit(self) -> int:
        return int(self.configuration.get("selectionLimit", 1))


@dataclass(frozen=True)
class Asset:
    """One catalog entry (``owner.assets``, and what the ``library.*`` operations return to apps)."""

    identifier: str
    file_name: str
    type: str
    media_type: str
    subtypes: List[str]
    pixel_width: Optional[int]
    pixel_height: Optional[int]
    duration: Optional[float]
    file_size: int
    creation_date: Optional[_dt.datetime]

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "Asset":
        return cls(
            identifier=body["identifier"], file_name=body["fileName"], type=body["type"],
            media_type=body.get("mediaType", ""), subtypes=list(body.get("subtypes") or []),
            pixel_width=body.get("pixelWidth"), pixel_height=body.get("pixelHeight"), duration=body.get("duration"),
            file_size=int(body.get("fileSize", 0)), creation_date=parse_date(body.get("creationDate")),
        )


def prompt_shown(reply: Reply) -> Optional[str]:
    """The prompt's id when ``reply`` is the ``promptShown`` event of ``auth.request`` or
    ``auth.presentLimitedLibraryPicker``; None for any other reply."""
    if reply.status == "event" and reply.body.get("event") == "promptShown":
        prompt = reply.body.get("prompt")
        return str(prompt) if prompt is not None else None
    return None


@dataclass(frozen=True)
class StatusReply:
    """The ``ok`` body of ``auth.status`` and ``auth.request``. ``level`` is None for the legacy status."""

    level: Optional[str]
    status: str

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "StatusReply":
        try:
            return cls(body.get("level"), str(body["status"]))
        except KeyError as error:
            raise LightboxError("internal", "The auth service answered without a status.") from error


@dataclass(frozen=True)
class LibraryChange:
    """One change to the library as this app may see it (a ``library.watch`` event or a
    ``library.changes`` entry): identifiers inserted, removed or changed, and albums whose assets
    changed. ``token`` increases with every change and survives restarts."""

    token: int
    inserted: List[str]
    removed: List[str]
    changed: List[str]
    albums: List[str]
    at: Optional[_dt.datetime]

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "LibraryChange":
        try:
            return cls(token=int(body["token"]), inserted=list(body.get("inserted") or []),
                       removed=list(body.get("removed") or []), changed=list(body.get("changed") or []),
                       albums=list(body.get("albums") or []), at=parse_date(body.get("at")))
        except (KeyError, TypeError, ValueError) as error:
            raise LightboxError("internal", f"The picker sent a library change without {error}.") from error


@dataclass(frozen=True)
class AuthorizationChange:
    """One change to an app's access (an ``auth.watch`` event, an ``auth.changes`` entry).

    ``token`` increases with every change; pass the last one seen as ``since`` after a reconnect.
    ``added`` / ``removed`` are what joined or left the app's limited selection.
    """

    token: int
    app: str
    level: str
    status: str
    added: List[str]
    removed: List[str]
    at: Optional[_dt.datetime]

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "AuthorizationChange":
        try:
            return cls(
                token=int(body["token"]), app=str(body["app"]), level=str(body["level"]), status=str(body["status"]),
                added=list(body.get("added") or []), removed=list(body.get("removed") or []),
                at=parse_date(body.get("at")),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise LightboxError("internal", f"The auth service sent a change without {error}.") from error


@dataclass(frozen=True)
class OwnerPrompt:
    """A question waiting for the owner (``owner.prompts``).

    ``kind`` is ``authorization`` (answer full / limited / deny for readWrite, allow / deny for
    addOnly) or ``limitedLibrary`` (answer done with the whole new selection); ``selection`` is the
    app's current limited selection, ``usage_description`` the manifest's reason for asking.
    """

    prompt: str
    kind: str
    app: str
    app_name: str
    level: Optional[str]
    usage_description: Optional[str]
    selection: List[str]
    created_at: Optional[_dt.datetime]

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "OwnerPrompt":
        return cls(
            prompt=body["prompt"], kind=body["kind"], app=body["app"], app_name=body.get("appName", body["app"]),
            level=body.get("level"), usage_description=body.get("usageDescription"),
            selection=list(body.get("selection") or []), created_at=parse_date(body.get("createdAt")),
        )


@dataclass(frozen=True)
class AppAccess:
    """What the owner's settings show for one app (``owner.access.list`` / ``owner.access.set``)."""

    app: str
    name: str
    read_write: str
    add_only: str
    selection_count: int

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "AppAccess":
        return cls(app=body["app"], name=body.get("name", body["app"]), read_write=body["readWrite"],
                   add_only=body["addOnly"], selection_count=int(body.get("selectionCount", 0)))


@dataclass(frozen=True)
class AccessUpdate:
    """The ``ok`` body of ``owner.access.set``: the app's access now (on disk), and the token of its last change."""

    access: AppAccess
    token: int

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "AccessUpdate":
        return cls(AppAccess.from_json(body["access"]), int(body.get("token", 0)))


@dataclass(frozen=True)
class AuditEntry:
    """One line of the audit trail (``owner.audit``): a decision (``operation`` such as
    ``request:readWrite`` or ``read``, ``outcome`` such as ``authorized`` or ``allowed:selection``),
    a settings change, or a read an app made (``pick:opened``, ``pick:answered``, ``describe``,
    ``load``, ``fetch``, ``query``, ``image``, ``video``, ``properties``, ``create``); ``bytes`` is
    what a load or video delivered, ``asset`` the asset read."""

    app: str
    operation: str
    asset_count: int
    outcome: str
    at: Optional[_dt.datetime]
    id: Optional[int] = None
    bytes: Optional[int] = None
    asset: Optional[str] = None

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "AuditEntry":
        return cls(app=body["app"], operation=body["operation"], asset_count=int(body.get("assetCount", 0)),
                   outcome=body["outcome"], at=parse_date(body.get("at")), id=body.get("id"), bytes=body.get("bytes"),
                   asset=body.get("asset"))


@dataclass(frozen=True)
class AuditPage:
    """One page of ``owner.audit``: entries newest first, and the cursor of the next (older) page."""

    entries: List[AuditEntry]
    next: Optional[int]

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "AuditPage":
        return cls([AuditEntry.from_json(entry) for entry in body.get("entries") or []], body.get("next"))


@dataclass(frozen=True)
class Album:
    """An album (``library.albums`` / ``library.createAlbum``)."""

    identifier: str
    title: str
    created_at: Optional[_dt.datetime]

    @classmethod
    def from_json(cls, body: Dict[str, Any]) -> "Album":
        return cls(identifier=body["identifier"], title=body["title"], created_at=parse_date(body.get("createdAt")))


# ---------------------------------------------------------------------------------------------
# Connection
# ---------------------------------------------------------------------------------------------


class Connection:
    """One DEALER socket to one service, as a CURVE client (linger 0).

    ``timeout`` is the default longest wait, in seconds, for the *next* reply to a request; a
    service that is down, or a key nobody registered (which gets no connection at all), ends in
    ``LightboxError("timeout", …)`` rather than a hang.

    Replies to other requests that arrive while one is being waited for are kept for their own
    ``replies`` call. Not thread-safe: one Connection per thread.
    """

    def __init__(
        self, endpoint: str, server_public_key: str, key_pair: KeyPair, timeout: float = 10.0,
        context: Optional[zmq.Context] = None,
    ):
        self.endpoint = endpoint
        self.timeout = timeout
        self._context = context or zmq.Context.instance()
        self._socket = self._context.socket(zmq.DEALER)
        try:
            self._socket.setsockopt(zmq.LINGER, 0)
            self._socket.setsockopt(zmq.RECONNECT_IVL, 100)
            # ZMTP heartbeats, as the services set them: a dead service is noticed and reconnected.
            self._socket.setsockopt(zmq.HEARTBEAT_IVL, 5000)
            self._socket.setsockopt(zmq.HEARTBEAT_TIMEOUT, 15000)
            self._socket.setsockopt(zmq.HEARTBEAT_TTL, 15000)
            # A DEALER with no usable peer (e.g. its key was refused) blocks sends: bound the wait.
            self._socket.setsockopt(zmq.SNDTIMEO, max(1, int(timeout * 1000)))
            self._socket.curve_secretkey = key_pair.secret.encode("ascii")
            self._socket.curve_publickey = key_pair.public.encode("ascii")
            self._socket.curve_serverkey = server_public_key.encode("ascii")
            self._socket.connect(endpoint)
        except Exception:
            self._socket.close(linger=0)
            raise
        # Replies that arrived for a request still being waited for, in order; keyed by request id.
        self._inbox: Dict[str, List[Reply]] = {}

    # -- lifecycle --

    def close(self) -> None:
        """Closes the socket (unsent messages are dropped)."""
        if not self._socket.closed:
            self._socket.close(linger=0)
        self._inbox.clear()

    @property
    def closed(self) -> bool:
        return self._socket.closed

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- sending --

    def _send_frames(self, op: str, body: Optional[Dict[str, Any]], id: str, attachments: Sequence[bytes],
                     wait: bool = True) -> None:
        if self._socket.closed:
            raise LightboxError("cancelled", f"The connection to {self.endpoint} was closed.")
        header = encode_header(build_request(op, body, id))
        try:
            self._socket.send_multipart([header, *attachments], flags=0 if wait else zmq.NOBLOCK, copy=True)
        except zmq.Again:
            raise LightboxError(
                "timeout",
                f"Could not send {op} to {self.endpoint}. Is the service running, and is this key registered with it?",
            ) from None

    def send(self, op: str, body: Optional[Dict[str, Any]] = None, attachments: Sequence[bytes] = (),
             id: Optional[str] = None) -> str:
        """Sends a request and returns its id; read its replies with :meth:`replies`."""
        request_id = id or new_request_id()
        self._inbox.setdefault(request_id, [])
        self._send_frames(op, body, request_id, attachments)
        return request_id

    def post(self, op: str, body: Optional[Dict[str, Any]] = None, wait: bool = True) -> None:
        """Sends a message that gets no reply (``stream.credit``). With ``wait`` False it never blocks
        (and raises ``LightboxError("timeout")`` when the message cannot be queued right now)."""
        self._send_frames(op, body, new_request_id(), (), wait)

    # -- receiving --

    def _receive(self, timeout: float) -> Optional[Reply]:
        """The next reply on the socket within ``timeout`` seconds, or None. Unreadable ones are skipped."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            # Long (or endless, math.inf) waits poll in slices.
            if not self._socket.poll(max(1, int(min(remaining, MAXIMUM_POLL_SECONDS) * 1000)), zmq.POLLIN):
                continue
            frames = self._socket.recv_multipart(copy=True)
            try:
                return parse_reply(frames)
            except LightboxError:
                continue

    def replies(self, id: str, timeout: Optional[float] = None) -> Iterator[Reply]:
        """Every reply to request ``id``, ending with the final ``ok`` (which is yielded).

        An ``error`` reply raises :class:`LightboxError`; ``timeout`` (default: the connection's)
        is the longest wait for each next reply (``math.inf``: no limit). Closing the generator early (``break``) drops the
        request and asks the service to stop a stream it runs for it (``stream.cancel``).
        """
        idle = self.timeout if timeout is None else timeout
        queue = self._inbox.setdefault(id, [])
        finished = False
        try:
            while True:
                if queue:
                    reply = queue.pop(0)
                else:
                    reply = self._wait_for(id, idle)
                if reply.status == "error":
                    finished = True
                    raise reply.error()
                if reply.status == "ok":
                    finished = True
                    yield reply
                    return
                yield reply
        finally:
            self._inbox.pop(id, None)
            if not finished and not self._socket.closed:
                # Abandoned (timeout, a failed check, or the caller stopped reading): stop any stream.
                try:
                    self.post("stream.cancel", stream_cancel_body(id), wait=False)
                except (LightboxError, zmq.ZMQError):
                    pass

    def _wait_for(self, id: str, idle: float) -> Reply:
        deadline = time.monotonic() + idle
        while True:
            reply = self._receive(deadline - time.monotonic())
            if reply is None:
                raise LightboxError(
                    "timeout",
                    f"No answer from {self.endpoint} within {idle:g} s. "
                    "Is the service running, and is this key registered with it?",
                )
            if reply.id == id:
                return reply
            if reply.id in self._inbox:
                self._inbox[reply.id].append(reply)
            # Replies to requests nobody waits for any more are dropped.

    def request(self, op: str, body: Optional[Dict[str, Any]] = None, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Sends a request and returns the body of its final ``ok`` reply (other replies are skipped)."""
        for reply in self.replies(self.send(op, body), timeout):
            if reply.status == "ok":
                return reply.body
        raise LightboxError("internal", f"The service ended {op} without a final reply.")  # pragma: no cover

    def ping(self, timeout: Optional[float] = None) -> Dict[str, Any]:
        """``service.ping``: ``{"service":"picker","principal":"app:demo"}``."""
        return self.request("service.ping", {}, timeout)


# ---------------------------------------------------------------------------------------------
# Service directory
# ---------------------------------------------------------------------------------------------


class ServiceDirectory:
    """Where the services listen and the data directory that holds the keys.

    Defaults come from ``LIGHTBOX_DATA`` (``var``), ``LIGHTBOX_AUTH_ENDPOINT``
    (``tcp://127.0.0.1:7711``) and ``LIGHTBOX_PICKER_ENDPOINT`` (``tcp://127.0.0.1:7712``).
    """

    DEFAULT_AUTH_ENDPOINT = "tcp://127.0.0.1:7711"
    DEFAULT_PICKER_ENDPOINT = "tcp://127.0.0.1:7712"

    def __init__(self, data_dir: Optional[Union[str, os.PathLike]] = None, auth_endpoint: Optional[str] = None,
                 picker_endpoint: Optional[str] = None):
        self.data_dir = os.fspath(data_dir if data_dir is not None else os.environ.get("LIGHTBOX_DATA", "var"))
        self.auth_endpoint = auth_endpoint or os.environ.get("LIGHTBOX_AUTH_ENDPOINT", self.DEFAULT_AUTH_ENDPOINT)
        self.picker_endpoint = picker_endpoint or os.environ.get("LIGHTBOX_PICKER_ENDPOINT", self.DEFAULT_PICKER_ENDPOINT)

    def __repr__(self) -> str:
        return f"ServiceDirectory({self.data_dir!r}, {self.auth_endpoint!r}, {self.picker_endpoint!r})"

    # -- keys --

    def service_public_key(self, service: str, wait: float = 5.0) -> str:
        """``DATA/keys/<service>.pub``, waiting up to ``wait`` seconds for a first start to write it."""
        return load_public_key(os.path.join(self.data_dir, "keys", f"{service}.pub"), wait)

    def owner_key_pair(self) -> KeyPair:
        """``DATA/keys/owner.key``, made by lightbox-auth on its first start."""
        return load_key_pair(os.path.join(self.data_dir, "keys", "owner.key"))

    def app_key_pair(self, app: str) -> KeyPair:
        """``DATA/apps/<id>.key``, made by ``lightbox app register``."""
        path = os.path.join(self.data_dir, "apps", f"{app}.key")
        if not os.path.exists(path):
            raise LightboxError(
                "notFound", f'No key for app "{app}" in {self.data_dir}/apps/; run `lightbox app register {app} --name …` first.'
            )
        return load_key_pair(path)

    # -- connections --

    def connect_to_picker(self, key_pair: KeyPair, timeout: float = 10.0) -> Connection:
        return Connection(self.picker_endpoint, self.service_public_key("picker"), key_pair, timeout)

    def connect_to_auth(self, key_pair: KeyPair, timeout: float = 10.0) -> Connection:
        return Connection(self.auth_endpoint, self.service_public_key("auth"), key_pair, timeout)

    def picker_as_app(self, app: str, timeout: float = 10.0) -> Connection:
        return self.connect_to_picker(self.app_key_pair(app), timeout)

    def picker_as_owner(self, timeout: float = 10.0) -> Connection:
        return self.connect_to_picker(self.owner_key_pair(), timeout)

    def auth_as_owner(self, timeout: float = 10.0) -> Connection:
        return self.connect_to_auth(self.owner_key_pair(), timeout)

    def auth_as_app(self, app: str, timeout: float = 10.0) -> Connection:
        return self.connect_to_auth(self.app_key_pair(app), timeout)

    def photo_library(self, app: str, timeout: float = 10.0) -> "PhotoLibrary":
        """A :class:`PhotoLibrary` for ``app`` with its own connections to both services; use it in a
        ``with`` block (or call ``close``) to close them."""
        key_pair = self.app_key_pair(app)
        auth = self.connect_to_auth(key_pair, timeout)
        try:
            picker = self.connect_to_picker(key_pair, timeout)
        except BaseException:
            auth.close()
            raise
        return PhotoLibrary(auth, picker)


# ---------------------------------------------------------------------------------------------
# Apps: picking and loading
# ---------------------------------------------------------------------------------------------

Progress = Callable[[int, int], None]


class ItemProvider:
    """NSItemProvider for a picked asset: the app holds the token, the picker holds the bytes."""

    def __init__(self, token: str, registered_type_identifiers: Sequence[str], suggested_name: Optional[str] = None,
                 expires_at: Optional[_dt.datetime] = None, connection: Optional[Connection] = None):
        self.token = token
        self.registered_type_identifiers = list(registered_type_identifiers)
        self.suggested_name = suggested_name
        self.expires_at = expires_at
        self.connection = connection

    @classmethod
    def from_json(cls, body: Dict[str, Any], connection: Optional[Connection] = None) -> "ItemProvider":
        return cls(
            token=body["token"], registered_type_identifiers=list(body.get("registeredTypeIdentifiers") or []),
            suggested_name=body.get("suggestedName"), expires_at=parse_date(body.get("expiresAt")),
            connection=connection,
        )

    def __repr__(self) -> str:
        return (f"ItemProvider(token={self.token[:10]}…, types={self.registered_type_identifiers}, "
                f"suggested_name={self.suggested_name!r}, expires_at={self.expires_at})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ItemProvider):
            return NotImplemented
        return (self.token, self.registered_type_identifiers, self.suggested_name, self.expires_at) == (
            other.token, other.registered_type_identifiers, other.suggested_name, other.expires_at)

    def has_item_conforming_to(self, uti: str) -> bool:
        """Whether a registered type is ``uti`` or conforms to it (``public.jpeg`` → ``public.image``)."""
        return any(conforms_to(registered, uti) for registered in self.registered_type_identifiers)

    def file_name(self, type: Optional[str] = None) -> str:
        """``suggestedName`` plus the extension of ``type`` (default: the first registered type)."""
        name = self.suggested_name or "item"
        uti = type or (self.registered_type_identifiers[0] if self.registered_type_identifiers else "")
        extension = preferred_filename_extension(uti)
        return f"{name}.{extension}" if extension else name

    def _require_connection(self) -> Connection:
        if self.connection is None:
            raise LightboxError("badRequest", "This item provider has no connection to the picker.")
        return self.connection

    def describe(self, timeout: Optional[float] = None) -> Dict[str, Any]:
        """``provider.describe``: types, suggestedName, fileSize and image properties, without the bytes."""
        return self._require_connection().request("provider.describe", {"token": self.token}, timeout)

    def load_data(self, type: Optional[str] = None, progress: Optional[Progress] = None,
                  credit: int = DEFAULT_CREDIT, chunk_size: int = DEFAULT_CHUNK_SIZE,
                  timeout: float = 30.0) -> bytes:
        """Loads the whole representation into memory (prefer :meth:`load_file` for large files)."""
        parts: List[bytes] = []
        self._stream(type, progress, parts.append, credit, chunk_size, timeout)
        return b"".join(parts)

    def load_file(self, path: Union[str, os.PathLike], type: Optional[str] = None,
                  progress: Optional[Progress] = None, credit: int = DEFAULT_CREDIT,
                  chunk_size: int = DEFAULT_CHUNK_SIZE, timeout: float = 30.0) -> LoadCompletion:
        """Streams the representation into ``path``, which the caller owns.

        Bytes go to a temporary file in the same folder that replaces ``path`` (``os.replace``)
        only once every byte arrived and the digest matched, so nobody sees a half-written file.
        Memory stays within a few chunks whatever the file's size.
        """
        destination = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(destination))
        partial = os.path.join(folder, f".{os.path.basename(destination)}.partial-{uuid.uuid4().hex}")
        try:
            descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except OSError as error:
            raise LightboxError(
                "notFound", f"Cannot create a file in {folder} ({error.strerror}); does the folder exist and is it writable?"
            ) from error
        try:
            with os.fdopen(descriptor, "wb") as handle:
                completion = self._stream(type, progress, handle.write, credit, chunk_size, timeout)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(partial, destination)
            return completion
        except BaseException:
            try:
                os.unlink(partial)
            except FileNotFoundError:
                pass
            raise

    def _stream(self, type: Optional[str], progress: Optional[Progress], consume: Callable[[bytes], Any],
                credit: int, chunk_size: int, timeout: float) -> LoadCompletion:
        """Runs one credit-based load.

        The request grants ``credit`` chunks up front; as chunks are consumed the window is topped
        up with ``stream.credit`` (in batches of half the window), so at most ``credit`` chunks are
        ever in flight or buffered. Offsets, lengths, the total and the final SHA-256 are checked.
        """
        connection = self._require_connection()
        credit = max(1, min(int(credit), MAXIMUM_CREDIT))
        stream_id = connection.send("provider.load", load_request_body(self.token, type, credit, chunk_size))
        hasher = hashlib.sha256()
        received = 0
        total: Optional[int] = None
        consumed_since_grant = 0
        for reply in connection.replies(stream_id, timeout):
            if reply.status == "chunk":
                header = ChunkHeader.from_json(reply.body)
                data = reply.frames[0] if reply.frames else None
                if data is None or len(data) != header.length:
                    raise LightboxError(
                        "internal", f"The picker sent a chunk header for {header.length} bytes with "
                                    f"{'no data frame' if data is None else f'{len(data)} bytes'}.")
                if header.offset != received:
                    raise LightboxError(
                        "internal", f"The picker sent the chunk at {header.offset} while {received} bytes had arrived.")
                if header.completed != received + header.length or (total is not None and header.total != total):
                    raise LightboxError("internal", "The picker's chunk headers disagree about the load's progress.")
                total = header.total
                consume(data)
                hasher.update(data)
                received += len(data)
                if progress is not None:
                    progress(received, header.total)
                consumed_since_grant += 1
                if consumed_since_grant * 2 >= credit:
                    connection.post("stream.credit", stream_credit_body(stream_id, consumed_since_grant))
                    consumed_since_grant = 0
            elif reply.status == "ok":
                completion = LoadCompletion.from_json(reply.body)
                if completion.bytes != received or (total is not None and total != received):
                    raise LightboxError(
                        "internal", f"The load ended after {received} bytes but the picker reports "
                                    f"{completion.bytes} (of {total}); try the load again.")
                if completion.sha256.lower() != hasher.hexdigest():
                    raise LightboxError("internal", "The loaded bytes do not match the picker's digest; try the load again.")
                if received == 0 and progress is not None:
                    progress(0, 0)
                return completion
        raise LightboxError("internal", "The load ended without a final reply.")  # pragma: no cover


@dataclass
class PickerResult:
    """One picked asset (PHPickerResult). ``asset_identifier`` is set only for photo-library picks."""

    asset_identifier: Optional[str]
    item_provider: ItemProvider

    @classmethod
    def from_json(cls, body: Dict[str, Any], connection: Optional[Connection] = None) -> "PickerResult":
        return cls(body.get("assetIdentifier"), ItemProvider.from_json(body["itemProvider"], connection))


def parse_pick_response(body: Dict[str, Any], connection: Optional[Connection] = None) -> List[PickerResult]:
    """The results of a ``picker.pick`` ``ok`` body (empty when the owner cancelled)."""
    return [PickerResult.from_json(result, connection) for result in body.get("results") or []]


class PhotoPicker:
    """PHPickerViewController for a process: asks the picker for a pick the owner completes."""

    def __init__(self, connection: Connection):
        self.connection = connection

    def pick(self, selection_limit: int = 1, filter: Optional[Filter] = None, ordered: bool = False,
             photo_library: bool = False, on_started: Optional[Callable[[str], Any]] = None,
             timeout: float = 600, preselected_asset_identifiers: Sequence[str] = ()) -> List[PickerResult]:
        """Waits (up to ``timeout`` seconds) for the owner; an empty list means the owner cancelled.

        ``on_started`` gets the pick's id as soon as the owner's surfaces can see it.
        """
        body = pick_request_body(
            selection_limit=selection_limit, filter=filter, ordered=ordered, photo_library=photo_library,
            preselected_asset_identifiers=preselected_asset_identifiers,
        )
        request_id = self.connection.send("picker.pick", body)
        for reply in self.connection.replies(request_id, timeout):
            if reply.status == "event" and reply.body.get("event") == "pickStarted":
                if on_started is not None:
                    on_started(reply.body.get("pick", ""))
            elif reply.status == "ok":
                return parse_pick_response(reply.body, self.connection)
        raise LightboxError("internal", "The pick ended without a final reply.")  # pragma: no cover


# ---------------------------------------------------------------------------------------------
# Apps: authorization and the library
# ---------------------------------------------------------------------------------------------

PromptCallback = Callable[[str], Any]


class PhotoLibrary:
    """PHPhotoLibrary and PHAsset for an app: authorization on the auth service, the library on the
    picker (which asks the auth service before each operation). Shaped like PhotoKit, and like the
    Swift client's ``PhotoLibrary``.

    Statuses are strings from :data:`AUTHORIZATION_STATUSES`, levels from :data:`ACCESS_LEVELS`.
    Either connection may be None when only the other service's operations are used (a tool that
    only asks for authorization needs no picker). Used as a context manager it closes both
    connections at the end.
    """

    def __init__(self, auth_conn: Optional[Connection], picker_conn: Optional[Connection] = None):
        self.auth_connection = auth_conn
        self.picker_connection = picker_conn

    def close(self) -> None:
        """Closes both connections (ending any watch)."""
        for connection in (self.auth_connection, self.picker_connection):
            if connection is not None:
                connection.close()

    @property
    def auth(self) -> Connection:
        if self.auth_connection is None:
            raise LightboxError("badRequest", "This PhotoLibrary has no connection to lightbox-auth.")
        return self.auth_connection

    @property
    def picker(self) -> Connection:
        if self.picker_connection is None:
            raise LightboxError("badRequest", "This PhotoLibrary has no connection to lightbox-picker.")
        return self.picker_connection

    def __enter__(self) -> "PhotoLibrary":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- authorization (auth service) --

    def authorization_status(self, level: Optional[str] = None) -> str:
        """``PHPhotoLibrary.authorizationStatus(for:)``; without ``level`` the legacy
        ``authorizationStatus()``, which reports limited as authorized."""
        return StatusReply.from_json(self.auth.request("auth.status", status_request_body(level))).status

    def request_authorization(self, level: str, on_prompt: Optional[PromptCallback] = None,
                              timeout: float = 300) -> str:
        """``PHPhotoLibrary.requestAuthorization(for:)``: returns the status.

        Only while the status is notDetermined does the owner get a prompt (``on_prompt`` gets its id
        when it is shown) and this waits up to ``timeout`` seconds for the answer; otherwise the
        stored status comes back at once. Raises ``missingUsageDescription`` when the app's manifest
        does not say why it wants ``level``, and ``timeout`` when the owner does not answer (the
        status then stays notDetermined).
        """
        body = self._prompted("auth.request", authorization_request_body(level), on_prompt, timeout)
        return StatusReply.from_json(body).status

    def present_limited_library_picker(self, on_prompt: Optional[PromptCallback] = None,
                                       timeout: float = 300) -> List[str]:
        """``PHPhotoLibrary.presentLimitedLibraryPicker``: the owner edits this app's limited
        selection; returns the identifiers newly added (empty when none). Raises ``notLimited``
        unless readWrite access is limited."""
        body = self._prompted("auth.presentLimitedLibraryPicker", {}, on_prompt, timeout)
        return [str(identifier) for identifier in body.get("added") or []]

    def _prompted(self, op: str, body: Dict[str, Any], on_prompt: Optional[PromptCallback],
                  timeout: float) -> Dict[str, Any]:
        """Runs a request that may show the owner a prompt first; returns its ``ok`` body."""
        request_id = self.auth.send(op, body)
        for reply in self.auth.replies(request_id, timeout):
            if reply.status == "ok":
                return reply.body
            prompt = prompt_shown(reply)
            if prompt is not None and on_prompt is not None:
                on_prompt(prompt)
        raise LightboxError("internal", f"{op} ended without a final reply.")  # pragma: no cover

    def watch(self, since: Optional[int] = None, timeout: Optional[float] = None) -> Iterator[AuthorizationChange]:
        """Changes to this app's access as they happen (PHPhotoLibraryChangeObserver), as
        :class:`AuthorizationChange` objects.

        The ``auth.watch`` request is sent at once (so nothing after this call is missed); with
        ``since`` the changes after that token come first, so a reconnecting app misses nothing.
        A change is yielded once even if it is both replayed and broadcast. The watch never ends by
        itself: stop iterating (``break``), then close the connection or keep using it for other
        requests (later events for the watch are dropped). ``timeout`` is the longest wait for the
        next change (default: no limit); past it the iteration raises ``timeout``.
        """
        request_id = self.auth.send("auth.watch", changes_request_body(since))
        return self._watch_events(request_id, math.inf if timeout is None else timeout)

    def _watch_events(self, request_id: str, timeout: float) -> Iterator[AuthorizationChange]:
        seen = set()
        for reply in self.auth.replies(request_id, timeout):
            if reply.status == "event":
                change = AuthorizationChange.from_json(reply.body)
                if change.token not in seen:
                    seen.add(change.token)
                    yield change
            elif reply.status == "ok":
                return

    def watch_library(self, since: Optional[int] = None, timeout: Optional[float] = None) -> Iterator[LibraryChange]:
        """Library changes this app may see, as they happen (PHPhotoLibraryChangeObserver), as
        :class:`LibraryChange` objects; with ``since`` the changes after that token come first.
        Ends and times out like :meth:`watch`."""
        request_id = self.picker.send("library.watch", changes_request_body(since))
        return self._library_events(request_id, math.inf if timeout is None else timeout)

    def _library_events(self, request_id: str, timeout: float) -> Iterator[LibraryChange]:
        latest = -1
        for reply in self.picker.replies(request_id, timeout):
            if reply.status == "event":
                change = LibraryChange.from_json(reply.body)
                if change.token > latest:
                    latest = change.token
                    yield change
            elif reply.status == "ok":
                return

    def library_changes(self, since: int = 0) -> Tuple[List[LibraryChange], int]:
        """Library changes after ``since`` that this app may see (oldest first), and the token to
        pass next time (more may follow when as many came as one reply holds: ask again)."""
        body = self.picker.request("library.changes", changes_request_body(since))
        return [LibraryChange.from_json(change) for change in body.get("changes") or []], int(body.get("token", since))

    def changes(self, since: int = 0) -> Tuple[List[AuthorizationChange], int]:
        """What changed after ``since`` (oldest first), and the newest token to pass next time."""
        body = self.auth.request("auth.changes", changes_request_body(since))
        return [AuthorizationChange.from_json(change) for change in body.get("changes") or []], int(body.get("token", since))

    # -- the library (picker) --

    def fetch_assets(self, identifiers: Sequence[str]) -> List[Asset]:
        """``PHAsset.fetchAssets(withLocalIdentifiers:)``: only the assets this app may see, in the
        order asked; without access (or for unknown identifiers) simply nothing, never an error."""
        body = self.picker.request("library.fetchAssets", fetch_assets_body(identifiers))
        return [Asset.from_json(asset) for asset in body.get("assets") or []]

    def query(self, media_type: Optional[str] = None, date_from: Optional[DateLike] = None,
              date_to: Optional[DateLike] = None, oldest_first: bool = False, offset: int = 0,
              limit: int = 100) -> Tuple[List[Asset], int]:
        """``PHAsset.fetchAssets(with:options:)``: the assets this app may see, by media type
        (``image`` / ``video``) and creation date (``date_from`` inclusive, ``date_to`` exclusive),
        newest first unless ``oldest_first``, paged. Returns ``(page, total before paging)``."""
        body = self.picker.request("library.query", query_body(media_type, date_from, date_to, oldest_first, offset, limit))
        return [Asset.from_json(asset) for asset in body.get("assets") or []], int(body.get("total", 0))

    def create_asset(self, data: Union[bytes, bytearray, memoryview], file_name: Optional[str] = None,
                     timeout: Optional[float] = None) -> str:
        """``PHAssetCreationRequest``: adds a photo or video (at most 16 MiB); returns its identifier.

        Needs addOnly authorized, or readWrite authorized or limited (``notAuthorized`` otherwise);
        media the picker cannot read gets ``badMedia``. A limited app's new asset joins its selection.
        """
        data = bytes(data)
        if not data:
            raise LightboxError("badRequest", "create_asset needs the photo or video's bytes.")
        if len(data) > MAXIMUM_CREATE_SIZE:
            # The picker drops a connection that sends a bigger frame, so refuse it here.
            raise LightboxError("badRequest", f"The file has {len(data)} bytes; library.create takes at most 16 MiB.")
        request_id = self.picker.send("library.create", create_asset_body(file_name), attachments=[data])
        for reply in self.picker.replies(request_id, timeout):
            if reply.status == "ok":
                try:
                    return str(reply.body["identifier"])
                except KeyError:
                    raise LightboxError("internal", "library.create ended without an identifier.") from None
        raise LightboxError("internal", "library.create ended without a final reply.")  # pragma: no cover

    def albums(self) -> List[Album]:
        """The albums (needs readWrite authorized; ``notAuthorized`` when limited)."""
        body = self.picker.request("library.albums", {})
        return [Album.from_json(album) for album in body.get("albums") or []]

    def create_album(self, title: str) -> Album:
        """Creates an album (needs readWrite authorized)."""
        return Album.from_json(self.picker.request("library.createAlbum", create_album_body(title))["album"])


# ---------------------------------------------------------------------------------------------
# The owner
# ---------------------------------------------------------------------------------------------


class OwnerSurface:
    """The owner's side of the picker: pending picks, the catalog, choose / cancel, revoke."""

    def __init__(self, connection: Connection):
        self.connection = connection

    def pending(self, wait_ms: int = 0) -> List[PendingPick]:
        """The picks waiting for the owner; with ``wait_ms`` > 0 waits (up to 60 s) for one to arrive."""
        wait_ms = max(0, int(wait_ms))
        body = self.connection.request(
            "owner.pending", {"waitMs": wait_ms}, timeout=wait_ms / 1000.0 + self.connection.timeout)
        return [PendingPick.from_json(pick) for pick in body.get("picks") or []]

    def asset_page(self, pick: Optional[str] = None, limit: int = 100,
                   after: Optional[str] = None) -> Tuple[List[Asset], Optional[str]]:
        """One page of the catalog, newest first, and the cursor of the next page (None on the last);
        with ``pick``, only what that pick's filter lets through."""
        request: Dict[str, Any] = {"limit": int(limit)}
        if pick is not None:
            request["pick"] = pick
        if after is not None:
            request["after"] = after
        body = self.connection.request("owner.assets", request)
        return [Asset.from_json(asset) for asset in body.get("assets") or []], body.get("next")

    def assets(self, pick: Optional[str] = None) -> List[Asset]:
        """Every asset, newest first, page by page; with ``pick``, only what its filter lets through."""
        assets: List[Asset] = []
        cursor: Optional[str] = None
        while True:
            page, cursor = self.asset_page(pick, limit=500, after=cursor)
            assets.extend(page)
            if cursor is None:
                return assets

    def choose(self, pick: str, ids: Sequence[str]) -> int:
        """Completes a pick with these assets; returns how many were delivered."""
        return int(self.connection.request("owner.choose", choose_request_body(pick, ids)).get("delivered", 0))

    def cancel(self, pick: str) -> None:
        """Dismisses a pick: the app gets empty results."""
        self.connection.request("owner.cancel", {"pick": pick})

    def revoke(self, token: Optional[str] = None, app: Optional[str] = None) -> int:
        """Revokes one token, or every token of ``app``; returns how many were revoked."""
        if (token is None) == (app is None):
            raise LightboxError("badRequest", "Give either a token or an app to revoke.")
        body = {"token": token} if token is not None else {"app": app}
        return int(self.connection.request("owner.revoke", body).get("revoked", 0))


class AppRegistry:
    """The owner's side of the auth service: the app registry."""

    def __init__(self, connection: Connection):
        self.connection = connection

    def register(self, id: str, name: str, public_key: str, **manifest: Any) -> Dict[str, Any]:
        """Registers (or updates) an app's manifest; keyword arguments as :func:`register_app_body`."""
        return self.connection.request("owner.apps.register", register_app_body(id, name, public_key, **manifest))["manifest"]

    def apps(self) -> List[Dict[str, Any]]:
        return list(self.connection.request("owner.apps.list", {}).get("apps") or [])


class OwnerSettings:
    """The owner's side of the auth service: prompts, per-app access settings, the audit trail."""

    def __init__(self, auth_conn: Connection):
        self.connection = auth_conn

    def prompts(self, wait_ms: int = 0) -> List[OwnerPrompt]:
        """The prompts waiting for the owner, oldest first; with ``wait_ms`` > 0 waits (up to 60 s)
        for one when none is open."""
        body = prompts_request_body(wait_ms)
        reply = self.connection.request("owner.prompts", body, timeout=body["waitMs"] / 1000.0 + self.connection.timeout)
        return [OwnerPrompt.from_json(prompt) for prompt in reply.get("prompts") or []]

    def answer(self, prompt: Union[str, OwnerPrompt], answer: str, selection: Optional[Sequence[str]] = None) -> None:
        """Answers a prompt (an :class:`OwnerPrompt` or its id): ``full`` / ``limited`` (with
        ``selection``) / ``deny`` for readWrite, ``allow`` / ``deny`` for addOnly, ``done`` with the
        whole new selection for the limited-library picker."""
        prompt_id = prompt.prompt if isinstance(prompt, OwnerPrompt) else prompt
        self.connection.request("owner.prompts.answer", answer_prompt_body(prompt_id, answer, selection))

    def apps(self) -> List[AppAccess]:
        """Every registered app's access."""
        return [AppAccess.from_json(app) for app in self.connection.request("owner.access.list", {}).get("apps") or []]

    def set_access(self, app: str, read_write: Optional[str] = None, add_only: Optional[str] = None,
                   selection: Optional[Sequence[str]] = None, reset: bool = False) -> AccessUpdate:
        """Changes an app's access; arguments as :func:`set_access_body`. Returns once it is on disk."""
        return AccessUpdate.from_json(self.connection.request(
            "owner.access.set", set_access_body(app, read_write, add_only, selection, reset)))

    def audit(self, app: Optional[str] = None, limit: int = 200, operation: Optional[str] = None,
              since: Optional[DateLike] = None, until: Optional[DateLike] = None) -> List[AuditEntry]:
        """The newest ``limit`` entries of the audit trail, newest first; filters as :func:`audit_body`."""
        return self.audit_page(app, limit, operation, since, until).entries

    def audit_page(self, app: Optional[str] = None, limit: int = 200, operation: Optional[str] = None,
                   since: Optional[DateLike] = None, until: Optional[DateLike] = None,
                   before: Optional[int] = None) -> AuditPage:
        """One page of the audit trail; pass its ``next`` as ``before`` for the next (older) page."""
        return AuditPage.from_json(self.connection.request(
            "owner.audit", audit_body(app, limit, operation, since, until, before)))
