import ArgumentParser
import Foundation
import LightboxClient
import LightboxServiceRuntime
import LightboxTransport
import Logging
import Portal
import ServiceLifecycle

/// `lightbox-portal`: the xdg-desktop-portal FileChooser backend.
@main
struct PortalServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lightbox-portal",
        abstract: "Lightbox's file chooser backend for xdg-desktop-portal: an app's \"Open image…\" becomes a pick on the owner's sheet.",
        discussion: """
        Owns org.freedesktop.impl.portal.desktop.lightbox on the session bus (DBUS_SESSION_BUS_ADDRESS) and implements \
        org.freedesktop.impl.portal.FileChooser. An OpenFile whose filters admit only photos and videos is filed with \
        lightbox-picker as a pick for the app, under this backend's own key (DATA/keys/portal.key); what the owner adds \
        is written into a private folder per app and pick, and the app gets file:// URIs. Everything else (documents, \
        folders, SaveFile, SaveFiles) goes unchanged to the --fallback backend, and its answer comes back as it came. \
        Delivered files are removed when the owner revokes the app, and after --retention.
        """)

    @Option(help: "Data directory with the keys (the same as the services'). Env: LIGHTBOX_DATA.")
    var data = ProcessInfo.processInfo.environment["LIGHTBOX_DATA"] ?? "var"

    @Option(help: "lightbox-auth's endpoint. Env: LIGHTBOX_AUTH_ENDPOINT.")
    var authEndpoint = ProcessInfo.processInfo.environment["LIGHTBOX_AUTH_ENDPOINT"] ?? ServiceDirectory.defaultAuthEndpoint

    @Option(help: "lightbox-picker's endpoint. Env: LIGHTBOX_PICKER_ENDPOINT.")
    var pickerEndpoint = ProcessInfo.processInfo.environment["LIGHTBOX_PICKER_ENDPOINT"] ?? ServiceDirectory.defaultPickerEndpoint

    @Option(help: "The desktop's own file chooser backend, for everything that is not photos: gtk, gnome, kde… (org.freedesktop.impl.portal.desktop.NAME). Without it such requests are answered as failed.")
    var fallback: String?

    @Option(help: "How long delivered files are kept: seconds, or a number with s, m, h or d (24h).")
    var retention = "24h"

    @Option(help: "Where picks are delivered (default DATA/portal/delivered).")
    var deliveries: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func validate() throws {
        guard PortalService.Configuration.duration(retention) != nil else {
            throw ValidationError("--retention takes seconds or a number with s, m, h or d, such as 24h or 90m; it was \"\(retention)\".")
        }
        if let fallback {
            guard !fallback.isEmpty, fallback != "lightbox",
                  fallback.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
                throw ValidationError("--fallback takes a backend's name such as gtk, gnome or kde (letters, digits, _ and -; not lightbox).")
            }
        }
    }

    func run() async throws {
        PrivateDataFolder.restrictNewFiles()
        ServiceLogging.bootstrap(level: Logger.Level(name: logLevel) ?? .info)
        let logger = Logger(label: "lightbox.portal")
        var configuration = PortalService.Configuration(directory: ServiceDirectory(
            dataDirectory: URL(fileURLWithPath: data), authEndpoint: authEndpoint, pickerEndpoint: pickerEndpoint))
        configuration.fallback = fallback
        configuration.retention = PortalService.Configuration.duration(retention) ?? .seconds(86_400)
        configuration.deliveries = deliveries.map { URL(fileURLWithPath: $0) }
        configuration.onServing = { SystemdNotification.ready(status: "serving \(PortalService.Configuration.busName)") }
        // When the session bus goes away the portal's work is over: it returns, and the process ends with 0.
        try await ServiceRunner.run([PortalService(configuration, logger: logger)], returningEndsGracefully: true, logger: logger)
    }
}
