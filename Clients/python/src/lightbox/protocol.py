"""The wire protocol as data: enums of its names, dataclasses of its replies, request builders.

Everything here is pure (no sockets), so the golden fixtures in ``Tests/Fixtures/golden`` check it
without a running service. Messages (docs/PROTOCOL.md): a request is a JSON header frame
``{"v":1,"id":…,"op":…,"body":{…}}`` plus optional binary frames; each reply has the request's
``id`` and a ``status`` of ``ok`` / ``error`` (final) or ``progress`` / ``chunk`` / ``event``.

Enum members are ``str`` subclasses equal to their wire names (``AccessLevel.READ_WRITE ==
"readWrite"``); every function that takes one also takes the plain wire name.
"""

from __future__ import annotations

import datetime as _dt
import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Type, TypeVar, Union

from ._wire import WireEnum
from .errors import ErrorCode, LightboxError
from .selection_limits import SelectionLimits, SelectionMisfit

__all__ = [
    # constants
    "PROTOCOL_VERSION", "DEFAULT_CREDIT", "DEFAULT_CHUNK_SIZE", "MAXIMUM_CREDIT", "MAXIMUM_CREATE_SIZE",
    "APPROXIMATE_GRID_DEGREES", "approximate_degrees",
    # enums
    "ErrorCode", "ReplyStatus", "AccessLevel", "AuthorizationStatus", "PromptAnswer", "PromptKind", "LocationAccess",
    "ReadWriteSetting", "AddOnlySetting", "MediaType", "FilterLeaf", "RepresentationMode", "MetadataStripping",
    "ImageContentMode", "ImageDeliveryMode", "ImageVersion", "VideoDeliveryMode",
    # types and filters
    "UTI_PARENTS", "UTI_EXTENSIONS", "conforms_to", "preferred_filename_extension",
    "Filter", "validate_filter", "parse_filter",
    # messages
    "JSONObject", "DateLike", "new_request_id", "build_request", "encode_header", "format_date", "parse_date", "grant_term_body",
    "Reply", "parse_reply", "prompt_shown",
    # request bodies
    "pick_configuration", "pick_request_body", "load_request_body", "stream_credit_body", "stream_cancel_body",
    "choose_request_body", "register_app_body", "status_request_body", "authorization_request_body",
    "changes_request_body", "fetch_assets_body", "query_body", "create_asset_body", "create_album_body",
    "album_membership_body", "album_assets_body",
    "prompts_request_body", "answer_prompt_body", "set_access_body", "audit_body",
    "image_request_body", "image_cancel_body", "video_request_body", "properties_request_body",
    # reply bodies
    "ChunkHeader", "LoadCompletion", "PendingPick", "Asset", "StatusReply", "LibraryChange", "AuthorizationChange",
    "OwnerPrompt", "AppAccess", "AccessUpdate", "AuditEntry", "AuditPage", "Album", "LimitedPickerResult", "AlbumPage",
    "ImageResult", "MediaProgress", "VideoInfo", "AssetProperties",
]

PROTOCOL_VERSION = 1
#: Chunks a load may send before the client grants more (the protocol's default).
DEFAULT_CREDIT = 8
#: Bytes per chunk the client asks for (the protocol's default).
DEFAULT_CHUNK_SIZE = 256 * 1024
#: The largest window the picker accepts; bigger requests are clamped by the service.
MAXIMUM_CREDIT = 64
#: The largest photo or video ``library.create`` takes (16 MiB).
MAXIMUM_CREATE_SIZE = 16 * 1024 * 1024


def media_frame(data: Union[bytes, bytearray, memoryview], op: str) -> bytes:
    """``data`` as the one binary frame of ``op`` (``library.create``, ``library.edit``): the photo or
    movie's bytes, at most 16 MiB (the picker drops a connection that sends a bigger frame, so a
    bigger one is refused here)."""
    data = bytes(data)
    if not data:
        raise LightboxError("badRequest", f"{op} needs the photo or video's bytes.")
    if len(data) > MAXIMUM_CREATE_SIZE:
        raise LightboxError("badRequest", f"The file has {len(data)} bytes; {op} takes at most 16 MiB.")
    return data

JSONObject = Dict[str, Any]
DateLike = Union[_dt.datetime, _dt.date, str]

# ---------------------------------------------------------------------------------------------
# Enums (their wire names are checked against Tests/Fixtures/wire-names.json)
# ---------------------------------------------------------------------------------------------


class ReplyStatus(WireEnum):
    """A reply's ``status``: ``ok`` and ``error`` end a request, the others may come before."""

    OK = "ok"
    ERROR = "error"
    PROGRESS = "progress"
    CHUNK = "chunk"
    EVENT = "event"


class AccessLevel(WireEnum):
    """PHAccessLevel: adding to the library, or reading and writing it."""

    ADD_ONLY = "addOnly"
    READ_WRITE = "readWrite"


class AuthorizationStatus(WireEnum):
    """PHAuthorizationStatus. ``limited`` exists for ``readWrite`` only."""

    NOT_DETERMINED = "notDetermined"
    RESTRICTED = "restricted"
    DENIED = "denied"
    AUTHORIZED = "authorized"
    LIMITED = "limited"


class PromptAnswer(WireEnum):
    """The owner's answers: readWrite prompts take full / limited / deny, addOnly prompts allow /
    deny, the limited-library picker takes done, a delete prompt allow / deny."""

    FULL = "full"
    LIMITED = "limited"
    DENY = "deny"
    ALLOW = "allow"
    DONE = "done"


class PromptKind(WireEnum):
    """What an owner's prompt asks (``owner.prompts``)."""

    AUTHORIZATION = "authorization"
    LIMITED_LIBRARY = "limitedLibrary"
    DELETE_ASSETS = "deleteAssets"
    #: An app with library access asks for where the photos were taken (answer allow with a location, or deny).
    LOCATION = "location"


