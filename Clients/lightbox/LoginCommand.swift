import ArgumentParser
import Foundation
import LightboxClient

extension UserCommand {
    /// A fresh one-time login address for the web surface: the owner, who can write the data
    /// folder, mints the secret there; the surface uses it up on the first visit.
    struct Login: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new one-time login address for the web surface (lightbox-surface).",
            discussion: """
            Open it in a browser on this machine; it works once. lightbox-surface must be running on the same data directory. \
            --open opens it too, as the surface does when an app asks and no page is open.
            """)
        @Option(help: "Data directory with the keys. Env: LIGHTBOX_DATA.")
        var data = ProcessInfo.processInfo.environment["LIGHTBOX_DATA"] ?? "var"
        @Flag(help: "Also open the address on this desktop (with --open-command), without waiting for it.") var open = false
        @Option(help: ArgumentHelp(
            "The program that opens it, and its arguments; the address replaces %u or is added last. Env: LIGHTBOX_SURFACE_OPEN_COMMAND.",
            valueName: "command"))
        var openCommand = ProcessInfo.processInfo.environment[DesktopOpenCommand.environment] ?? DesktopOpenCommand.defaultText

        func run() throws {
            let login = SurfaceLogin(dataDirectory: URL(fileURLWithPath: data))
            let listen: String
            do {
                listen = try login.listenAddress()
            } catch {
                throw ValidationError("No lightbox-surface has run on \(data) yet; start it (`lightbox run` does) and try again.")
            }
            let url = try login.mintURL(listen: listen)
            print(url)
            guard open else { return }
            do {
                guard let command = try DesktopOpenCommand.parse(openCommand) else {
                    throw ValidationError("--open with an open command of none opens nothing; name a program, such as xdg-open.")
                }
                try command.open(url)
            } catch let error as LightboxError {
                throw ValidationError(error.message)
            }
        }
    }
}
