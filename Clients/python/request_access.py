#!/usr/bin/env python3
"""Ask the owner for library access as an app, the way PHPhotoLibrary.requestAuthorization does.

    python3 request_access.py --app demo [--level readWrite|addOnly] [--data var] [--auth-endpoint …]

Prints the current status (``readWrite: notDetermined``), asks for access — the owner gets a prompt
only while the status is notDetermined, and ``waiting for the owner to answer <prompt>`` goes to
standard error while it is open — then prints the resulting status (``readWrite: limited``). Exits 0
whatever the owner answered, or 1 with a one-line message when a service answers with an error
(``missingUsageDescription`` when the app's manifest does not say why it asks, ``timeout`` when
the owner does not answer).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lightbox_client import (  # noqa: E402
    add_service_arguments,
    ACCESS_LEVELS,
    LightboxError,
    PhotoLibrary,
    ServiceDirectory,
)


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description="Request library access as an app; the owner answers the prompt.")
    add_service_arguments(parser, timeout=300)
    parser.add_argument("--level", choices=ACCESS_LEVELS, default="readWrite",
                        help="readWrite (read and write the library) or addOnly (only add to it); default readWrite")
    return parser.parse_args(argv)


def main(argv=None):
    arguments = parse_arguments(argv)
    directory = ServiceDirectory(arguments.data, arguments.auth_endpoint, arguments.picker_endpoint)
    level = arguments.level
    try:
        with PhotoLibrary(directory.auth_as_app(arguments.app)) as library:
            print(f"{level}: {library.authorization_status(level)}", flush=True)
            status = library.request_authorization(
                level, timeout=arguments.timeout,
                on_prompt=lambda prompt: print(f"waiting for the owner to answer {prompt}", file=sys.stderr, flush=True),
            )
            print(f"{level}: {status}", flush=True)
        return 0
    except LightboxError as error:
        print(f"request_access: {error.code}: {error.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("request_access: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
