#!/usr/bin/env python3
"""Makes the Motion Photo samples in this folder from the sample library (run it here; needs vips).

Each is Samples/library/portrait.jpg with Samples/library/clip.mp4 inside, in one of the layouts
MotionPhotoReader (Services/Media) understands, the XMP as its own APP1 segment after SOI:
- google-container.MP.jpg: Motion Photo 1.0, Camera:MotionPhoto="1" and a Container:Directory whose
  MotionPhoto item gives the movie's Length; the MP4 is appended.
- google-container.MP.heic: the same as HEIC (vips keeps the XMP as a HEIF item), the MP4 appended in
  a top-level `mpvd` box (the primary item's Padding covers its 8-byte header).
- microvideo.jpg: GCamera:MicroVideo="1", GCamera:MicroVideoOffset (the MP4's distance from the end).
- samsung.jpg: no XMP; Samsung's data item header and `MotionPhoto_Data`, the MP4, then a SEF trailer.
- lying-length.jpg: Motion Photo 1.0 XMP whose Length runs past the start of the file (stays a still).
"""
import pathlib
import struct
import subprocess
import tempfile

LIBRARY = pathlib.Path(__file__).resolve().parent.parent / "library"
STILL = (LIBRARY / "portrait.jpg").read_bytes()
MOVIE = (LIBRARY / "clip.mp4").read_bytes()
TIMESTAMP_US = 500000


def with_xmp(jpeg, xmp):
    payload = b"http://ns.adobe.com/xap/1.0/\0" + xmp.encode()
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]


def container_xmp(length, primary_padding=0):
    return f"""<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:Camera="http://ns.google.com/photos/1.0/camera/"
 xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
 Camera:MotionPhoto="1" Camera:MotionPhotoVersion="1" Camera:MotionPhotoPresentationTimestampUs="{TIMESTAMP_US}">
<Container:Directory><rdf:Seq>
<rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="{primary_padding}"/></rdf:li>
<rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="{length}" Item:Padding="0"/></rdf:li>
</rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>"""


def microvideo_xmp(offset):
    return f"""<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
 GCamera:MicroVideo="1" GCamera:MicroVideoVersion="1" GCamera:MicroVideoOffset="{offset}"
 GCamera:MicroVideoPresentationTimestampUs="{TIMESTAMP_US}"/></rdf:RDF></x:xmpmeta>"""


def samsung_trailer(jpeg, movie):
    name = b"MotionPhoto_Data"
    item = b"\x00\x00\x30\x0a" + struct.pack("<I", len(name)) + name + movie
    # SEF directory: one entry (type, offset back from SEFH, length), then its size and SEFT.
    directory = b"SEFH" + struct.pack("<II", 107, 1) + struct.pack("<HHII", 0, 0x0A30, len(item), len(item))
    return jpeg + item + directory + struct.pack("<I", len(directory)) + b"SEFT"


def heic_with_mpvd(movie):
    with tempfile.TemporaryDirectory() as folder:
        source, heic = pathlib.Path(folder) / "still.jpg", pathlib.Path(folder) / "still.heic"
        source.write_bytes(with_xmp(STILL, container_xmp(len(movie), primary_padding=8)))
        subprocess.run(["vips", "copy", str(source), str(heic)], check=True)
        return heic.read_bytes() + struct.pack(">I", len(movie) + 8) + b"mpvd" + movie


files = {
    "google-container.MP.heic": heic_with_mpvd(MOVIE),
    "google-container.MP.jpg": with_xmp(STILL, container_xmp(len(MOVIE))) + MOVIE,
    "microvideo.jpg": with_xmp(STILL, microvideo_xmp(len(MOVIE))) + MOVIE,
    "samsung.jpg": samsung_trailer(STILL, MOVIE),
    "lying-length.jpg": with_xmp(STILL, container_xmp(10_000_000)) + MOVIE,
}
for name, data in files.items():
    pathlib.Path(name).write_bytes(data)
