#!/usr/bin/env python3
"""Generate Lightbox's sample media library (Samples/library, Samples/malformed).

THE COMMITTED FILES ARE THE SOURCE OF TRUTH. This script only documents how they
were made so they can be regenerated or extended; the Swift project never runs it
and does not depend on any of the tools below. Output bytes depend on the exact
versions of Pillow/libjpeg/libwebp/x264, so regenerating on another machine may
produce different (but equivalent) bytes; if you regenerate, re-verify and
rewrite EXPECTED.tsv, and commit the files together.

Development-time tools needed:
  * Python 3.9+ with Pillow (JPEG, PNG, GIF, WebP incl. animation) and piexif:
        pip install Pillow piexif
  * ffmpeg with libx264 (for clip.mp4):          apt-get install -y ffmpeg
  * exiftool, ffprobe, webpmux (only for --expected):
        apt-get install -y libimage-exiftool-perl ffmpeg webp

Usage:
  python3 Samples/make_samples.py              # (re)write every sample file
  python3 Samples/make_samples.py --expected   # also rewrite EXPECTED.tsv from what
                                                 # exiftool/ffprobe read back from the files

Made with Pillow 12.0.0 (libwebp 1.6.0), piexif 1.1.3, ffmpeg 5.1 (Debian 12),
exiftool 12.57. Everything is deterministic: fixed seeds, no timestamps taken from
the clock, ffmpeg run single-threaded with bitexact flags.
"""

import argparse
import colorsys
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys

import piexif
from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(HERE, "library")
BAD = os.path.join(HERE, "malformed")
SEED = 20240601


# --------------------------------------------------------------------------- helpers

def rational(value, denom=10000):
    return (int(round(value * denom)), denom)


def dms(degrees):
    """Decimal degrees -> EXIF ((d,1),(m,1),(s*100,100))."""
    degrees = abs(degrees)
    d = int(degrees)
    m_full = (degrees - d) * 60
    m = int(m_full)
    s = (m_full - m) * 60
    return ((d, 1), (m, 1), (int(round(s * 100)), 100))


def gradient(w, h, hue0=0.0, hue_span=1.0, stripes=0):
    """A smooth colourful diagonal gradient (optionally with soft sine stripes)."""
    img = Image.new("RGB", (w, h))
    px = img.load()
    for y in range(h):
        for x in range(w):
            t = (x / w * 0.7 + y / h * 0.3)
            hue = (hue0 + hue_span * t) % 1.0
            light = 0.35 + 0.3 * (y / h)
            if stripes:
                light += 0.08 * math.sin((x + y) / w * stripes * math.pi)
            r, g, b = colorsys.hls_to_rgb(hue, min(max(light, 0), 1), 0.8)
            px[x, y] = (int(r * 255), int(g * 255), int(b * 255))
    return img


def exif_bytes(make, model, date, orientation, exposure=None, fnumber=None,
               iso=None, gps=None):
    zeroth = {
        piexif.ImageIFD.Make: make.encode(),
        piexif.ImageIFD.Model: model.encode(),
        piexif.ImageIFD.Orientation: orientation,
        piexif.ImageIFD.Software: b"Lightbox make_samples.py",
        piexif.ImageIFD.DateTime: date.encode(),
    }
    exif = {
        piexif.ExifIFD.DateTimeOriginal: date.encode(),
        piexif.ExifIFD.DateTimeDigitized: date.encode(),
        piexif.ExifIFD.ExifVersion: b"0232",
    }
    if exposure:
        exif[piexif.ExifIFD.ExposureTime] = exposure
    if fnumber:
        exif[piexif.ExifIFD.FNumber] = fnumber
    if iso:
        exif[piexif.ExifIFD.ISOSpeedRatings] = iso
    gps_ifd = {}
    if gps:
        lat, lon, alt = gps
        gps_ifd = {
            piexif.GPSIFD.GPSVersionID: (2, 3, 0, 0),
            piexif.GPSIFD.GPSLatitudeRef: b"N" if lat >= 0 else b"S",
            piexif.GPSIFD.GPSLatitude: dms(lat),
            piexif.GPSIFD.GPSLongitudeRef: b"E" if lon >= 0 else b"W",
            piexif.GPSIFD.GPSLongitude: dms(lon),
            piexif.GPSIFD.GPSAltitudeRef: 0 if alt >= 0 else 1,
            piexif.GPSIFD.GPSAltitude: (int(round(abs(alt))), 1),
            piexif.GPSIFD.GPSMapDatum: b"WGS-84",
        }
    return piexif.dump({"0th": zeroth, "Exif": exif, "GPS": gps_ifd,
                        "1st": {}, "thumbnail": None})