class ReadWriteSetting(WireEnum):
    """The owner's readWrite setting for an app (``owner.access.set``)."""

    FULL = "full"
    LIMITED = "limited"
    NONE = "none"
    RESTRICTED = "restricted"


class AddOnlySetting(WireEnum):
    """The owner's addOnly setting for an app (``owner.access.set``)."""

    ALLOW = "allow"
    NONE = "none"
    RESTRICTED = "restricted"


class MediaType(WireEnum):
    """PHAssetMediaType (``library.query``'s ``mediaType``, an asset's ``mediaType``)."""

    IMAGE = "image"
    VIDEO = "video"


class FilterLeaf(WireEnum):
    """PHPickerFilter's named filters; combine them with ``any`` / ``all`` / ``not``."""

    IMAGES = "images"
    VIDEOS = "videos"
    LIVE_PHOTOS = "livePhotos"
    SCREENSHOTS = "screenshots"
    PANORAMAS = "panoramas"
    BURSTS = "bursts"
    SLOMO_VIDEOS = "slomoVideos"
    TIMELAPSE_VIDEOS = "timelapseVideos"
    ANIMATED_IMAGES = "animatedImages"


class RepresentationMode(WireEnum):
    """PHPickerConfiguration.AssetRepresentationMode."""

    AUTOMATIC = "automatic"
    CURRENT = "current"
    COMPATIBLE = "compatible"


class MetadataStripping(WireEnum):
    """What to remove from delivered images and movies."""

    NONE = "none"
    LOCATION = "location"
    ALL = "all"


class LocationAccess(WireEnum):
    """Where photos and movies were taken, as an app may receive it: not at all (the default),
    on a grid of 0.1° of latitude and longitude (about 10 km) without altitude, speed or
    direction (``approximate``), or as the file says (``precise``). The app asks; the owner
    decides, never giving more than asked."""

    NONE = "none"
    APPROXIMATE = "approximate"
    PRECISE = "precise"


#: The grid an approximate location is snapped to, in degrees of latitude and of longitude.
APPROXIMATE_GRID_DEGREES = 0.1


def approximate_degrees(degrees: float) -> float:
    """``degrees`` as an approximate location gives it: the nearest multiple of 0.1 (halves away
    from zero)."""
    snapped = float(int(abs(degrees) * 10 + 0.5)) / 10
    return -snapped if degrees < 0 and snapped else snapped


class ImageContentMode(WireEnum):
    """PHImageContentMode."""

    FIT = "fit"
    FILL = "fill"


class ImageDeliveryMode(WireEnum):
    """PHImageRequestOptionsDeliveryMode: opportunistic sends a degraded image first."""

    OPPORTUNISTIC = "opportunistic"
    HIGH_QUALITY_FORMAT = "highQualityFormat"
    FAST_FORMAT = "fastFormat"


class ImageVersion(WireEnum):
    """PHImageRequestOptionsVersion."""

    CURRENT = "current"
    ORIGINAL = "original"


class VideoDeliveryMode(WireEnum):
    """PHVideoRequestOptionsDeliveryMode: fast (≤ 360 px), medium (≤ 720 px), or the original."""

    AUTOMATIC = "automatic"
    FAST_FORMAT = "fastFormat"
    MEDIUM_QUALITY_FORMAT = "mediumQualityFormat"
    HIGH_QUALITY_FORMAT = "highQualityFormat"


E = TypeVar("E", bound=WireEnum)


def choice(kind: Type[E], name: str, value: Union[E, str]) -> E:
    """``value`` as a member of ``kind``, else ``LightboxError("badRequest")`` naming ``name``."""
    try:
        return kind(value)
    except ValueError:
        raise LightboxError(
            "badRequest", f"{name} must be one of {', '.join(kind.names())} (not {str(value)!r}).") from None


# ---------------------------------------------------------------------------------------------
# Uniform type identifiers (the same tree as the services')
# ---------------------------------------------------------------------------------------------

