"""Writes the seed corpus of each fuzz target into a work folder (never committed).

Usage: seeds.py <repository root> <work folder> <target>...
Media targets get the sample files of their format (Samples/library, extra, malformed) plus the
malformed ones; `exif` gets the EXIF blocks cut out of the JPEG samples; `strip` gets every
image once per stripping mode (first byte). `wire` gets each golden JSON fixture once per body
type (first byte). `zmtp` gets client openings as libzmq sends them (greeting, HELLO, INITIATE,
MESSAGE frames; the boxes are random bytes). Each target's earlier findings (Tests/Fixtures/fuzz-regressions/<target>) are
seeds too, so a fixed crash stays covered.
"""
import pathlib
import sys

root, work, targets = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
samples = sorted(p for folder in ("library", "extra", "malformed", "motion") for p in (root / "Samples" / folder).glob("*")
                 if p.is_file() and p.suffix != ".md")
malformed = [p for p in samples if p.parent.name == "malformed"]
by_suffix = {
    "jpeg": (".jpg", ".jpeg"), "png": (".png",), "webp": (".webp",), "gif": (".gif",),
    "heif": (".heic", ".heif"), "movie": (".mp4", ".mov"), "motion": (".jpg", ".jpeg", ".heic"),
}


def wire_choices() -> int:
    """How many body types WireFuzzEntry chooses from (WireFuzzEntry.bodyDecoders.count; the first
    byte is taken modulo this plus one, the last choice is the filter text), counted in its source
    so that a type added there gets seeds too (a number written here fell behind by four)."""
    source = (root / "Shared/LightboxProtocol/WireFuzzEntry.swift").read_text()
    start = source.index("static let bodyDecoders")
    count = source[start:source.index("\n    ]", start)].count("probe(")
    if count == 0:
        sys.exit("seeds.py: found no bodyDecoders in WireFuzzEntry.swift")
    return count


WIRE_CHOICES = wire_choices()


def exif_blocks(data: bytes):
    """The APP1 payloads that start with Exif\\0\\0 in a JPEG."""
    index = 2
    while index + 4 <= len(data) and data[index] == 0xFF:
        marker, length = data[index + 1], int.from_bytes(data[index + 2:index + 4], "big")
        payload = data[index + 4:index + 2 + length]
        if marker == 0xE1 and payload.startswith(b"Exif\0\0"):
            yield payload
        if marker == 0xDA:
            break
        index += 2 + length


def zmtp_openings():
    """A libzmq client's first bytes: its greeting, then handshake commands and a message."""
    import random
    rng = random.Random(26)

    def greeting(mechanism: bytes, minor: int = 1) -> bytes:
        return b"\xff" + (1).to_bytes(8, "big") + b"\x7f" + bytes([3, minor]) + mechanism.ljust(20, b"\0") + b"\0" * 32

    def frame(body: bytes, command: bool) -> bytes:
        flags = 0x04 if command else 0
        if len(body) > 255:
            return bytes([flags | 0x02]) + len(body).to_bytes(8, "big") + body
        return bytes([flags, len(body)]) + body

    def noise(count: int) -> bytes:
        return bytes(rng.randrange(256) for _ in range(count))

    hello = frame(b"\x05HELLO\x01\x00" + b"\0" * 72 + noise(120), True)
    metadata = b"\x0bSocket-Type\0\0\0\x06DEALER\x08Identity\0\0\0\0"
    initiate = frame(b"\x08INITIATE" + noise(96 + 8 + 128) + metadata + noise(16), True)
    message = frame(b"\x07MESSAGE" + (3).to_bytes(8, "big") + noise(40), False)
    yield "curve-opening", greeting(b"CURVE") + hello + initiate + message
    yield "curve-hello", greeting(b"CURVE", 0) + hello
    yield "null-greeting", greeting(b"NULL") + frame(b"\x05READY" + metadata, True)
    yield "metadata", greeting(b"CURVE") + metadata


for target in targets:
    folder = work / "seeds" / target
    folder.mkdir(parents=True, exist_ok=True)
    seeds: dict[str, bytes] = {}
    if target == "wire":
        for fixture in sorted((root / "Tests/Fixtures/golden").glob("*.json")):
            for choice in range(WIRE_CHOICES + 1):
                seeds[f"{fixture.stem}-{choice}"] = bytes([choice]) + fixture.read_bytes()
        seeds["filter"] = bytes([WIRE_CHOICES]) + b"any(images,not(videos))"
    elif target == "zmtp":
        for name, opening in zmtp_openings():
            seeds[name] = opening
    elif target == "connection":
        # Mode byte, then: raw openings (even), or records after a real handshake (odd):
        # kind (bits 0-1: 0 message frame, 1 PING, 2 raw bytes, 3 a burst of empty frames;
        # bit 2 more, bit 3 command; bits 4-5 both set: length x16), length, payload.
        for name, opening in zmtp_openings():
            seeds[f"raw-{name}"] = b"\0" + opening
        header = b'{"v":1,"id":"a","op":"service.ping","body":{}}'
        seeds["ping-request"] = b"\1" + bytes([0, len(header)]) + header
        seeds["multipart"] = b"\1" + bytes([4, len(header)]) + header + bytes([4, 3]) + b"abc" + bytes([0, 1]) + b"z"
        seeds["many-frames"] = b"\1" + bytes([4, len(header)]) + header + bytes([3, 200])
        seeds["pings"] = b"\1" + bytes([1, 16]) + b"0123456789abcdef" + bytes([0x31, 64]) + b"x" * 64
        seeds["raw-among"] = b"\1" + bytes([2, 3]) + b"\x02\xff\xff" + bytes([0, len(header)]) + header
    elif target == "exif":
        for path in samples:
            for number, block in enumerate(exif_blocks(path.read_bytes())):
                seeds[f"{path.stem}-{number}"] = block
    elif target == "strip":
        for path in samples:
            if path.suffix in (".jpg", ".png", ".webp", ".gif"):
                for mode in (0, 1):
                    seeds[f"{path.stem}-{mode}"] = bytes([mode]) + path.read_bytes()
    else:
        for path in samples:
            if path.suffix in by_suffix[target] or path in malformed:
                seeds[path.name] = path.read_bytes()
    regressions = root / "Tests/Fixtures/fuzz-regressions" / target
    if regressions.is_dir():
        for path in regressions.iterdir():
            seeds[f"regression-{path.name}"] = path.read_bytes()
    for name, data in seeds.items():
        (folder / name).write_bytes(data)
    print(f"{target}: {len(seeds)} seeds")
