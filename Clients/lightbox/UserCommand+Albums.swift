import ArgumentParser
import LightboxClient
import LightboxCommandLineSupport
import LightboxProtocol

extension UserCommand {
    /// The library's albums, for `user access APP --read-write limited --albums ID…`.
    struct Albums: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the library's albums with their sizes: a limited selection may follow them (user access --albums).")
        @OptionGroup var services: ServiceOptions

        func run() async throws {
            let albums = try await services.pickerAsOwner().outline().albums
            if albums.isEmpty { note("the library has no albums") }
            for album in albums { print("\(album.identifier)\t\(album.title)\t\(album.assetCount ?? 0) asset(s)") }
        }
    }
}
