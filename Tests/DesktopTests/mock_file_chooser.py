"""python-dbusmock template: the desktop's own FileChooser backend, standing in for gtk, gnome or kde.

Run by the tests as `python3 -m dbusmock --template mock_file_chooser.py` (Debian's python3-dbusmock,
under the system Python). It answers every method with a fixed file and records the calls, which
the tests read with the mock's GetCalls to see that requests reached it unchanged.
"""

BUS_NAME = "org.freedesktop.impl.portal.desktop.mock"
MAIN_OBJ = "/org/freedesktop/portal/desktop"
MAIN_IFACE = "org.freedesktop.impl.portal.FileChooser"
SYSTEM_BUS = False

# What each method answers, as the desktop's chooser would after a person chose a file.
ANSWERS = {
    "OpenFile": "file:///mock/chosen.txt",
    "SaveFile": "file:///mock/saved.txt",
    "SaveFiles": "file:///mock/folder/",
}


def load(mock, parameters):
    for method, uri in ANSWERS.items():
        mock.AddMethod(MAIN_IFACE, method, "osssa{sv}", "ua{sv}",
                       f'ret = (dbus.UInt32(0), dbus.Dictionary({{"uris": dbus.Array(["{uri}"], signature="s")}}, signature="sv"))')
