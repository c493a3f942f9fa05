import ArgumentParser
import Foundation
import LightboxClient

extension UserCommand {
    /// A fresh one-time login address for the web surface: the owner, who can write the data
    /// folder, mints the secret there; the surface uses it up on the first visit.
    struct Login: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new one-time login address for the web surface (lightbox-surface).",
            discussion: "Open it in a browser on this machine; it works once. lightbox-surface must be running on the same data directory.")
        @Option(help: "Data directory with the keys. Env: LIGHTBOX_DATA.")
        var data = ProcessInfo.processInfo.environment["LIGHTBOX_DATA"] ?? "var"

        func run() throws {
            let login = SurfaceLogin(dataDirectory: URL(fileURLWithPath: data))
            let listen: String
            do {
                listen = try login.listenAddress()
            } catch {
                throw ValidationError("No lightbox-surface has run on \(data) yet; start it (`lightbox run` does) and try again.")
            }
            print(try login.mintURL(listen: listen))
        }
    }
}
