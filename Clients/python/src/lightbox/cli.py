"""The console scripts ([project.scripts] in pyproject.toml):

- ``lightbox-pick``: ask the owner for a pick as an app and load every result into a folder;
- ``lightbox-request-access``: request ``readWrite`` or ``addOnly`` library access as an app;
- ``lightbox-expand-limited``: show the owner the limited-library picker for an app.

Each exits 0 on success, 1 with one line on standard error (``<command>: <code>: <message>``) on a
:class:`~lightbox.LightboxError`, and 130 when interrupted.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import unicodedata
from typing import Callable, List, Optional, Sequence, Set

from .errors import LightboxError
from .library import PhotoLibrary
from .picker import PhotoPicker
from .protocol import AccessLevel, LocationAccess, parse_filter
from .transport import ServiceDirectory

__all__ = ["pick_main", "request_access_main", "expand_limited_main", "safe_file_name", "unique_path"]

MAXIMUM_NAME_BYTES = 255
MAXIMUM_EXTENSION_BYTES = 16


def safe_file_name(name: Optional[str], fallback: str = "item") -> str:
    """``name`` reduced to a safe base name, as the picker reduces the names it stores: only what
    follows the last ``/`` or ``\\``; no control, format or line-separator characters; no leading
    dots or surrounding spaces; at most 255 UTF-8 bytes, cut before the extension. A name from
    the service decides where ``lightbox-pick`` writes, so it is never trusted as it comes."""
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


def unique_path(folder: str, name: str, taken: Set[str]) -> str:
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
    """``  harbour.jpg  12288/31859 bytes  38%`` on standard error, redrawn in place (one line per
    quarter when standard error is not a terminal)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.interactive = sys.stderr.isatty()
        self.last_percent = -1

    def __call__(self, completed: int, total: int) -> None:
        percent = 100 if total == 0 else completed * 100 // total
        if not self.interactive and percent != 100 and percent < self.last_percent + 25:
            return
        self.last_percent = percent
        line = f"  {self.label}  {completed}/{total} bytes  {percent:3d}%"
        sys.stderr.write(("\r" + line) if self.interactive else (line + "\n"))
        sys.stderr.flush()

    def done(self) -> None:
        if self.interactive:
            sys.stderr.write("\n")
            sys.stderr.flush()


