import Foundation
import LightboxClient
import LightboxTransport
import Logging
import ServiceLifecycle

/// lightbox-portal: an xdg-desktop-portal FileChooser backend. It owns
/// `org.freedesktop.impl.portal.desktop.lightbox` on the session bus; a desktop that chooses it
/// (`UseIn=` or portals.conf) sends it every app's file chooser. A request for photos or videos
/// becomes a pick on the owner's sheet, filed with lightbox-picker under the portal's own key for
/// the app the frontend names, and delivered as files; everything else goes to the desktop's own
/// backend (`fallback`).
public struct PortalService: Service {
    public struct Configuration: Sendable {
        public var directory: ServiceDirectory
        /// The desktop's own backend's name (`gtk`, `gnome`, `kde`…).
        public var fallback: String?
        /// How long delivered files are kept.
        public var retention: Duration = .seconds(24 * 3600)
        /// Where picks are delivered (default DATA/portal/delivered).
        public var deliveries: URL?
        /// The environment that says where desktop files are and the person's language.
        public var environment = ProcessInfo.processInfo.environment
        /// Called once the bus name is owned (systemd's READY=1).
        public var onServing: @Sendable () -> Void = {}

        public init(directory: ServiceDirectory) {
            self.directory = directory
        }

        public static let busName = PortalInterfaces.busName(ofBackend: "lightbox")

        /// A retention period as `--retention` takes it: `90`, `90s`, `15m`, `24h`, `7d`; nil for
        /// anything else.
        public static func duration(_ text: String) -> Duration? {
            let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
            var number = Substring(text)
            var unit: Int64 = 1
            if let last = text.last, let scale = units[last] {
                unit = scale
                number = number.dropLast()
            }
            guard let value = Int64(number), value > 0, value <= Int64.max / unit else { return nil }
            return .seconds(value * unit)
        }

        var deliveryFolder: URL {
            deliveries ?? directory.dataDirectory.appendingPathComponent("portal/delivered", isDirectory: true)
        }
    }

    let configuration: Configuration
    let logger: Logger

    public init(_ configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Serves until the service group shuts down gracefully: then the bus name is released, and
    /// requests still waiting for the owner are withdrawn and answered 2.
    public func run() async throws {
        let keyPair = try configuration.directory.keys.loadOrCreateKeyPair(KeyDirectory.portalService)
        let deliveries = DeliveryFolder(root: configuration.deliveryFolder)
        try deliveries.prepare()
        let interfaces = try DBusInterfaces(xml: PortalInterfaces.xml)
        let loop = GLibLoop(name: "lightbox-portal-bus")
        defer { loop.stop() }
        // The calls the bus brings; they end when the bus goes away (or at shutdown, below).
        let (events, queue) = AsyncStream<PortalBackend.Event>.makeStream()
        let logger = self.logger
        let bus = try await SessionBus.connect(on: loop) {
            logger.notice("the session bus has gone; lightbox-portal stops")
            queue.finish()
        }
        let links = ServiceLinks(directory: configuration.directory, keyPair: keyPair, logger: logger)
        let backend = PortalBackend(
            .init(fallback: configuration.fallback, deliveries: deliveries, names: DesktopEntryNames(environment: configuration.environment),
                  retention: configuration.retention),
            bus: bus, interfaces: interfaces, links: links, events: (events, queue), logger: logger)

        // GDBus runs an object's handlers in the main context of the thread that exported it.
        let exported = await loop.run { () -> Result<DBusRegistration, DBusError> in
            guard let fileChooser = interfaces.interface(PortalInterfaces.fileChooser) else {
                return .failure(DBusError(DBusError.failed, "lightbox-portal has no description of \(PortalInterfaces.fileChooser)."))
            }
            do throws(DBusError) {
                return .success(try bus.export(fileChooser, at: PortalInterfaces.objectPath) { call in backend.receive(fileChooser: call) })
            } catch {
                return .failure(error)
            }
        }
        let registration = try exported.get()
        do {
            try bus.own(Configuration.busName)
        } catch {
            throw PortalError(.bus, "Cannot own \(Configuration.busName) on the session bus; is another lightbox-portal running?", cause: error)
        }
        logger.info("lightbox-portal serving", metadata: [
            "name": "\(Configuration.busName)", "bus": "\(bus.uniqueName)", "fallback": "\(configuration.fallback ?? "none")",
            "deliveries": "\(deliveries.root.path)"])
        configuration.onServing()

        await withDiscardingTaskGroup { group in
            group.addTask {
                try? await gracefulShutdown()
                // New requests go elsewhere (or start a new portal); those queued are still answered.
                bus.release(Configuration.busName)
                bus.unexport(registration)
                backend.finishEvents()
            }
            group.addTask { await backend.followRevocations() }
            group.addTask { await backend.sweepDeliveries() }
            for await event in backend.events {
                group.addTask { await backend.handle(event) }
            }
            // Picks still waiting are withdrawn and answered 2; the loops stop.
            group.cancelAll()
        }
        await links.close()
        logger.info("lightbox-portal stopped")
    }
}

