"""The Python client against the protocol's golden messages (Tests/Fixtures/golden/*.json).

Requests: the client's own builders must produce the same objects (the id aside).
Replies: parsing must yield the expected Python objects.
"""

import datetime as dt
import glob
import hashlib
import json
import os

import pytest

from lightbox import picker, protocol
from lightbox import protocol as lb
from lightbox.delivery import FileTicket, open_request_body

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "Tests", "Fixtures"))
GOLDEN = os.path.join(FIXTURES, "golden")


def fixture_names():
    return sorted(os.path.basename(path) for path in glob.glob(os.path.join(GOLDEN, "*.json")))


def load(name):
    with open(os.path.join(GOLDEN, name), "rb") as handle:
        return json.loads(handle.read().decode("utf-8"))


def wire_names():
    """Tests/Fixtures/wire-names.json: the protocol's closed sets of names and the type tree. (Beside
    golden/, whose Swift test counts its files.)"""
    with open(os.path.join(FIXTURES, "wire-names.json"), encoding="utf-8") as handle:
        return json.load(handle)


def without_id(message):
    return {key: value for key, value in message.items() if key != "id"}


# Each request fixture and how the Python client builds the same request.
REQUEST_BUILDERS = {
    "pick-request.json": lambda: lb.build_request("picker.pick", lb.pick_request_body(
        selection_limit=2, filter={"any": ["images", {"not": "videos"}]}, ordered=True, photo_library=True)),
    "load-request.json": lambda: lb.build_request("provider.load", lb.load_request_body("lbt_AAAA", type="public.image")),
    "open-request.json": lambda: lb.build_request("provider.open", open_request_body("lbt_AAAA", type="public.image")),
    "stream-credit.json": lambda: lb.build_request("stream.credit", lb.stream_credit_body("req-2", 4)),
    "choose-request.json": lambda: lb.build_request("owner.choose", lb.choose_request_body(
        "pick-abc123", ["8A90A12A-EB16-CF10-F0B5-6CF6F243520B/L0/001"])),
    "register-app-request.json": lambda: lb.build_request("owner.apps.register", lb.register_app_body(
        "demo", "Demo App", "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7",
        usage_read_write="To edit your photos.", usage_add_only="To save edited copies.",
        prevent_automatic_limited_access_alert=False)),
    "auth-request.json": lambda: lb.build_request("auth.request", lb.authorization_request_body("readWrite")),
    "set-access-request.json": lambda: lb.build_request("owner.access.set", lb.set_access_body(
        "demo", read_write="limited", selection=["8A90A12A-EB16-CF10-F0B5-6CF6F243520B/L0/001"])),
    "fetch-assets-request.json": lambda: lb.build_request("library.fetchAssets", lb.fetch_assets_body(
        ["8A90A12A-EB16-CF10-F0B5-6CF6F243520B/L0/001"])),
    "audit-request.json": lambda: lb.build_request("owner.audit", lb.audit_body(
        "demo", 50, operation="load", since=dt.date(2026, 1, 1), until="2026-01-02T00:00:00Z", before=120)),
    "pick-limits-request.json": lambda: lb.build_request("picker.pick", lb.pick_request_body(limits=lb.SelectionLimits(
        max_file_size=20_000_000, min_pixels=1080, max_pixels=4096, max_duration=60, media_types=[lb.MediaType.IMAGE, "video"]))),
}

REPLY_FIXTURES = {
    "chunk-reply.json", "error-reply.json", "load-completion.json", "pending-reply.json", "pick-reply.json",
    "pick-started-event.json", "prompt-shown-event.json", "status-reply.json", "change-event.json", "audit-reply.json",
    "library-change-event.json", "open-reply.json", "assets-limits-reply.json",
}


def test_every_fixture_is_covered():
    names = set(fixture_names())
    assert names, f"no golden fixtures in {GOLDEN}"
    assert names == set(REQUEST_BUILDERS) | REPLY_FIXTURES, "a golden fixture was added or removed; cover it here"


