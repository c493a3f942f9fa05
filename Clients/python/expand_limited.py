#!/usr/bin/env python3
"""Let the owner add to an app's limited selection, the way presentLimitedLibraryPicker does.

    python3 expand_limited.py --app demo [--data var] [--auth-endpoint …]

Shows the owner the limited-library picker for the app (``waiting for the owner to answer
<prompt>`` goes to standard error while it is open), then prints each newly added asset identifier
on its own line, or ``nothing added``. Exits 1 with a one-line message when a service answers with
an error (``notLimited`` unless the app's read-write access is limited, ``timeout`` when the owner
does not finish).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lightbox_client import (  # noqa: E402
    add_service_arguments,
    LightboxError,
    PhotoLibrary,
    ServiceDirectory,
)


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description="Ask the owner to add to an app's limited selection.")
    add_service_arguments(parser, timeout=300)
    return parser.parse_args(argv)


def main(argv=None):
    arguments = parse_arguments(argv)
    directory = ServiceDirectory(arguments.data, arguments.auth_endpoint, arguments.picker_endpoint)
    try:
        with PhotoLibrary(directory.auth_as_app(arguments.app)) as library:
            added = library.present_limited_library_picker(
                timeout=arguments.timeout,
                on_prompt=lambda prompt: print(f"waiting for the owner to answer {prompt}", file=sys.stderr, flush=True),
            )
        for identifier in added:
            print(identifier)
        if not added:
            print("nothing added")
        return 0
    except LightboxError as error:
        print(f"expand_limited: {error.code}: {error.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("expand_limited: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