def service_parser(description: str, timeout: float) -> argparse.ArgumentParser:
    """A parser with the options every command shares: the app, the data directory, the endpoints,
    a time-out."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--app", required=True, help="the app id (its key is DATA/apps/ID.key)")
    parser.add_argument("--data", default=os.environ.get("LIGHTBOX_DATA", "var"),
                        help="data directory with keys/ and apps/ (env LIGHTBOX_DATA, default var)")
    parser.add_argument("--auth-endpoint", default=None, help="env LIGHTBOX_AUTH_ENDPOINT")
    parser.add_argument("--picker-endpoint", default=None,
                        help="one picker, or several of one library separated by commas (the client fails over "
                             "between them; they share keys/picker.key); env LIGHTBOX_PICKER_ENDPOINT")
    parser.add_argument("--timeout", type=float, default=timeout,
                        help=f"seconds to wait for the owner (default {timeout:g})")
    return parser


def directory_of(arguments: argparse.Namespace) -> ServiceDirectory:
    return ServiceDirectory(arguments.data, arguments.auth_endpoint, arguments.picker_endpoint)


def waiting(prompt: str) -> None:
    print(f"waiting for the owner to answer {prompt}", file=sys.stderr, flush=True)


def guarded(name: str, body: Callable[[], int]) -> int:
    """Runs a command's body; a LightboxError or OSError becomes one line and exit status 1."""
    try:
        return body()
    except LightboxError as error:
        print(f"{name}: {error.code}: {error.message}", file=sys.stderr)
    except OSError as error:
        print(f"{name}: {error}", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    return 1


def pick_main(argv: Optional[Sequence[str]] = None) -> int:
    """``lightbox-pick --app ID [--limit N] [--filter F] [--out-dir DIR]``: prints each result, loads
    it as ``<suggestedName>.<extension>`` with a progress line on standard error, then prints
    ``<path>\\t<bytes>\\t<sha256>``."""
    parser = service_parser("Pick items as an app and load them into a folder.", timeout=600)
    parser.add_argument("--limit", type=int, default=1, help="how many items the owner may choose; 0 = no limit")
    parser.add_argument("--filter", help="images, videos, … or any(…), all(…), not(…)")
    parser.add_argument("--ordered", action="store_true", help="keep the owner's selection order")
    parser.add_argument("--photo-library", action="store_true", help="ask for asset identifiers too")
    parser.add_argument("--out-dir", default=".", help="where to write the loaded files (default: .)")
    parser.add_argument("--location", choices=LocationAccess.names(), default=LocationAccess.NONE.value,
                        help="ask for where the items were taken: none (default), approximate (about 10 km) or "
                             "precise; the owner decides what is delivered")
    arguments = parser.parse_args(argv)

    def run() -> int:
        filter = parse_filter(arguments.filter) if arguments.filter else None
        os.makedirs(arguments.out_dir, exist_ok=True)
        with directory_of(arguments).picker_as_app(arguments.app) as connection:
            results = PhotoPicker(connection).pick(
                selection_limit=arguments.limit, filter=filter, ordered=arguments.ordered,
                photo_library=arguments.photo_library, timeout=arguments.timeout, on_started=waiting,
                location=arguments.location)
            if not results:
                print("the owner cancelled the pick; nothing to load")
                return 0
            for index, result in enumerate(results, 1):
                provider = result.item_provider
                expires = provider.expires_at.isoformat() if provider.expires_at else "-"
                print(f"{index}. {provider.suggested_name or '(no name)'}\t"
                      f"{','.join(provider.registered_type_identifiers)}\t"
                      f"{result.asset_identifier or '-'}\texpires {expires}")
            taken: Set[str] = set()
            for result in results:
                provider = result.item_provider
                path = unique_path(arguments.out_dir, provider.file_name(), taken)
                progress = ProgressLine(os.path.basename(path))
                completion = provider.load_file(path, progress=progress)
                progress.done()
                print(f"{path}\t{completion.bytes}\t{completion.sha256}", flush=True)
        return 0

    return guarded("lightbox-pick", run)


def request_access_main(argv: Optional[Sequence[str]] = None) -> int:
    """``lightbox-request-access --app ID [--level readWrite|addOnly]``: prints the status
    (``readWrite: notDetermined``), asks for access — the owner gets a prompt only while the status
    is notDetermined — then prints the resulting status. Exits 0 whatever the owner answered."""
    parser = service_parser("Request library access as an app; the owner answers the prompt.", timeout=300)
    parser.add_argument("--level", choices=AccessLevel.names(), default=AccessLevel.READ_WRITE.value,
                        help="readWrite (read and write the library) or addOnly (only add to it); default readWrite")
    arguments = parser.parse_args(argv)
    level = AccessLevel(arguments.level)

    def run() -> int:
        with PhotoLibrary(directory_of(arguments).auth_as_app(arguments.app)) as library:
            print(f"{level}: {library.authorization_status(level)}", flush=True)
            status = library.request_authorization(level, timeout=arguments.timeout, on_prompt=waiting)
            print(f"{level}: {status}", flush=True)
        return 0

    return guarded("lightbox-request-access", run)


def expand_limited_main(argv: Optional[Sequence[str]] = None) -> int:
    """``lightbox-expand-limited --app ID``: shows the owner the limited-library picker, then prints
    each newly added identifier on its own line, or ``nothing added``."""
    arguments = service_parser("Ask the owner to add to an app's limited selection.", timeout=300).parse_args(argv)

    def run() -> int:
        with PhotoLibrary(directory_of(arguments).auth_as_app(arguments.app)) as library:
            added: List[str] = library.present_limited_library_picker(timeout=arguments.timeout, on_prompt=waiting)
        print("\n".join(added) if added else "nothing added")
        return 0

    return guarded("lightbox-expand-limited", run)