@pytest.mark.parametrize("name", sorted(REQUEST_BUILDERS))
def test_request_builders_match_golden(name):
    golden = load(name)
    built = REQUEST_BUILDERS[name]()
    assert without_id(built) == without_id(golden)
    assert built["v"] == 1 and isinstance(built["id"], str) and built["id"]


@pytest.mark.parametrize("name", sorted(REQUEST_BUILDERS))
def test_encoded_header_round_trips(name):
    built = REQUEST_BUILDERS[name]()
    built["id"] = load(name)["id"]
    encoded = lb.encode_header(built)
    assert json.loads(encoded.decode("utf-8")) == load(name)
    # Byte-for-byte too: the Swift encoder sorts keys and writes compact JSON without escaped slashes.
    with open(os.path.join(GOLDEN, name), "rb") as handle:
        raw = handle.read().strip()
    assert encoded == json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def test_pick_configuration_defaults_leave_out_filter():
    configuration = lb.pick_configuration()
    assert configuration == {
        "selectionLimit": 1, "selection": "default", "preselectedAssetIdentifiers": [],
        "preferredAssetRepresentationMode": "automatic", "photoLibrary": False, "stripMetadata": "none", "location": "none",
    }
    # The pending-reply fixture echoes exactly this default configuration back.
    assert load("pending-reply.json")["body"]["picks"][0]["configuration"] == configuration


def test_filter_text_form_parses_to_golden_wire_form():
    golden = load("pick-request.json")["body"]["configuration"]["filter"]
    assert lb.parse_filter("any(images, not(videos))") == golden
    assert lb.parse_filter("images") == "images"
    assert lb.parse_filter("any(videos, types(public.png,public.jpeg))") == {"any": ["videos", {"types": ["public.png", "public.jpeg"]}]}
    assert lb.validate_filter({"types": ["public.jpeg"]}) == {"types": ["public.jpeg"]}
    for bad in ({"types": []}, {"types": ["a b"]}, {"types": "public.jpeg"}):
        with pytest.raises(lb.LightboxError):
            lb.validate_filter(bad)
    with pytest.raises(lb.LightboxError) as raised:
        lb.parse_filter("pictures")
    assert raised.value.code == "badRequest"
    with pytest.raises(lb.LightboxError):
        lb.pick_configuration(filter={"some": ["images"]})


def test_pick_reply_parses_to_picker_results():
    reply = lb.parse_reply(json.dumps(load("pick-reply.json")).encode())
    assert (reply.id, reply.status, reply.is_final) == ("req-1", "ok", True)
    results = picker.parse_pick_response(reply.body)
    assert len(results) == 1
    result = results[0]
    assert isinstance(result, picker.PickerResult)
    assert result.asset_identifier == "8A90A12A-EB16-CF10-F0B5-6CF6F243520B/L0/001"
    provider = result.item_provider
    assert isinstance(provider, picker.ItemProvider)
    assert provider.token == "lbt_AAAA"
    assert provider.registered_type_identifiers == ["public.jpeg"]
    assert provider.suggested_name == "harbour"
    assert provider.expires_at == dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.timezone.utc)
    assert provider.has_item_conforming_to("public.image")
    assert not provider.has_item_conforming_to("public.movie")
    assert provider.file_name() == "harbour.jpg"


def test_pick_started_event():
    reply = lb.parse_reply(json.dumps(load("pick-started-event.json")).encode())
    assert (reply.id, reply.status, reply.is_final) == ("req-1", "event", False)
    assert reply.body == {"event": "pickStarted", "pick": "pick-abc123"}


