import Foundation
import HTTPTypes
import Hummingbird
import LightboxClient
import LightboxTransport
import Logging
import ServiceLifecycle

/// lightbox-surface: the owner's trusted surface, a web app on loopback. It holds the owner key and
/// talks to both services like any other owner client — it decodes no media and stores no
/// permissions — and serves the pick sheet, the authorization alerts, the privacy center, the
/// activity report and the library to the owner's browser.
public struct Surface: Service {
    public struct Configuration: Sendable {
        public var directory: ServiceDirectory
        public var host = "127.0.0.1"
        public var port = 7710
        /// Called once the web server listens (systemd's READY=1).
        public var onServing: @Sendable () -> Void = {}
        /// What shows the sheet when an app asks and no page is open; nil: nothing does.
        public var openCommand: DesktopOpenCommand?

        public init(directory: ServiceDirectory) {
            self.directory = directory
        }

        public var listen: String { "\(host):\(port)" }
    }

    let configuration: Configuration
    let logger: Logger

    public init(_ configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Serves until the service group shuts down gracefully (SIGTERM or SIGINT in the executable).
    public func run() async throws {
        let directory = configuration.directory
        try PrivateDataFolder.secure(directory.dataDirectory)
        // The auth service writes the owner's key on its first start.
        _ = try await directory.keys.publicKey(KeyDirectory.owner, waitingUpTo: .seconds(30))
        let ownerKey = try directory.ownerKeyPair()
        // With several pickers, the owner's pages go on at the next when one stops answering.
        let owner = OwnerSurface(picker: try await directory.connectToPickers(as: ownerKey, timeout: .seconds(30), logger: logger))
        let settings = OwnerSettings(auth: try await directory.connectToAuth(as: ownerKey, timeout: .seconds(30), logger: logger))
        var openSheet: (@Sendable () -> Void)?
        if let command = configuration.openCommand {
            openSheet = { [self] in self.openSheet(with: command) }
        }
        let feed = OwnerFeed(logger: logger, openSheet: openSheet)
        // A child task of the serving, cancelled and awaited when run() returns.
        async let _ = feed.follow(owner: owner, settings: settings)

        let routes = SurfaceRoutes(owner: owner, settings: settings, feed: feed, sessions: SessionStore(),
                                   login: SurfaceLogin(dataDirectory: directory.dataDirectory), logger: logger)
        let router = Router(context: SurfaceContext.self)
        router.add(middleware: SurfaceGuard(port: configuration.port, sessions: routes.sessions))
        routes.register(on: router)
        let application = Application(
            router: router, configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { _ in
                try? await announce()
                configuration.onServing()
            }, logger: logger)
        try await application.run()
    }

    /// Writes where the surface listens and a fresh one-time login address, and prints it.
    func announce() async throws {
        let login = SurfaceLogin(dataDirectory: configuration.directory.dataDirectory)
        try FileManager.default.createDirectory(at: login.folder, withIntermediateDirectories: true)
        try Data(configuration.listen.utf8).write(to: login.listenFile, options: .atomic)
        let url = try login.mintURL(listen: configuration.listen)
        try Data((url + "\n").utf8).write(to: login.loginURLFile, options: .atomic)
        logger.info("lightbox-surface serving", metadata: ["listen": "\(configuration.listen)"])
        FileHandle.standardOutput.write(Data("lightbox-surface: open \(url) to log in (once; `lightbox user login` makes a new address)\n".utf8))
    }

    /// A fresh one-time login address, opened with `command`; the page it lands on is the sheet.
    func openSheet(with command: DesktopOpenCommand) {
        do {
            let url = try SurfaceLogin(dataDirectory: configuration.directory.dataDirectory).mintURL(listen: configuration.listen)
            try command.open(url)
            logger.info("something waits for the owner and no page is open: asked the desktop to show the sheet",
                        metadata: ["command": "\(command.words[0])"])
        } catch {
            logger.warning("could not ask the desktop to show the sheet", metadata: ["error": "\(error)"])
        }
    }

    static func json<T: Encodable>(_ value: T) -> String {
        (try? WireCoding.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}