# --------------------------------------------------------------------------- samples

def make_harbour():
    rnd = random.Random(SEED + 1)
    img = gradient(640, 480, hue0=0.5, hue_span=0.6, stripes=6)
    d = ImageDraw.Draw(img)
    # "water" band and a few boats / buoys
    for i in range(12):
        y = 330 + i * 12
        d.line([(0, y), (640, y + 6)], fill=(20, 60 + i * 8, 120 + i * 8), width=3)
    for _ in range(14):
        x, y = rnd.randrange(20, 600), rnd.randrange(300, 440)
        c = tuple(rnd.randrange(80, 256) for _ in range(3))
        d.polygon([(x, y), (x + 40, y), (x + 30, y + 12), (x + 8, y + 12)], fill=c)
        d.line([(x + 20, y), (x + 20, y - 30)], fill=(240, 240, 240), width=2)
    d.ellipse([480, 40, 560, 120], fill=(255, 220, 90))
    exif = exif_bytes("Lightbox", "Sample Camera 1", "2024:06:01 12:30:45", 1,
                      exposure=(1, 250), fnumber=(28, 10), iso=100,
                      gps=(59.9139, 10.7522, 12))
    img.save(os.path.join(LIB, "harbour.jpg"), "JPEG", quality=80,
             progressive=False, optimize=False, subsampling="4:2:0", exif=exif)


def make_portrait():
    # Draw the scene the way it should be *displayed* (400 wide x 300 tall, an
    # arrow pointing up), then store it rotated 90 deg CCW (300x400 pixels) with
    # Orientation 6, which tells viewers to rotate 90 deg CW for display.
    upright = gradient(400, 300, hue0=0.05, hue_span=0.25)
    d = ImageDraw.Draw(upright)
    d.polygon([(200, 30), (260, 110), (225, 110), (225, 260), (175, 260),
               (175, 110), (140, 110)], fill=(255, 255, 255), outline=(0, 0, 0))
    d.text((20, 20), "TOP", fill=(0, 0, 0))
    stored = upright.transpose(Image.Transpose.ROTATE_90)  # CCW -> 300x400
    assert stored.size == (300, 400)
    exif = exif_bytes("Lightbox", "Sample Camera 2", "2023:12:24 18:00:00", 6)
    stored.save(os.path.join(LIB, "portrait.jpg"), "JPEG", quality=80,
                progressive=False, optimize=False, exif=exif)


def make_sunset():
    w, h = 320, 200
    img = Image.new("RGBA", (w, h))
    px = img.load()
    for y in range(h):
        for x in range(w):
            t = y / h
            r = 255
            g = int(200 - 150 * t)
            b = int(60 + 100 * t)
            # alpha: fully transparent top-left corner triangle, a soft vignette,
            # and opaque elsewhere
            if x + y < 60:
                a = 0
            else:
                dx, dy = (x - w / 2) / (w / 2), (y - h / 2) / (h / 2)
                a = int(255 * max(0.25, min(1.0, 1.4 - 0.6 * (dx * dx + dy * dy))))
            px[x, y] = (r, g, b, a)
    d = ImageDraw.Draw(img)
    d.ellipse([130, 110, 190, 170], fill=(255, 240, 120, 255))
    d.rectangle([0, 160, w, h], fill=(40, 20, 60, 255))
    d.rectangle([250, 20, 300, 60], fill=(0, 0, 0, 0))  # transparent hole
    img.save(os.path.join(LIB, "sunset.png"), "PNG", optimize=True)