def test_error_reply_parses_to_lightbox_error():
    reply = lb.parse_reply(json.dumps(load("error-reply.json")).encode())
    assert reply.status == "error" and reply.is_final
    error = reply.error()
    assert isinstance(error, lb.LightboxError)
    assert error.code == "tokenExpired"
    assert error.message == "This item provider expired at 2026-01-01T12:00:00Z; ask for a new pick."
    assert error.details is None
    assert str(error) == f"tokenExpired: {error.message}"


def test_chunk_reply_header_fields():
    data = bytes(262144)
    reply = lb.parse_reply([json.dumps(load("chunk-reply.json")).encode(), data])
    assert (reply.id, reply.status, reply.is_final) == ("req-2", "chunk", False)
    assert reply.frames == [data]
    header = lb.ChunkHeader.from_json(reply.body)
    assert header == lb.ChunkHeader(offset=262144, length=262144, completed=524288, total=1048576)


def test_load_completion():
    reply = lb.parse_reply(json.dumps(load("load-completion.json")).encode())
    completion = lb.LoadCompletion.from_json(reply.body)
    assert completion == lb.LoadCompletion(
        bytes=1048576, sha256="30e14955ebf1352266dc2ff8067e68104607e750abb9d3b36582b8af909fcb58",
        type="public.jpeg", suggested_name="harbour")
    # The digest is the SHA-256 of 1 MiB of zero bytes, the body the golden chunks describe.
    assert hashlib.sha256(bytes(1048576)).hexdigest() == completion.sha256


def test_open_reply_is_a_file_ticket():
    reply = lb.parse_reply(json.dumps(load("open-reply.json")).encode())
    ticket = FileTicket.from_json(reply.body)
    assert ticket.ticket.startswith("lbf_") and ticket.socket.endswith("picker.sock.delivery")
    assert (ticket.file_size, ticket.type, ticket.suggested_name, ticket.expires_in) == (31859, "public.jpeg", "harbour", 30)


def test_pending_reply():
    reply = lb.parse_reply(json.dumps(load("pending-reply.json")).encode())
    picks = [lb.PendingPick.from_json(pick) for pick in reply.body["picks"]]
    assert len(picks) == 1
    pick = picks[0]
    assert (pick.pick, pick.app, pick.app_name) == ("pick-abc123", "demo", "Demo App")
    assert pick.selection_limit == 1
    assert pick.created_at == dt.datetime(2026, 1, 1, 11, 0, 0, tzinfo=dt.timezone.utc)


def test_assets_page_says_why_a_picks_limits_leave_one_out():
    reply = lb.parse_reply(json.dumps(load("assets-limits-reply.json")).encode())
    too_large, fits = [lb.Asset.from_json(asset) for asset in reply.body["assets"]]
    assert too_large.unavailable == lb.SelectionMisfit("maxFileSize", 31859, 20000, "Too large for Postcard Maker: 31.9 KB of 20 KB")
    assert fits.unavailable is None


def test_missing_body_reads_as_empty():
    reply = lb.parse_reply(b'{"v":1,"id":"x","status":"ok"}')
    assert reply.body == {}


def test_uti_conformance_tree():
    assert lb.conforms_to("public.jpeg", "public.jpeg")
    assert lb.conforms_to("public.jpeg", "public.image")
    assert lb.conforms_to("public.jpeg", "public.data")
    assert lb.conforms_to("public.jpeg", "public.item")
    assert lb.conforms_to("public.jpeg", "public.content")
    assert not lb.conforms_to("public.jpeg", "public.movie")
    assert lb.conforms_to("public.heic", "public.image")
    assert lb.conforms_to("public.mpeg-4", "public.movie")
    assert lb.conforms_to("public.mpeg-4", "public.audiovisual-content")
    assert not lb.conforms_to("public.mpeg-4", "public.image")
    assert not lb.conforms_to("public.image", "public.jpeg")
    assert lb.conforms_to("com.example.unknown", "com.example.unknown")
    assert not lb.conforms_to("com.example.unknown", "public.data")
    assert lb.preferred_filename_extension("org.webmproject.webp") == "webp"
    assert lb.preferred_filename_extension("public.image") is None


