#!/usr/bin/env python3
"""Ask the owner for a pick as an app, then load every picked item into a folder.

    python3 pick_and_load.py --app demo [--limit N] [--filter images] [--out-dir DIR] [--data var]

Prints each result, loads it as ``<suggestedName>.<extension>`` with a progress line on standard
error, then prints ``<path>\t<bytes>\t<sha256>`` on standard output. Exits 1 with a one-line
message when a service answers with an error (or does not answer).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lightbox_client import (  # noqa: E402
    add_service_arguments,
    LightboxError,
    PhotoPicker,
    ServiceDirectory,
    parse_filter,
)


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description="Pick items as an app and load them into a folder.")
    add_service_arguments(parser, timeout=600)
    parser.add_argument("--limit", type=int, default=1, help="how many items the owner may choose; 0 = no limit")
    parser.add_argument("--filter", help="images, videos, … or any(…), all(…), not(…)")
    parser.add_argument("--ordered", action="store_true", help="keep the owner's selection order")
    parser.add_argument("--photo-library", action="store_true", help="ask for asset identifiers too")
    parser.add_argument("--out-dir", default=".", help="where to write the loaded files (default: .)")
    return parser.parse_args(argv)


MAXIMUM_NAME_BYTES = 255
MAXIMUM_EXTENSION_BYTES = 16


def safe_file_name(name, fallback="item"):
    """``name`` reduced to a safe base name, as the picker reduces the names it stores: only what
    follows the last ``/`` or ``\\``; no control, format or line-separator characters; no leading
    dots or surrounding spaces; at most 255 UTF-8 bytes, cut before the extension. A name from
    the service decides where this script writes, so it is never trusted as it comes."""
    base = re.split(r"[/\\]", name or "")[-1]
    base = "".join(c for c in base if unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"))
    base = base.strip(" ").lstrip(". ")
    if not base:
        return fallback
    if len(base.encode("utf-8")) <= MAXIMUM_NAME_BYTES:
        return base
    stem, extension = os.path.splitext(base)
    if len(extension.encode("utf-8")) > MAXIMUM_EXTENSION_BYTES + 1:
        stem, extension = base, ""
    budget = MAXIMUM_NAME_BYTES - len(extension.encode("utf-8"))
    return stem.encode("utf-8")[:budget].decode("utf-8", errors="ignore") + extension


def unique_path(folder, name, taken):
    """``folder/name`` for a safe ``name``, with ``-2``, ``-3``, … before the extension if this run
    already wrote it or a file of that name is already there (nothing is overwritten)."""
    name = safe_file_name(name)
    stem, extension = os.path.splitext(name)
    candidate, counter = name, 1
    while candidate in taken or os.path.lexists(os.path.join(folder, candidate)):
        counter += 1
        candidate = f"{stem}-{counter}{extension}"
    taken.add(candidate)
    return os.path.join(folder, candidate)


class ProgressLine:
    """``  harbour.jpg  12288/31859 bytes  38%`` on standard error, redrawn in place."""

    def __init__(self, label):
        self.label = label
        self.interactive = sys.stderr.isatty()
        self.last_percent = -1

    def __call__(self, completed, total):
        percent = 100 if total == 0 else completed * 100 // total
        if not self.interactive and percent != 100 and percent < self.last_percent + 25:
            return  # one line per quarter when piped
        self.last_percent = percent
        line = f"  {self.label}  {completed}/{total} bytes  {percent:3d}%"
        sys.stderr.write(("\r" + line) if self.interactive else (line + "\n"))
        sys.stderr.flush()

    def done(self):
        if self.interactive:
            sys.stderr.write("\n")
            sys.stderr.flush()


def main(argv=None):
    arguments = parse_arguments(argv)
    directory = ServiceDirectory(arguments.data, arguments.auth_endpoint, arguments.picker_endpoint)
    try:
        filter = parse_filter(arguments.filter) if arguments.filter else None
        os.makedirs(arguments.out_dir, exist_ok=True)
        with directory.picker_as_app(arguments.app) as connection:
            results = PhotoPicker(connection).pick(
                selection_limit=arguments.limit, filter=filter, ordered=arguments.ordered,
                photo_library=arguments.photo_library, timeout=arguments.timeout,
                on_started=lambda pick: print(f"waiting for the owner to answer {pick}", file=sys.stderr, flush=True),
            )
            if not results:
                print("the owner cancelled the pick; nothing to load")
                return 0
            taken = set()
            for index, result in enumerate(results, 1):
                provider = result.item_provider
                print(f"{index}. {provider.suggested_name or '(no name)'}\t"
                      f"{','.join(provider.registered_type_identifiers)}\t"
                      f"{result.asset_identifier or '-'}\texpires {provider.expires_at.isoformat() if provider.expires_at else '-'}")
            for result in results:
                provider = result.item_provider
                path = unique_path(arguments.out_dir, provider.file_name(), taken)
                progress = ProgressLine(os.path.basename(path))
                completion = provider.load_file(path, progress=progress)
                progress.done()
                print(f"{path}\t{completion.bytes}\t{completion.sha256}", flush=True)
        return 0
    except LightboxError as error:
        print(f"pick_and_load: {error.code}: {error.message}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"pick_and_load: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("pick_and_load: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