def make_meadow():
    rnd = random.Random(SEED + 2)
    img = gradient(400, 300, hue0=0.18, hue_span=0.2)
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, 400, 110], fill=(120, 180, 240))
    for _ in range(300):
        x, y = rnd.randrange(0, 400), rnd.randrange(110, 300)
        c = rnd.choice([(255, 255, 255), (250, 220, 40), (220, 60, 120), (150, 90, 220)])
        d.ellipse([x, y, x + 4, y + 4], fill=c)
    img.save(os.path.join(LIB, "meadow.webp"), "WEBP", lossless=False,
             quality=75, method=4)


def make_spinner():
    frames = []
    for i in range(8):
        f = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
        d = ImageDraw.Draw(f)
        for k in range(8):
            ang = 2 * math.pi * k / 8
            bright = 255 if k == i else 70 + 15 * ((k - i) % 8)
            cx, cy = 32 + 22 * math.cos(ang), 32 + 22 * math.sin(ang)
            d.ellipse([cx - 5, cy - 5, cx + 5, cy + 5], fill=(bright, bright // 2, 40, 255))
        frames.append(f)
    frames[0].save(os.path.join(LIB, "spinner.webp"), "WEBP", save_all=True,
                   append_images=frames[1:], duration=100, loop=0,
                   lossless=False, quality=80, method=4, minimize_size=False,
                   allow_mixed=False)


def make_bounce():
    frames = []
    for i in range(10):
        f = Image.new("RGB", (80, 60), (30, 30, 60))
        d = ImageDraw.Draw(f)
        t = i / 10
        y = 8 + int(36 * abs(math.cos(math.pi * t)))
        x = 8 + i * 6
        d.rectangle([0, 54, 80, 60], fill=(90, 160, 60))
        d.ellipse([x, y, x + 12, y + 12], fill=(240, 80, 60))
        frames.append(f.quantize(colors=16, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE))
    frames[0].save(os.path.join(LIB, "bounce.gif"), "GIF", save_all=True,
                   append_images=frames[1:], duration=80, loop=0, optimize=False,
                   disposal=1)


def make_clip():
    ffmpeg = shutil.which("ffmpeg")
    if not ffmpeg:
        sys.exit("ffmpeg is needed for clip.mp4 (apt-get install -y ffmpeg)")
    out = os.path.join(LIB, "clip.mp4")
    cmd = [ffmpeg, "-y", "-loglevel", "error", "-nostdin",
           "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=2",
           "-an", "-c:v", "libx264", "-preset", "medium", "-crf", "28",
           "-pix_fmt", "yuv420p", "-profile:v", "high", "-g", "10",
           "-threads", "1", "-x264-params", "threads=1:lookahead-threads=1",
           "-r", "10", "-frames:v", "20",
           "-metadata", "creation_time=2024-05-01T10:00:00Z",
           "-movflags", "+faststart",
           "-fflags", "+bitexact", "-flags:v", "+bitexact",
           out]
    subprocess.run(cmd, check=True)


def make_malformed():
    with open(os.path.join(LIB, "harbour.jpg"), "rb") as f:
        head = f.read(200)
    with open(os.path.join(BAD, "truncated.jpg"), "wb") as f:
        f.write(head)
    rnd = random.Random(SEED + 3)
    body = bytes(rnd.getrandbits(8) for _ in range(100))
    # RIFF size field = bytes after it ("WEBP" + payload), as a real header would say,
    # but the payload is not a valid chunk.
    with open(os.path.join(BAD, "garbage.webp"), "wb") as f:
        f.write(b"RIFF" + (4 + len(body)).to_bytes(4, "little") + b"WEBP" + body)
    open(os.path.join(BAD, "empty.gif"), "wb").close()


# --------------------------------------------------------------------------- EXPECTED.tsv

UTI = {".jpg": "public.jpeg", ".png": "public.png", ".webp": "org.webmproject.webp",
       ".gif": "com.compuserve.gif", ".mp4": "public.mpeg-4"}
COLUMNS = ["file", "uti", "media_type", "width", "height", "animated", "frames",
           "duration_s", "date_original", "make", "model", "gps_lat", "gps_lon",
           "orientation"]


def fmt_num(v, places):
    """Fixed-point, trailing zeros dropped but at least one decimal: 2 -> "2.0"."""
    s = f"{float(v):.{places}f}".rstrip("0")
    return s + "0" if s.endswith(".") else s


def webp_frames(path):
    """(frame count, [durations ms]) of a WebP as reported by libwebp's webpmux."""
    out = subprocess.run(["webpmux", "-info", path], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r"Number of frames: (\d+)", out)
    if not m:
        return 1, []
    durations = [int(line.split()[6]) for line in out.splitlines()
                 if re.match(r"\s*\d+:\s", line)]
    return int(m.group(1)), durations


def exif_date_to_iso(s):
    # "2024:06:01 12:30:45" -> "2024-06-01T12:30:45"
    date, _, time = s.partition(" ")
    return date.replace(":", "-") + "T" + time


def write_expected():
    """Read every library file back with exiftool/ffprobe and write EXPECTED.tsv."""
    for tool in ("exiftool", "ffprobe", "webpmux"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is needed for --expected")
    names = sorted(os.listdir(LIB))
    rows = []
    for name in names:
        path = os.path.join(LIB, name)
        ext = os.path.splitext(name)[1].lower()
        row = dict.fromkeys(COLUMNS, "")
        row["file"] = name
        row["uti"] = UTI[ext]
        if ext == ".mp4":
            info = json.loads(subprocess.run(
                ["ffprobe", "-v", "error", "-print_format", "json", "-show_format",
                 "-show_streams", "-count_frames", path],
                check=True, capture_output=True, text=True).stdout)
            v = [s for s in info["streams"] if s["codec_type"] == "video"][0]
            assert not [s for s in info["streams"] if s["codec_type"] == "audio"]
            # "animated" is for animated *images*; a video is media_type=video, animated=0
            row.update(media_type="video", width=v["width"], height=v["height"],
                       animated=0, frames=int(v["nb_read_frames"]),
                       duration_s=fmt_num(info["format"]["duration"], 3))
            ct = info["format"]["tags"]["creation_time"]  # 2024-05-01T10:00:00.000000Z
            row["date_original"] = ct.split(".")[0] + ("Z" if ct.endswith("Z") else "")
        else:
            meta = json.loads(subprocess.run(
                ["exiftool", "-j", "-n", "-G0", "-a", path],
                check=True, capture_output=True, text=True).stdout)[0]
            get = lambda *keys: next((meta[k] for k in keys if k in meta), "")
            row["media_type"] = "image"
            row["width"] = get("File:ImageWidth", "PNG:ImageWidth", "RIFF:ImageWidth",
                               "GIF:ImageWidth")
            row["height"] = get("File:ImageHeight", "PNG:ImageHeight", "RIFF:ImageHeight",
                                "GIF:ImageHeight")
            frames = get("GIF:FrameCount", "RIFF:FrameCount") or 1
            if ext == ".webp":  # exiftool 12.57 reports no WebP frame count
                frames, durations = webp_frames(path)
                if durations:
                    assert abs(sum(durations) / 1000 - float(get("RIFF:Duration"))) < 1e-6
            row["frames"] = frames
            row["animated"] = 1 if int(frames) > 1 else 0
            if int(frames) > 1:
                row["duration_s"] = fmt_num(get("Composite:Duration", "GIF:Duration",
                                                "RIFF:Duration"), 3)
            d = get("EXIF:DateTimeOriginal")
            row["date_original"] = exif_date_to_iso(d) if d else ""
            row["make"] = get("EXIF:Make")
            row["model"] = get("EXIF:Model")
            lat, lon = get("Composite:GPSLatitude"), get("Composite:GPSLongitude")
            row["gps_lat"] = fmt_num(lat, 6) if lat != "" else ""
            row["gps_lon"] = fmt_num(lon, 6) if lon != "" else ""
            row["orientation"] = get("EXIF:Orientation")
        rows.append(row)
    with open(os.path.join(HERE, "EXPECTED.tsv"), "w", newline="\n") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(str(r[c]) for c in COLUMNS) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--expected", action="store_true",
                    help="also rewrite EXPECTED.tsv from exiftool/ffprobe output")
    args = ap.parse_args()
    os.makedirs(LIB, exist_ok=True)
    os.makedirs(BAD, exist_ok=True)
    make_harbour()
    make_portrait()
    make_sunset()
    make_meadow()
    make_spinner()
    make_bounce()
    make_clip()
    make_malformed()
    if args.expected:
        write_expected()


if __name__ == "__main__":
    main()