WIRE_NAMES = {
    "errorCodes": protocol.ErrorCode, "replyStatuses": protocol.ReplyStatus, "accessLevels": protocol.AccessLevel,
    "authorizationStatuses": protocol.AuthorizationStatus, "promptAnswers": protocol.PromptAnswer,
    "promptKinds": protocol.PromptKind, "readWriteSettings": protocol.ReadWriteSetting,
    "addOnlySettings": protocol.AddOnlySetting, "mediaTypes": protocol.MediaType, "filterLeaves": protocol.FilterLeaf,
    "representationModes": protocol.RepresentationMode, "metadataStripping": protocol.MetadataStripping,
    "locationAccess": protocol.LocationAccess, "imageContentModes": protocol.ImageContentMode, "imageDeliveryModes": protocol.ImageDeliveryMode,
    "imageVersions": protocol.ImageVersion, "videoDeliveryModes": protocol.VideoDeliveryMode,
}


def test_every_name_set_in_the_wire_names_fixture_is_an_enum():
    names = wire_names()
    assert set(names) - {"_comment", "types"} == set(WIRE_NAMES), "a name set was added or removed; cover it here"


@pytest.mark.parametrize("key", sorted(WIRE_NAMES))
def test_enums_match_the_wire_names_fixture(key):
    enum = WIRE_NAMES[key]
    assert sorted(enum.names()) == sorted(wire_names()[key])
    for member in enum:
        assert member == member.value and str(member) == member.value and f"{member}" == member.value
        assert json.dumps(member) == json.dumps(member.value)


def test_uti_table_matches_the_wire_names_fixture():
    """The conformance tree and extensions are the services' (Tests/Fixtures/wire-names.json)."""
    types = wire_names()["types"]
    parents = {uti: tuple(entry["parents"]) for uti, entry in types.items() if entry["parents"]}
    assert parents == {uti: tuple(listed) for uti, listed in lb.UTI_PARENTS.items()}
    assert {uti: entry["extension"] for uti, entry in types.items() if "extension" in entry} == dict(lb.UTI_EXTENSIONS)
    assert all(parent in types for listed in parents.values() for parent in listed)


def test_golden_names_are_known_to_the_enums():
    """Every closed-set name the golden messages use is a member of the client's enum."""
    assert lb.ErrorCode(load("error-reply.json")["body"]["code"]) is lb.ErrorCode.TOKEN_EXPIRED
    for name in fixture_names():
        if "status" in load(name):
            assert lb.ReplyStatus(load(name)["status"])
    status = load("status-reply.json")["body"]
    assert (lb.AccessLevel(status["level"]), lb.AuthorizationStatus(status["status"])) == ("readWrite", "limited")
    assert lb.AccessLevel(load("auth-request.json")["body"]["level"]) is lb.AccessLevel.READ_WRITE
    assert lb.ReadWriteSetting(load("set-access-request.json")["body"]["readWrite"]) is lb.ReadWriteSetting.LIMITED
    configuration = load("pending-reply.json")["body"]["picks"][0]["configuration"]
    assert lb.RepresentationMode(configuration["preferredAssetRepresentationMode"])
    assert lb.MetadataStripping(configuration["stripMetadata"])
    for uti in load("pick-reply.json")["body"]["results"][0]["itemProvider"]["registeredTypeIdentifiers"]:
        assert uti in wire_names()["types"]
    # Parsed replies carry the enums, which still compare equal to the wire names.
    reply = lb.parse_reply(json.dumps(load("status-reply.json")).encode())
    assert reply.status is lb.ReplyStatus.OK
    assert lb.StatusReply.from_json(reply.body).status is lb.AuthorizationStatus.LIMITED
    assert lb.parse_reply(json.dumps(load("error-reply.json")).encode()).error().code is lb.ErrorCode.TOKEN_EXPIRED
    # A name this client does not know yet stays a plain string rather than failing.
    assert lb.LightboxError("brandNewCode", "x").code == "brandNewCode"