#: Direct parents of each known type. Unknown types conform only to themselves.
UTI_PARENTS: Mapping[str, Sequence[str]] = {
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
UTI_EXTENSIONS: Mapping[str, str] = {
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

#: A filter in wire form: a leaf name, ``{"types":[UTI…]}``, ``{"any":[…]}``, ``{"all":[…]}`` or ``{"not":F}``.
Filter = Union[str, Dict[str, Any]]

#: The most types one ``types`` leaf may list (as the services check).
MAXIMUM_FILTER_TYPES = 64


def _type_identifiers(types: Any) -> Optional[List[str]]:
    """The list of type identifiers a ``types`` leaf may carry, or None when it may not."""
    if not isinstance(types, (list, tuple)) or not 1 <= len(types) <= MAXIMUM_FILTER_TYPES:
        return None
    if not all(isinstance(item, str) and item and all(c.isascii() and (c.isalnum() or c in ".-") for c in item) for item in types):
        return None
    return [str(item) for item in types]


def validate_filter(value: Filter) -> Filter:
    """Checks a filter in wire form and returns it (leaves as plain strings)."""
    if isinstance(value, str):
        if value not in FilterLeaf.names():
            raise LightboxError(
                "badRequest", f'Unknown filter "{value}"; known: {", ".join(sorted(FilterLeaf.names()))}.')
        return str(value)
    if isinstance(value, dict) and len(value) == 1:
        ((key, argument),) = value.items()
        if key in ("any", "all") and isinstance(argument, (list, tuple)):
            return {key: [validate_filter(item) for item in argument]}
        if key == "not":
            return {"not": validate_filter(argument)}
        if key == "types" and _type_identifiers(argument) is not None:
            return {"types": _type_identifiers(argument)}
    raise LightboxError("badRequest", f"Bad filter {value!r}: use a name, or one of any, all, not, types.")


def parse_filter(text: str) -> Filter:
    """Parses the text form the CLI accepts (``images``, ``any(images,not(videos))``) into wire form."""
    source = "".join(text.split())
    position = 0

    def fail(reason: str) -> LightboxError:
        return LightboxError(
            "badRequest", f"Bad filter: {reason}. Use a name such as images or videos, or any(…), all(…), not(…), types(…).")

    def parse() -> Filter:
        nonlocal position
        start = position
        while position < len(source) and source[position].isalpha():
            position += 1
        name = source[start:position]
        if not name:
            raise fail(f'expected a filter name at "{source[start:]}"')
        if name == "types":
            close = source.find(")", position)
            if position >= len(source) or source[position] != "(" or close < 0:
                raise fail("expected (type,…) after types")
            types = _type_identifiers(source[position + 1:close].split(","))
            if types is None:
                raise fail(f"types(…) lists 1 to {MAXIMUM_FILTER_TYPES} type identifiers")
            position = close + 1
            return {"types": types}
        if name not in ("any", "all", "not"):
            if name not in FilterLeaf.names():
                raise fail(f'unknown filter "{name}"')
            return name
        if position >= len(source) or source[position] != "(":
            raise fail("expected ( after a combinator")
        position += 1
        arguments: List[Filter] = []
        while True:
            arguments.append(parse())
            if position < len(source) and source[position] in ",)":
                position += 1
                if source[position - 1] == ")":
                    break
                continue
            raise fail(f'expected , or ) at "{source[position:]}"')
        if name == "not":
            if len(arguments) != 1:
                raise fail("not(…) takes exactly one filter")
            return {"not": arguments[0]}
        return {name: arguments}

    result = parse()
    if position != len(source):
        raise fail(f'unexpected "{source[position:]}"')
    return result


# ---------------------------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------------------------


def new_request_id() -> str:
    return str(uuid.uuid4()).upper()


def build_request(op: str, body: Optional[JSONObject] = None, id: Optional[str] = None) -> JSONObject:
    """The header object of a request: ``{"v":1,"id":…,"op":…,"body":{…}}``."""
    return {"v": PROTOCOL_VERSION, "id": id or new_request_id(), "op": op, "body": body if body is not None else {}}


def encode_header(header: JSONObject) -> bytes:
    """JSON header frame bytes (UTF-8, compact, sorted keys like the Swift encoder)."""
    return json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def parse_date(text: Optional[str]) -> Optional[_dt.datetime]:
    """An ISO 8601 date from the wire (``2026-01-01T12:00:00Z``) as an aware datetime."""
    if text is None:
        return None
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    parsed = _dt.datetime.fromisoformat(value)
    return parsed.replace(tzinfo=_dt.timezone.utc) if parsed.tzinfo is None else parsed


def format_date(value: DateLike) -> str:
    """A date in wire form, ``2026-01-01T12:00:00Z``: UTC, whole seconds (the wire has no fractions).

    Naive datetimes are taken as UTC, a ``date`` as its midnight UTC; strings are parsed first.
    """
    if isinstance(value, str):
        try:
            parsed = parse_date(value)
        except ValueError as error:
            raise LightboxError("badRequest", f"{value!r} is not an ISO 8601 date (2026-01-01T12:00:00Z).") from error
        assert parsed is not None
        value = parsed
    if isinstance(value, _dt.datetime):
        moment = value.replace(tzinfo=_dt.timezone.utc) if value.tzinfo is None else value.astimezone(_dt.timezone.utc)
    elif isinstance(value, _dt.date):
        moment = _dt.datetime(value.year, value.month, value.day, tzinfo=_dt.timezone.utc)
    else:
        raise LightboxError("badRequest", f"Expected a date, not {value!r}.")
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Reply:
    """One reply message: its header fields and the binary frames after the header."""

    id: str
    status: str
    body: JSONObject
    frames: List[bytes] = field(default_factory=list)
    version: Optional[int] = PROTOCOL_VERSION

    @property
    def is_final(self) -> bool:
        return self.status in (ReplyStatus.OK, ReplyStatus.ERROR)

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
        status=ReplyStatus.lenient(header["status"]),
        body=body if isinstance(body, dict) else {},
        frames=[bytes(frame) for frame in frames[1:]],
        version=header.get("v"),
    )


def prompt_shown(reply: Reply) -> Optional[str]:
    """The prompt's id when ``reply`` is the ``promptShown`` event of ``auth.request`` or
    ``auth.presentLimitedLibraryPicker``; None for any other reply."""
    if reply.status == ReplyStatus.EVENT and reply.body.get("event") == "promptShown":
        prompt = reply.body.get("prompt")
        return str(prompt) if prompt is not None else None
    return None


# ---------------------------------------------------------------------------------------------
# Request bodies
# ---------------------------------------------------------------------------------------------


def pick_configuration(
    selection_limit: int = 1,
    filter: Optional[Filter] = None,
    ordered: bool = False,
    photo_library: bool = False,
    preselected_asset_identifiers: Sequence[str] = (),
    preferred_asset_representation_mode: Union[RepresentationMode, str] = RepresentationMode.AUTOMATIC,
    strip_metadata: Union[MetadataStripping, str] = MetadataStripping.NONE,
    limits: Optional[SelectionLimits] = None,
    location: Union[LocationAccess, str] = LocationAccess.NONE,
) -> JSONObject:
    """A PHPickerConfiguration in wire form. ``selection_limit`` 0 means no limit; ``strip_metadata``
    (none, location, all) removes metadata from delivered images; ``limits`` (size, pixels,
    duration, kinds) disable on the owner's sheet what does not fit; ``location`` asks for where the
    items were taken (the owner decides what is delivered)."""
    if selection_limit < 0:
        raise LightboxError("badRequest", "selection_limit must be 0 (no limit) or more.")
    configuration: JSONObject = {"selectionLimit": int(selection_limit)}
    if filter is not None:
        configuration["filter"] = validate_filter(filter)
    configuration["selection"] = "ordered" if ordered else "default"
    configuration["preselectedAssetIdentifiers"] = list(preselected_asset_identifiers)
    configuration["preferredAssetRepresentationMode"] = choice(
        RepresentationMode, "preferred_asset_representation_mode", preferred_asset_representation_mode).value
    configuration["photoLibrary"] = bool(photo_library)
    configuration["stripMetadata"] = choice(MetadataStripping, "strip_metadata", strip_metadata).value
    if limits is not None:
        configuration["limits"] = limits.to_json()
    configuration["location"] = choice(LocationAccess, "location", location).value
    return configuration


def pick_request_body(**configuration: Any) -> JSONObject:
    """The body of ``picker.pick``; keyword arguments as for :func:`pick_configuration`."""
    return {"configuration": pick_configuration(**configuration)}


def load_request_body(token: str, type: Optional[str] = None, credit: Optional[int] = DEFAULT_CREDIT,
                      chunk_size: Optional[int] = DEFAULT_CHUNK_SIZE) -> JSONObject:
    """The body of ``provider.load``; ``type`` None loads the first registered type."""
    body: JSONObject = {"token": token}
    if type is not None:
        body["type"] = type
    return _with_window(body, credit, chunk_size)


def _with_window(body: JSONObject, credit: Optional[int], chunk_size: Optional[int]) -> JSONObject:
    """``body`` with a stream's ``credit`` and ``chunkSize`` when given."""
    if credit is not None:
        body["credit"] = int(credit)
    if chunk_size is not None:
        body["chunkSize"] = int(chunk_size)
    return body


def stream_credit_body(stream: str, credit: int) -> JSONObject:
    """The body of ``stream.credit``: lets the load ``stream`` send ``credit`` more chunks."""
    return {"stream": stream, "credit": int(credit)}


def stream_cancel_body(stream: str) -> JSONObject:
    return {"stream": stream}


def choose_request_body(pick: str, assets: Sequence[str],
                        location: Union[LocationAccess, str, None] = None) -> JSONObject:
    """The body of ``owner.choose``; ``location`` answers the pick's location request (none when absent)."""
    body: JSONObject = {"pick": pick, "assets": list(assets)}
    if location is not None:
        body["location"] = choice(LocationAccess, "location", location).value
    return body


def register_app_body(id: str, name: str, public_key: str, usage_read_write: Optional[str] = None,
                      usage_add_only: Optional[str] = None,
                      prevent_automatic_limited_access_alert: bool = False) -> JSONObject:
    """The body of ``owner.apps.register``."""
    manifest: JSONObject = {"id": id, "name": name, "publicKey": public_key}
    if usage_read_write is not None:
        manifest["usageReadWrite"] = usage_read_write
    if usage_add_only is not None:
        manifest["usageAddOnly"] = usage_add_only
    manifest["preventAutomaticLimitedAccessAlert"] = bool(prevent_automatic_limited_access_alert)
    return {"manifest": manifest}


def status_request_body(level: Union[AccessLevel, str, None] = None) -> JSONObject:
    """The body of ``auth.status``; ``level`` None asks for the legacy status (limited reads as authorized)."""
    return {} if level is None else authorization_request_body(level)


def authorization_request_body(level: Union[AccessLevel, str],
                               location: Union[LocationAccess, str, None] = None) -> JSONObject:
    """The body of ``auth.request``: ``readWrite`` or ``addOnly``; with readWrite, ``location``
    asks also for where the photos were taken."""
    body: JSONObject = {"level": choice(AccessLevel, "level", level).value}
    if location is not None:
        body["location"] = choice(LocationAccess, "location", location).value
    return body


def changes_request_body(since: Optional[int] = None) -> JSONObject:
    """The body of ``auth.watch`` / ``library.watch`` (``since`` optional) and ``*.changes``."""
    return {} if since is None else {"since": int(since)}


def fetch_assets_body(identifiers: Sequence[str]) -> JSONObject:
    """The body of ``library.fetchAssets``."""
    if isinstance(identifiers, str):
        raise LightboxError("badRequest", "fetch_assets takes a list of identifiers, not one string.")
    return {"localIdentifiers": list(identifiers)}


def query_body(media_type: Union[MediaType, str, None] = None, date_from: Optional[DateLike] = None,
               date_to: Optional[DateLike] = None, oldest_first: bool = False, offset: int = 0,
               limit: int = 100) -> JSONObject:
    """The body of ``library.query``: creation dates from ``date_from`` (inclusive) to ``date_to``
    (exclusive), newest first unless ``oldest_first``; ``limit`` at most 1000 (the picker clamps)."""
    if offset < 0 or limit < 0:
        raise LightboxError("badRequest", "offset and limit must be 0 or more.")
    body: JSONObject = {}
    if media_type is not None:
        body["mediaType"] = choice(MediaType, "media_type", media_type).value
    if date_from is not None:
        body["from"] = format_date(date_from)
    if date_to is not None:
        body["to"] = format_date(date_to)
    body["sort"] = "oldestFirst" if oldest_first else "newestFirst"
    body["offset"] = int(offset)
    body["limit"] = int(limit)
    return body


def create_asset_body(file_name: Optional[str] = None) -> JSONObject:
    """The header body of ``library.create``; the photo or video follows as one binary frame."""
    return {} if file_name is None else {"fileName": file_name}


def create_album_body(title: str) -> JSONObject:
    return {"title": title}


def album_membership_body(album: str, assets: Sequence[str]) -> JSONObject:
    """The body of ``library.albums.add`` / ``library.albums.remove``: 1 to 1000 assets."""
    assets = list(assets)
    if not 1 <= len(assets) <= 1000:
        raise LightboxError("badRequest", "Name 1 to 1000 assets to add to or remove from an album.")
    return {"album": album, "assets": assets}


def album_assets_body(album: str, limit: int = 100, after: Optional[str] = None) -> JSONObject:
    """The body of ``library.albums.assets``: one page, newest first; ``after`` is the previous page's ``next``."""
    body: JSONObject = {"album": album, "limit": int(limit)}
    if after is not None:
        body["after"] = after
    return body


def prompts_request_body(wait_ms: int = 0) -> JSONObject:
    """The body of ``owner.prompts``; ``wait_ms`` > 0 long-polls (the service caps it at 60 s)."""
    return {"waitMs": max(0, int(wait_ms))}


def grant_term_body(until: Optional[DateLike], then_deny: bool = False) -> Optional[JSONObject]:
    """A grant's term on the wire: it ends at ``until``, then the level returns to notDetermined
    (the app may ask again) or, with ``then_deny``, to denied. None (no ``until``): until changed."""
    if until is None:
        if then_deny:
            raise LightboxError("badRequest", "then_deny needs until: a grant without an end never returns to denied.")
        return None
    term: JSONObject = {"until": format_date(until)}
    if then_deny:
        term["then"] = "deny"
    return term


def answer_prompt_body(prompt: str, answer: Union[PromptAnswer, str],
                       selection: Optional[Sequence[str]] = None, until: Optional[DateLike] = None,
                       then_deny: bool = False, albums: Optional[Sequence[str]] = None,
                       location: Union[LocationAccess, str, None] = None) -> JSONObject:
    """The body of ``owner.prompts.answer``; ``selection`` and ``albums`` (the albums the selection
    follows, their photos added later too) go with ``limited`` and ``done``; ``until`` ends the
    grant the answer gives (see :func:`grant_term_body`); ``location`` is the location given to a
    prompt that asks for one (none when absent)."""
    body: JSONObject = {"prompt": prompt, "answer": choice(PromptAnswer, "answer", answer).value}
    if location is not None:
        body["location"] = choice(LocationAccess, "location", location).value
    if selection is not None:
        body["selection"] = list(selection)
    if albums is not None:
        body["albums"] = list(albums)
    term = grant_term_body(until, then_deny)
    if term is not None:
        body["term"] = term
    return body


def set_access_body(app: str, read_write: Union[ReadWriteSetting, str, None] = None,
                    add_only: Union[AddOnlySetting, str, None] = None,
                    selection: Optional[Sequence[str]] = None, reset: bool = False,
                    until: Optional[DateLike] = None, then_deny: bool = False,
                    albums: Optional[Sequence[str]] = None,
                    location: Union[LocationAccess, str, None] = None) -> JSONObject:
    """The body of ``owner.access.set``. Fields left None keep their value; ``selection`` (with
    readWrite limited) replaces the whole selection, ``albums`` every album it follows (the app
    sees their photos, those added later too, and loses those taken out); ``reset`` goes back to
    notDetermined; ``until`` ends the grants it gives (see :func:`grant_term_body`); ``location`` is
    what the app's library reads deliver (at most what it asked for)."""
    body: JSONObject = {"app": app}
    if location is not None:
        body["location"] = choice(LocationAccess, "location", location).value
    term = grant_term_body(until, then_deny)
    if term is not None:
        body["term"] = term
    if read_write is not None:
        body["readWrite"] = choice(ReadWriteSetting, "read_write", read_write).value
    if add_only is not None:
        body["addOnly"] = choice(AddOnlySetting, "add_only", add_only).value
    if selection is not None:
        body["selection"] = list(selection)
    if albums is not None:
        body["albums"] = list(albums)
    if reset:
        body["reset"] = True
    return body


def audit_body(app: Optional[str] = None, limit: int = 200, operation: Optional[str] = None,
               since: Optional[DateLike] = None, until: Optional[DateLike] = None,
               before: Optional[int] = None) -> JSONObject:
    """The body of ``owner.audit``: one page of at most ``limit`` entries, newest first.

    ``operation`` is a name or its prefix before ``:`` (``pick`` finds ``pick:opened`` and
    ``pick:answered``); ``since`` is inclusive, ``until`` exclusive; ``before`` is the ``next``
    cursor of the previous page.
    """
    body: JSONObject = {"limit": int(limit)}
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


def image_request_body(asset: str, target_width: Optional[int] = None, target_height: Optional[int] = None,
                       content_mode: Union[ImageContentMode, str, None] = None,
                       delivery_mode: Union[ImageDeliveryMode, str, None] = None,
                       version: Union[ImageVersion, str, None] = None,
                       network_access_allowed: Optional[bool] = None) -> JSONObject:
    """The body of ``image.request`` (PHImageManager.requestImage). Leave out both targets for the
    full size; give both or neither."""
    if (target_width is None) != (target_height is None):
        raise LightboxError("badRequest", "Give both target_width and target_height, or neither (full size).")
    body: JSONObject = {"asset": asset}
    if target_width is not None and target_height is not None:
        if target_width <= 0 or target_height <= 0:
            raise LightboxError("badRequest", "target_width and target_height must be 1 or more.")
        body["targetWidth"], body["targetHeight"] = int(target_width), int(target_height)
    if content_mode is not None:
        body["contentMode"] = choice(ImageContentMode, "content_mode", content_mode).value
    if delivery_mode is not None:
        body["deliveryMode"] = choice(ImageDeliveryMode, "delivery_mode", delivery_mode).value
    if version is not None:
        body["version"] = choice(ImageVersion, "version", version).value
    if network_access_allowed is not None:
        body["isNetworkAccessAllowed"] = bool(network_access_allowed)
    return body


def image_cancel_body(request: str) -> JSONObject:
    """The body of ``image.cancel``: the id of the running ``image.request``."""
    return {"request": request}


def video_request_body(asset: str, delivery_mode: Union[VideoDeliveryMode, str, None] = None,
                       network_access_allowed: Optional[bool] = None, credit: Optional[int] = DEFAULT_CREDIT,
                       chunk_size: Optional[int] = DEFAULT_CHUNK_SIZE,
                       version: Union[ImageVersion, str, None] = None) -> JSONObject:
    """The body of ``video.request`` (PHImageManager.requestAVAsset, as a file); ``version`` as for images."""
    body: JSONObject = {"asset": asset}
    if delivery_mode is not None:
        body["deliveryMode"] = choice(VideoDeliveryMode, "delivery_mode", delivery_mode).value
    if version is not None:
        body["version"] = choice(ImageVersion, "version", version).value
    if network_access_allowed is not None:
        body["isNetworkAccessAllowed"] = bool(network_access_allowed)
    return _with_window(body, credit, chunk_size)


def properties_request_body(asset: str) -> JSONObject:
    """The body of ``library.properties``."""
    return {"asset": asset}


# ---------------------------------------------------------------------------------------------
# Reply bodies
# ---------------------------------------------------------------------------------------------


def _strings(value: Any) -> List[str]:
    return [str(item) for item in value or []]


@dataclass(frozen=True)
class ChunkHeader:
    """The body of a ``chunk`` reply; one binary frame of ``length`` bytes follows it."""

    offset: int
    length: int
    completed: int
    total: int

    @classmethod
    def from_json(cls, body: JSONObject) -> "ChunkHeader":
        try:
            return cls(int(body["offset"]), int(body["length"]), int(body["completed"]), int(body["total"]))
        except (KeyError, TypeError, ValueError) as error:
            raise LightboxError("internal", f"The picker sent a chunk header without {error}.") from error


@dataclass(frozen=True)
class LoadCompletion:
    """The final ``ok`` body of a load (or a video): what was sent, with the digest the client checked."""

    bytes: int
    sha256: str
    type: Optional[str] = None
    suggested_name: Optional[str] = None

    @classmethod
    def from_json(cls, body: JSONObject) -> "LoadCompletion":
        try:
            return cls(int(body["bytes"]), str(body["sha256"]), body.get("type"), body.get("suggestedName"))
        except (KeyError, TypeError, ValueError) as error:
            raise LightboxError("internal", f"The picker ended a stream without {error}.") from error


@dataclass(frozen=True)
class PendingPick:
    """A pick waiting for the owner (``owner.pending``). ``configuration`` is in wire form."""

    pick: str
    app: str
    app_name: Optional[str]
    configuration: JSONObject
    created_at: Optional[_dt.datetime]

    @classmethod
    def from_json(cls, body: JSONObject) -> "PendingPick":
        return cls(pick=body["pick"], app=body["app"], app_name=body.get("appName"),
                   configuration=body.get("configuration") or {}, created_at=parse_date(body.get("createdAt")))

    @property
    def selection_limit(self) -> int:
        return int(self.configuration.get("selectionLimit", 1))


@dataclass(frozen=True)
class Asset:
    """One catalog entry (``owner.assets``, and what the ``library.*`` operations return to apps).
    ``media_type`` is a :class:`MediaType` when the client knows the name."""

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
    is_in_cloud: bool = False
    #: Why the pick whose page this is cannot take it (its selection limits); None when it can.
    unavailable: Optional[SelectionMisfit] = None

    @classmethod
    def from_json(cls, body: JSONObject) -> "Asset":
        return cls(
            identifier=body["identifier"], file_name=body["fileName"], type=body["type"],
            media_type=MediaType.lenient(str(body.get("mediaType", ""))), subtypes=_strings(body.get("subtypes")),
            pixel_width=body.get("pixelWidth"), pixel_height=body.get("pixelHeight"), duration=body.get("duration"),
            file_size=int(body.get("fileSize", 0)), creation_date=parse_date(body.get("creationDate")),
            is_in_cloud=bool(body.get("isInCloud", False)),
            unavailable=SelectionMisfit.from_json(body["unavailable"]) if isinstance(body.get("unavailable"), dict) else None,
        )


@dataclass(frozen=True)
class StatusReply:
    """The ``ok`` body of ``auth.status`` and ``auth.request``. ``level`` is None for the legacy status."""

    level: Optional[str]
    status: str
    #: With readWrite: the location the app's library reads deliver.
    location: str = LocationAccess.NONE

    @classmethod
    def from_json(cls, body: JSONObject) -> "StatusReply":
        try:
            level = body.get("level")
            return cls(None if level is None else AccessLevel.lenient(str(level)),
                       AuthorizationStatus.lenient(str(body["status"])),
                       LocationAccess.lenient(str(body.get("location") or "none")))
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
    def from_json(cls, body: JSONObject) -> "LibraryChange":
        try:
            return cls(token=int(body["token"]), inserted=_strings(body.get("inserted")),
                       removed=_strings(body.get("removed")), changed=_strings(body.get("changed")),
                       albums=_strings(body.get("albums")), at=parse_date(body.get("at")))
        except (KeyError, TypeError, ValueError) as error:
            raise LightboxError("internal", f"The picker sent a library change without {error}.") from error


@dataclass(frozen=True)
class AuthorizationChange:
    """One change to an app's access (an ``auth.watch`` event, an ``auth.changes`` entry).

    ``token`` increases with every change; pass the last one seen as ``since`` after a reconnect.
    ``added`` / ``removed`` are what joined or left the app's limited selection, ``added_albums`` /
    ``removed_albums`` the albums it began or stopped following.
    """

    token: int
    app: str
    level: str
    status: str
    added: List[str]
    removed: List[str]
    at: Optional[_dt.datetime]
    added_albums: List[str] = field(default_factory=list)
    removed_albums: List[str] = field(default_factory=list)

    @classmethod
    def from_json(cls, body: JSONObject) -> "AuthorizationChange":
        try:
            return cls(token=int(body["token"]), app=str(body["app"]), level=AccessLevel.lenient(str(body["level"])),
                       status=AuthorizationStatus.lenient(str(body["status"])), added=_strings(body.get("added")),
                       removed=_strings(body.get("removed")), at=parse_date(body.get("at")),
                       added_albums=_strings(body.get("addedAlbums")), removed_albums=_strings(body.get("removedAlbums")))
        except (KeyError, TypeError, ValueError) as error:
            raise LightboxError("internal", f"The auth service sent a change without {error}.") from error


@dataclass(frozen=True)
class OwnerPrompt:
    """A question waiting for the owner (``owner.prompts``).

    ``kind`` is ``authorization`` (answer full / limited / deny for readWrite, allow / deny for
    addOnly), ``limitedLibrary`` (answer done with the whole new selection) or ``deleteAssets``
    (allow / deny); ``selection`` is the app's current limited selection (or the assets to
    delete), ``usage_description`` the manifest's reason for asking.
    """

    prompt: str
    kind: str
    app: str
    app_name: str
    level: Optional[str]
    usage_description: Optional[str]
    selection: List[str]
    created_at: Optional[_dt.datetime]
    #: A limited-library prompt raised by a limited app's first library access in a launch.
    on_launch: bool = False
    #: The albums the current limited selection follows (preselected in the limited-library picker).
    albums: List[str] = field(default_factory=list)
    #: The location the app asks for with this prompt (an authorization or a location prompt).
    location: Optional[str] = None

    @classmethod
    def from_json(cls, body: JSONObject) -> "OwnerPrompt":
        level = body.get("level")
        return cls(prompt=body["prompt"], kind=PromptKind.lenient(str(body["kind"])), app=body["app"],
                   app_name=str(body.get("appName", body["app"])),
                   level=None if level is None else AccessLevel.lenient(str(level)),
                   usage_description=body.get("usageDescription"), selection=_strings(body.get("selection")),
                   created_at=parse_date(body.get("createdAt")), on_launch=body.get("onLaunch") is True,
                   albums=_strings(body.get("albums")),
                   location=None if body.get("location") is None else LocationAccess.lenient(str(body["location"])))


@dataclass(frozen=True)
class AppAccess:
    """What the owner's settings show for one app (``owner.access.list`` / ``owner.access.set``)."""

    app: str
    name: str
    read_write: str
    add_only: str
    selection_count: int
    #: When each level's grant ends, if it has a term (aware UTC datetimes).
    read_write_until: Optional[_dt.datetime] = None
    add_only_until: Optional[_dt.datetime] = None
    #: Set when lightbox-auth reset the access because the app left it unused: its last use.
    reset_as_unused_since: Optional[_dt.datetime] = None
    #: The albums a limited selection follows, beside its ``selection_count`` assets.
    albums: List[str] = field(default_factory=list)
    #: The location the app's library reads deliver, and what it asked for (None: never asked).
    location: str = LocationAccess.NONE
    location_requested: Optional[str] = None

    @classmethod
    def from_json(cls, body: JSONObject) -> "AppAccess":
        def until(term: Any) -> Optional[_dt.datetime]:
            return parse_date(term.get("until")) if isinstance(term, dict) else None
        return cls(app=body["app"], name=str(body.get("name", body["app"])),
                   read_write=AuthorizationStatus.lenient(str(body["readWrite"])),
                   add_only=AuthorizationStatus.lenient(str(body["addOnly"])),
                   selection_count=int(body.get("selectionCount", 0)),
                   read_write_until=until(body.get("readWriteTerm")), add_only_until=until(body.get("addOnlyTerm")),
                   reset_as_unused_since=parse_date(body.get("resetAsUnusedSince")), albums=_strings(body.get("albums")),
                   location=LocationAccess.lenient(str(body.get("location") or "none")),
                   location_requested=None if body.get("locationRequested") is None
                   else LocationAccess.lenient(str(body["locationRequested"])))


@dataclass(frozen=True)
class AccessUpdate:
    """The ``ok`` body of ``owner.access.set``: the app's access now (on disk), and the token of its last change."""

    access: AppAccess
    token: int

    @classmethod
    def from_json(cls, body: JSONObject) -> "AccessUpdate":
        return cls(AppAccess.from_json(body["access"]), int(body.get("token", 0)))


@dataclass(frozen=True)
class AuditEntry:
    """One line of the audit trail (``owner.audit``): a decision (``operation`` such as
    ``request:readWrite`` or ``read``, ``outcome`` such as ``authorized`` or ``allowed:selection``),
    a settings change, or a read an app made (``pick:opened``, ``pick:answered``, ``describe``,
    ``load``, ``fetch``, ``query``, ``image``, ``video``, ``properties``, ``create``); ``bytes`` is
    what a load or video delivered, ``asset`` the asset read. Identical entries recorded together
    are one line: ``times`` of them, the first ``at`` and the last ``last_at``."""

    app: str
    operation: str
    asset_count: int
    outcome: str
    at: Optional[_dt.datetime]
    id: Optional[int] = None
    bytes: Optional[int] = None
    asset: Optional[str] = None
    times: int = 1
    last_at: Optional[_dt.datetime] = None

    @classmethod
    def from_json(cls, body: JSONObject) -> "AuditEntry":
        return cls(app=body["app"], operation=body["operation"], asset_count=int(body.get("assetCount", 0)),
                   outcome=body["outcome"], at=parse_date(body.get("at")), id=body.get("id"),
                   bytes=body.get("bytes"), asset=body.get("asset"), times=int(body.get("times", 1)),
                   last_at=parse_date(body.get("lastAt")))


@dataclass(frozen=True)
class AuditPage:
    """One page of ``owner.audit``: entries newest first, and the cursor of the next (older) page."""

    entries: List[AuditEntry]
    next: Optional[int]

    @classmethod
    def from_json(cls, body: JSONObject) -> "AuditPage":
        return cls([AuditEntry.from_json(entry) for entry in body.get("entries") or []], body.get("next"))


@dataclass(frozen=True)
class Album:
    """An album (``library.albums`` / ``library.createAlbum`` / ``owner.outline``); ``asset_count``
    is how many assets it holds where the listing counts them."""

    identifier: str
    title: str
    created_at: Optional[_dt.datetime]
    asset_count: Optional[int] = None

    @classmethod
    def from_json(cls, body: JSONObject) -> "Album":
        count = body.get("assetCount")
        return cls(identifier=body["identifier"], title=body["title"], created_at=parse_date(body.get("createdAt")),
                   asset_count=None if count is None else int(count))


@dataclass(frozen=True)
class AlbumPage:
    """One page of an album's assets (``library.albums.assets``), newest first; pass ``next`` as
    ``after`` for the following page (None on the last)."""

    assets: List["Asset"]
    total: int
    next: Optional[str]

    @classmethod
    def from_json(cls, body: JSONObject) -> "AlbumPage":
        return cls(assets=[Asset.from_json(asset) for asset in body.get("assets") or []], total=int(body.get("total", 0)),
                   next=body.get("next"))


@dataclass(frozen=True)
class LimitedPickerResult:
    """What the owner newly added in the limited-library picker: assets, and albums the selection
    now follows (their photos, those added later too, are the app's to see)."""

    added: List[str]
    added_albums: List[str]

    @classmethod
    def from_json(cls, body: JSONObject) -> "LimitedPickerResult":
        return cls(added=_strings(body.get("added")), added_albums=_strings(body.get("addedAlbums")))


@dataclass(frozen=True)
class ImageResult:
    """One result of ``image.request`` (the image and PHImageManager's info keys).

    ``data`` holds the encoded image (``type``, e.g. ``public.jpeg``); it is None when the original
    is in the cloud and network access was not allowed (``is_in_cloud``) or the request was
    cancelled (``is_cancelled``). With opportunistic delivery a result with ``is_degraded`` comes
    first and the final one follows.
    """

    is_degraded: bool
    is_in_cloud: bool
    is_cancelled: bool
    type: Optional[str]
    pixel_width: Optional[int]
    pixel_height: Optional[int]
    data: Optional[bytes] = field(default=None, repr=False)

    @classmethod
    def from_reply(cls, reply: Reply) -> "ImageResult":
        body = reply.body
        result = cls(is_degraded=bool(body.get("isDegraded", False)), is_in_cloud=bool(body.get("isInCloud", False)),
                     is_cancelled=bool(body.get("isCancelled", False)), type=body.get("type"),
                     pixel_width=body.get("pixelWidth"), pixel_height=body.get("pixelHeight"),
                     data=reply.frames[0] if reply.frames else None)
        if result.data is None and not (result.is_in_cloud or result.is_cancelled):
            raise LightboxError("internal", "An image result came without its image.")
        return result


@dataclass(frozen=True)
class MediaProgress:
    """A ``progress`` reply of a media request: ``download`` (bytes of a cloud original) or
    ``transcode`` (seconds of a movie encoded)."""

    event: str
    completed: float
    total: float

    @classmethod
    def from_json(cls, body: JSONObject) -> Optional["MediaProgress"]:
        """The progress ``body`` reports, or None for other progress (a watch's keep-alive)."""
        try:
            return cls(str(body["event"]), float(body["completed"]), float(body["total"]))
        except (KeyError, TypeError, ValueError):
            return None


@dataclass(frozen=True)
class VideoInfo:
    """The first ``event`` of ``video.request``: which derivative follows (``fast``, ``medium`` or
    ``original``), and its type; or, as the ``ok`` body, that the original is in the cloud."""

    is_in_cloud: bool
    delivered_quality: Optional[str] = None
    type: Optional[str] = None

    @classmethod
    def from_json(cls, body: JSONObject) -> "VideoInfo":
        return cls(bool(body.get("isInCloud", False)), body.get("deliveredQuality"), body.get("type"))


@dataclass(frozen=True)
class AssetProperties:
    """The ``ok`` body of ``library.properties``: CGImageSource-style properties of an asset
    (``PixelWidth``, ``Orientation``, ``{Exif}``, ``{GPS}``, ``{Video}``, …)."""

    asset: str
    properties: JSONObject

    @classmethod
    def from_json(cls, body: JSONObject) -> "AssetProperties":
        properties = body.get("properties")
        return cls(str(body.get("asset", "")), properties if isinstance(properties, dict) else {})

    @property
    def pixel_width(self) -> Optional[int]:
        value = self.properties.get("PixelWidth")
        return int(value) if isinstance(value, (int, float)) else None

    @property
    def pixel_height(self) -> Optional[int]:
        value = self.properties.get("PixelHeight")
        return int(value) if isinstance(value, (int, float)) else None
