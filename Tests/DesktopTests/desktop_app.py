#!/usr/bin/python3
"""A desktop app choosing files through xdg-desktop-portal, as GTK does: GDBus calls to the portal
frontend (org.freedesktop.portal.Desktop) or straight to a backend, one JSON line per event on
stdout. Runs under the system Python (Debian's python3-gi); the tests drive it as a process, so the
frontend sees a real host app.

    desktop_app.py open-file --title T [--multiple] [--directory] [--filter 'Name=mime:image/*;glob:*.jpg']…
    desktop_app.py save-file --title T --name N
    desktop_app.py backend-open-file --app-id ID --title T [--multiple] [--filter …]   (the lightbox backend directly)
    desktop_app.py mock-calls                                                          (what the mock backend was asked)

Prints {"calling": method, "at": time} just before the call, {"handle": …, "at": time} once the request is
made, then {"response": N, "results": {…}, "at": time}.
A line "close" on stdin closes the request (org.freedesktop.portal.Request.Close): {"closed": true}.
"""

import argparse
import json
import sys
import time
import uuid

from gi.repository import Gio, GLib

FRONTEND = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"
LIGHTBOX = "org.freedesktop.impl.portal.desktop.lightbox"
MOCK = "org.freedesktop.impl.portal.desktop.mock"


def say(**fields):
    fields["at"] = time.time()
    print(json.dumps(fields, default=str), flush=True)


def filters(specs):
    """'Images=mime:image/*;glob:*.jpg' → ('Images', [(1, 'image/*'), (0, '*.jpg')])"""
    result = []
    for spec in specs or []:
        name, _, patterns = spec.partition("=")
        items = []
        for pattern in patterns.split(";"):
            kind, _, text = pattern.partition(":")
            items.append((1 if kind == "mime" else 0, text))
        result.append((name, items))
    return result


def options(arguments, token):
    values = {"handle_token": GLib.Variant("s", token)}
    if arguments.multiple:
        values["multiple"] = GLib.Variant("b", True)
    if getattr(arguments, "directory", False):
        values["directory"] = GLib.Variant("b", True)
    if arguments.filter:
        values["filters"] = GLib.Variant("a(sa(us))", filters(arguments.filter))
    if getattr(arguments, "name", None):
        values["current_name"] = GLib.Variant("s", arguments.name)
    return values


def through_frontend(bus, method, parameters, token):
    sender = bus.get_unique_name()[1:].replace(".", "_")
    handle = f"{PATH}/request/{sender}/{token}"
    loop = GLib.MainLoop()

    def on_response(_connection, _sender, _path, _interface, _signal, values):
        response, results = values.unpack()
        say(response=response, results=results)
        loop.quit()

    bus.signal_subscribe(None, "org.freedesktop.portal.Request", "Response", handle, None, Gio.DBusSignalFlags.NONE, on_response)
    say(calling=method)
    reply = bus.call_sync(FRONTEND, PATH, "org.freedesktop.portal.FileChooser", method, parameters,
                          GLib.VariantType("(o)"), Gio.DBusCallFlags.NONE, -1, None)
    say(handle=reply.unpack()[0])

    def on_input(channel, _condition):
        line = channel.readline()
        if line.strip() == "close":
            bus.call_sync(FRONTEND, handle, "org.freedesktop.portal.Request", "Close", None, None, Gio.DBusCallFlags.NONE, -1, None)
            say(closed=True)
            loop.quit()
            return False
        return bool(line)

    GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.IO_IN | GLib.IO_HUP, on_input)
    loop.run()


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("open-file", "backend-open-file"):
        command = commands.add_parser(name)
        command.add_argument("--title", default="Open")
        command.add_argument("--multiple", action="store_true")
        command.add_argument("--directory", action="store_true")
        command.add_argument("--filter", action="append")
        command.add_argument("--app-id", default="")
    save = commands.add_parser("save-file")
    save.add_argument("--title", default="Save")
    save.add_argument("--name", default="untitled.txt")
    save.add_argument("--multiple", action="store_true")
    save.add_argument("--filter", action="append")
    commands.add_parser("mock-calls")
    arguments = parser.parse_args()
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    token = "t" + uuid.uuid4().hex[:12]

    if arguments.command == "open-file":
        through_frontend(bus, "OpenFile", GLib.Variant("(ssa{sv})", ("", arguments.title, options(arguments, token))), token)
    elif arguments.command == "save-file":
        through_frontend(bus, "SaveFile", GLib.Variant("(ssa{sv})", ("", arguments.title, options(arguments, token))), token)
    elif arguments.command == "backend-open-file":
        # As the frontend calls a backend: a handle of its own making and the app id it determined.
        handle = f"{PATH}/request/test/{token}"
        parameters = GLib.Variant("(osssa{sv})", (handle, arguments.app_id, "", arguments.title, options(arguments, token)))
        say(calling="OpenFile")
        say(handle=handle)
        reply = bus.call_sync(LIGHTBOX, PATH, "org.freedesktop.impl.portal.FileChooser", "OpenFile", parameters,
                              GLib.VariantType("(ua{sv})"), Gio.DBusCallFlags.NONE, GLib.MAXINT, None)
        response, results = reply.unpack()
        say(response=response, results=results)
    elif arguments.command == "mock-calls":
        reply = bus.call_sync(MOCK, PATH, "org.freedesktop.DBus.Mock", "GetCalls", None, GLib.VariantType("(a(tsav))"),
                              Gio.DBusCallFlags.NONE, -1, None)
        say(calls=[{"method": method, "args": [argument for argument in arguments]}
                   for _, method, arguments in reply.unpack()[0]])


if __name__ == "__main__":
    main()