def test_prompt_shown_event():
    reply = lb.parse_reply(json.dumps(load("prompt-shown-event.json")).encode())
    assert (reply.id, reply.status, reply.is_final) == ("req-7", "event", False)
    assert lb.prompt_shown(reply) == "prompt-xyz789"
    # Other events and final replies are not prompts.
    assert lb.prompt_shown(lb.parse_reply(json.dumps(load("pick-started-event.json")).encode())) is None
    assert lb.prompt_shown(lb.parse_reply(json.dumps(load("status-reply.json")).encode())) is None


def test_status_reply():
    reply = lb.parse_reply(json.dumps(load("status-reply.json")).encode())
    assert (reply.id, reply.status, reply.is_final) == ("req-7", "ok", True)
    assert lb.StatusReply.from_json(reply.body) == lb.StatusReply(level="readWrite", status="limited")
    assert reply.body["status"] in lb.AuthorizationStatus.names()
    # The legacy status has no level.
    assert lb.StatusReply.from_json({"status": "authorized"}) == lb.StatusReply(level=None, status="authorized")


def test_change_event():
    reply = lb.parse_reply(json.dumps(load("change-event.json")).encode())
    assert (reply.id, reply.status, reply.is_final) == ("req-8", "event", False)
    change = lb.AuthorizationChange.from_json(reply.body)
    assert change == lb.AuthorizationChange(
        token=42, app="demo", level="readWrite", status="limited",
        added=["8A90A12A-EB16-CF10-F0B5-6CF6F243520B/L0/001"], removed=[],
        at=dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.timezone.utc))


def test_library_change_event():
    reply = lb.parse_reply(json.dumps(load("library-change-event.json")).encode())
    assert (reply.id, reply.status, reply.is_final) == ("req-9", "event", False)
    assert lb.LibraryChange.from_json(reply.body) == lb.LibraryChange(
        token=7, inserted=["8A90A12A-EB16-CF10-F0B5-6CF6F243520B/L0/001"], removed=[], changed=[], albums=[],
        at=dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.timezone.utc))


def test_authorization_builders_check_their_choices():
    assert lb.status_request_body() == {}
    assert lb.status_request_body("addOnly") == {"level": "addOnly"}
    assert lb.changes_request_body() == {} and lb.changes_request_body(42) == {"since": 42}
    assert lb.answer_prompt_body("prompt-1", "done", ["a"]) == {"prompt": "prompt-1", "answer": "done", "selection": ["a"]}
    assert lb.answer_prompt_body("prompt-1", "deny") == {"prompt": "prompt-1", "answer": "deny"}
    assert lb.set_access_body("demo", reset=True) == {"app": "demo", "reset": True}
    assert lb.set_access_body("demo", add_only="allow") == {"app": "demo", "addOnly": "allow"}
    # A grant's term: what lightbox-auth reads (see the Swift protocol tests' twin of this body).
    end = dt.datetime(2026, 12, 1, 18, 0, 0, 500000, tzinfo=dt.timezone.utc)
    assert lb.set_access_body("demo", read_write="full", until=end, then_deny=True) == {
        "app": "demo", "readWrite": "full", "term": {"until": "2026-12-01T18:00:00Z", "then": "deny"}}
    assert lb.answer_prompt_body("prompt-1", "allow", until=end)["term"] == {"until": "2026-12-01T18:00:00Z"}
    assert lb.audit_body() == {"limit": 200} and lb.audit_body("demo", 5) == {"app": "demo", "limit": 5}
    assert lb.audit_body(operation="pick", before=7) == {"limit": 200, "operation": "pick", "before": 7}
    assert lb.prompts_request_body(-5) == {"waitMs": 0}
    assert lb.create_asset_body() == {} and lb.create_asset_body("x.jpg") == {"fileName": "x.jpg"}
    for build in (lambda: lb.authorization_request_body("write"), lambda: lb.status_request_body("limited"),
                  lambda: lb.answer_prompt_body("prompt-1", "yes"), lambda: lb.set_access_body("demo", read_write="allow"),
                  lambda: lb.set_access_body("demo", add_only="full"), lambda: lb.query_body(media_type="audio"),
                  lambda: lb.fetch_assets_body("8A90A12A-EB16-CF10-F0B5-6CF6F243520B/L0/001")):
        with pytest.raises(lb.LightboxError) as raised:
            build()
        assert raised.value.code == "badRequest"


