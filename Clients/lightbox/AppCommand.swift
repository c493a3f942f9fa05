import ArgumentParser
import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport

struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app", abstract: "Register apps and list them (as the owner).",
        subcommands: [Register.self, List.self])

    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an app's key pair (DATA/apps/ID.key) and register its manifest with lightbox-auth.")

        @OptionGroup var services: ServiceOptions
        @Argument(help: "The app's id: letters, digits, dots, dashes, underscores.") var id: String
        @Option(help: "The name the owner sees in prompts and pick sheets.") var name: String
        @Option(help: "Why the app wants read-write library access (shown in the prompt).") var usageReadWrite: String?
        @Option(help: "Why the app wants to add to the library (shown in the prompt).") var usageAddOnly: String?
        @Flag(help: "Never raise the limited-library prompt automatically for this app.")
        var preventAutomaticLimitedAccessAlert = false

        func validate() throws {
            guard AppManifest.isValidID(id) else {
                throw ValidationError("\"\(id)\" is not a valid app id: use up to 64 letters, digits, dots, dashes or underscores.")
            }
        }

        func run() async throws {
            let keyURL = services.directory.keys.appKeyURL(id)
            let keyPair = try CurveKeyPair.loadOrCreate(at: keyURL)
            let manifest = AppManifest(id: id, name: name, publicKey: keyPair.publicKey, usageReadWrite: usageReadWrite,
                                       usageAddOnly: usageAddOnly, preventAutomaticLimitedAccessAlert: preventAutomaticLimitedAccessAlert)
            try await services.authAsOwner().register(manifest)
            print("registered \(id) (\(name)); its key is \(keyURL.path)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registered apps.")
        @OptionGroup var services: ServiceOptions

        func run() async throws {
            for app in try await services.authAsOwner().apps() {
                print("\(app.id)\t\(app.name)\t\(app.publicKey)")
            }
        }
    }
}
