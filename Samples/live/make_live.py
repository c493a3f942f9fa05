#!/usr/bin/env python3
"""Makes the Live Photo sample pairs in this folder (run it here; needs vips and ffmpeg).

- IMG_0001.JPG + IMG_0001.MOV share an Apple content identifier: the JPEG's EXIF carries an Apple
  MakerNote ("Apple iOS\\0", version 1, "MM", an IFD with tag 0x0011 ContentIdentifier), the movie
  the QuickTime key com.apple.quicktime.content.identifier. Their names differ in nothing but the
  extension, so the stem rule would pair them too; PAIRED_BY_ID.JPG/.MOV below have unrelated names.
- identified.jpg + movie-of-identified.mov: same identifier, different stems (pairs only by identifier).
- IMG_0002.JPG + IMG_0002.MOV: no identifier; same stem and capture time (pairs by stem and time).
"""
import struct, subprocess

IDENTIFIER = "6F1D2C4B-8A3E-4F50-9B7C-1E2D3C4B5A69"
CAPTURE = "2024:08:03 18:20:05"


def exif_block(content_identifier):
    """An APP1 EXIF payload: IFD0 -> Exif IFD with DateTimeOriginal and (optionally) Apple's MakerNote."""
    note = b""
    if content_identifier:
        ident = content_identifier.encode() + b"\0"
        header = b"Apple iOS\0" + b"\x00\x01" + b"MM"
        ifd = struct.pack(">H", 1) + struct.pack(">HHII", 0x0011, 2, len(ident), 16 + 12 + 4) + struct.pack(">I", 0)
        note = header + ifd + ident
    date = CAPTURE.encode() + b"\0"
    entries = [(0x9003, 2, len(date), date)]
    if note:
        entries.append((0x927C, 7, len(note), note))
    # TIFF header (8) + IFD0 with one entry (2 + 12 + 4) = 26; the Exif IFD follows.
    exif_ifd_offset = 26
    data_offset = exif_ifd_offset + 2 + 12 * len(entries) + 4
    exif_ifd = struct.pack(">H", len(entries))
    data = b""
    for tag, kind, count, value in entries:
        exif_ifd += struct.pack(">HHII", tag, kind, count, data_offset + len(data))
        data += value
    exif_ifd += struct.pack(">I", 0)
    tiff = b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1) + struct.pack(">HHII", 0x8769, 4, 1, exif_ifd_offset) + struct.pack(">I", 0)
    return b"Exif\0\0" + tiff + exif_ifd + data


def still(name, content_identifier, colour):
    subprocess.run(["vips", "black", "/tmp/live-black.v", "64", "48", "--bands", "3"], check=True)
    subprocess.run(["vips", "linear", "/tmp/live-black.v", "/tmp/live-tinted.v", "1", colour, "--uchar"], check=True)
    subprocess.run(["vips", "copy", "/tmp/live-tinted.v", f"/tmp/live-{name}[Q=60,strip]"], check=True)
    jpeg = open(f"/tmp/live-{name}", "rb").read()
    payload = exif_block(content_identifier)
    app1 = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    open(name, "wb").write(jpeg[:2] + app1 + jpeg[2:])


def movie(name, content_identifier):
    arguments = ["ffmpeg", "-y", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1",
                 "-c:v", "mpeg4", "-q:v", "10", "-movflags", "use_metadata_tags",
                 "-metadata", "com.apple.quicktime.creationdate=2024-08-03T18:20:05Z",
                 "-metadata", "creation_time=2024-08-03T18:20:05Z"]
    if content_identifier:
        arguments += ["-metadata", f"com.apple.quicktime.content.identifier={content_identifier}"]
    subprocess.run(arguments + ["-f", "mov", name], check=True)


still("identified.jpg", IDENTIFIER, "90")
movie("movie-of-identified.mov", IDENTIFIER)
still("IMG_0002.JPG", None, "160")
movie("IMG_0002.MOV", None)
