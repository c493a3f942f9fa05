/// The D-Bus names of xdg-desktop-portal's backend interfaces that lightbox-portal implements, and
/// their introspection data (as in xdg-desktop-portal 1.16's
/// org.freedesktop.impl.portal.FileChooser.xml and org.freedesktop.impl.portal.Request.xml).
enum PortalInterfaces {
    static let fileChooser = "org.freedesktop.impl.portal.FileChooser"
    static let request = "org.freedesktop.impl.portal.Request"
    /// Where the frontend calls every backend's portal interfaces.
    static let objectPath = "/org/freedesktop/portal/desktop"
    /// The bus name of the backend for desktop `name` (`lightbox`, `gnome`, `gtk`, `kde`…).
    static func busName(ofBackend name: String) -> String { "org.freedesktop.impl.portal.desktop.\(name)" }

    /// The three FileChooser methods take and return the same arguments.
    static let fileChooserMethods = ["OpenFile", "SaveFile", "SaveFiles"]

    static let xml = """
        <node>
          <interface name="\(fileChooser)">
        \(fileChooserMethods.map(fileChooserMethod).joined())
          </interface>
          <interface name="\(request)">
            <method name="Close"/>
          </interface>
        </node>
        """

    static func fileChooserMethod(_ name: String) -> String {
        """
            <method name="\(name)">
              <arg type="o" name="handle" direction="in"/>
              <arg type="s" name="app_id" direction="in"/>
              <arg type="s" name="parent_window" direction="in"/>
              <arg type="s" name="title" direction="in"/>
              <arg type="a{sv}" name="options" direction="in"/>
              <arg type="u" name="response" direction="out"/>
              <arg type="a{sv}" name="results" direction="out"/>
            </method>

        """
    }
}