def test_query_body_dates_are_utc_whole_seconds():
    assert lb.query_body() == {"sort": "newestFirst", "offset": 0, "limit": 100}
    body = lb.query_body(
        media_type="video", date_from=dt.datetime(2026, 1, 1, 12, 0, 0, 750000),  # naive: UTC
        date_to=dt.datetime(2026, 1, 2, 1, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))), oldest_first=True,
        offset=3, limit=2)
    assert body == {"mediaType": "video", "from": "2026-01-01T12:00:00Z", "to": "2026-01-01T23:00:00Z",
                    "sort": "oldestFirst", "offset": 3, "limit": 2}
    assert lb.format_date(dt.date(2026, 3, 4)) == "2026-03-04T00:00:00Z"
    assert lb.format_date("2026-01-01T12:00:00+01:00") == "2026-01-01T11:00:00Z"
    # What the client writes, the wire's own parser reads back.
    assert lb.parse_date(lb.format_date("2026-01-01T12:00:00Z")) == dt.datetime(2026, 1, 1, 12, tzinfo=dt.timezone.utc)
    with pytest.raises(lb.LightboxError):
        lb.format_date("yesterday")


def test_owner_side_parsers():
    prompt = lb.OwnerPrompt.from_json({
        "prompt": "prompt-xyz789", "kind": "authorization", "app": "demo", "appName": "Demo App", "level": "readWrite",
        "usageDescription": "To edit your photos.", "selection": [], "createdAt": "2026-01-01T12:00:00Z"})
    assert (prompt.prompt, prompt.kind, prompt.app_name, prompt.level) == ("prompt-xyz789", "authorization", "Demo App", "readWrite")
    assert prompt.usage_description == "To edit your photos." and prompt.selection == []
    update = lb.AccessUpdate.from_json({"access": {"app": "demo", "name": "Demo App", "readWrite": "limited",
                                                   "addOnly": "notDetermined", "selectionCount": 1}, "token": 42})
    assert update == lb.AccessUpdate(lb.AppAccess("demo", "Demo App", "limited", "notDetermined", 1), 42)
    entry = lb.AuditEntry.from_json({"app": "demo", "operation": "read", "assetCount": 2, "outcome": "allowed:selection",
                                     "at": "2026-01-01T12:00:00Z"})
    assert (entry.operation, entry.asset_count, entry.outcome) == ("read", 2, "allowed:selection")
    assert (entry.id, entry.bytes, entry.asset) == (None, None, None)
    page = lb.AuditPage.from_json(load("audit-reply.json")["body"])
    assert [entry.id for entry in page.entries] == [119, 117] and page.next == 117
    assert (page.entries[0].times, page.entries[0].last_at) == (1, None)
    assert page.entries[1].times == 40 and page.entries[1].last_at.isoformat() == "2026-01-01T12:00:01+00:00"
    assert (page.entries[0].operation, page.entries[0].bytes, page.entries[0].asset) == (
        "load", 32768, "8A90A12A-EB16-CF10-F0B5-6CF6F243520B/L0/001")
    album = lb.Album.from_json({"identifier": "A/L0/040", "title": "Trips", "createdAt": "2026-01-01T12:00:00Z"})
    assert album.title == "Trips" and album.created_at.year == 2026
