import ArgumentParser
import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxProtocol

struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library", abstract: "The photo library: the owner's import, and an app's authorization and access.",
        subcommands: [
            Import.self, Offload.self, Restore.self, Status.self, Request.self, Expand.self, Fetch.self, Query.self, Create.self, Albums.self,
            CreateAlbum.self, Watch.self, Changes.self,
        ])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import a folder of photos and videos (JPEG, PNG, HEIC, WebP, GIF, MP4, MOV); re-imports change nothing.")
        @OptionGroup var services: ServiceOptions
        @Argument(help: "The folder, as the picker's machine sees it.") var folder: String

        func run() async throws {
            let path = URL(fileURLWithPath: folder).standardizedFileURL.path
            let bar = ProgressBar("importing")
            let summary = try await services.pickerAsOwner().importLibrary(at: path) { step in
                bar.update(items: step.completed, of: step.total, current: step.file)
            }
            print("imported \(summary.imported.count), unchanged \(summary.unchanged.count), failed \(summary.failed.count)")
            for failure in summary.failed { print("  \(failure.file): \(failure.message)") }
        }
    }

    struct Offload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move an asset's original to the cloud tier (the owner).")
        @OptionGroup var services: ServiceOptions
        @Argument(help: "The asset identifier.") var asset: String

        func run() async throws {
            try await services.pickerAsOwner().offload(asset)
            print("\(asset) is now in the cloud tier")
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Bring an asset's original back from the cloud tier (the owner).")
        @OptionGroup var services: ServiceOptions
        @Argument(help: "The asset identifier.") var asset: String

        func run() async throws {
            try await services.pickerAsOwner().restore(asset)
            print("\(asset) is local again")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "An app's authorization status (without --level: the legacy status).")
        @OptionGroup var services: ServiceOptions
        @Option(help: "The app.") var app: String
        @Option(help: "addOnly or readWrite.") var level: AccessLevel?

        func run() async throws {
            let library = try await services.libraryAsApp(app)
            if let level {
                print(try await library.authorizationStatus(for: level))
            } else {
                print(try await library.authorizationStatus())
            }
        }
    }

    struct Request: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Request authorization: prompts the owner once, only while notDetermined; prints the status.")
        @OptionGroup var services: ServiceOptions
        @Option(help: "The app.") var app: String
        @Option(help: "addOnly or readWrite.") var level: AccessLevel = .readWrite
        @Option(help: "With readWrite, ask also for where the photos were taken: none, approximate or precise (prints the location given).")
        var location: LocationAccess?

        func run() async throws {
            let reply = try await services.libraryAsApp(app).requestAccess(for: level, location: location) { prompt in
                note("waiting for the owner to answer \(prompt) (lightbox user prompts)")
            }
            print(location == nil ? "\(reply.status)" : "\(reply.status)\tlocation: \(reply.location ?? LocationAccess.none)")
        }
    }

    struct Expand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Present the limited-library picker to the owner; prints the identifiers newly added.")
        @OptionGroup var services: ServiceOptions
        @Option(help: "The app.") var app: String

        func run() async throws {
            let added = try await services.libraryAsApp(app).presentLimitedLibraryPicker { prompt in
                note("waiting for the owner to edit the selection (\(prompt))")
            }
            if added.isEmpty { note("nothing added") }
            for identifier in added { print(identifier) }
        }
    }

    struct Fetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch assets by identifier, as an app: only what it may see comes back.")
        @OptionGroup var services: ServiceOptions
        @Option(help: "The app.") var app: String
        @Argument(help: "Asset identifiers.") var identifiers: [String]

        func run() async throws {
            let assets = try await services.libraryAsApp(app).fetchAssets(withLocalIdentifiers: identifiers)
            note("\(assets.count) of \(identifiers.count) visible")
            for asset in assets { print(describe(asset)) }
        }
    }

    struct Query: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Query assets by media type and date, as an app.")
        @OptionGroup var services: ServiceOptions
        @Option(help: "The app.") var app: String
        @Option(help: "image or video.") var mediaType: MediaType?
        @Option(help: "Created on or after (ISO 8601, e.g. 2024-01-01T00:00:00Z).") var from: String?
        @Option(help: "Created before (ISO 8601).") var to: String?
        @Flag(help: "Oldest first (default: newest first).") var oldestFirst = false
        @Option(help: "Skip this many.") var offset = 0
        @Option(help: "At most this many.") var limit = 100

        func run() async throws {
            func date(_ text: String?) throws -> Date? {
                guard let text else { return nil }
                guard let date = ISO8601DateFormatter().date(from: text) else { throw ValidationError("\(text) is not an ISO 8601 date") }
                return date
            }
            let query = AssetQuery(mediaType: mediaType, from: try date(from), to: try date(to), sort: oldestFirst ? .oldestFirst : .newestFirst,
                                   offset: offset, limit: limit)
            let result = try await services.libraryAsApp(app).fetchAssets(query)
            note("\(result.assets.count) shown, \(result.total) match")
            for asset in result.assets { print(describe(asset)) }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a photo or video to the library, as an app (add-only or read-write access).")
        @OptionGroup var services: ServiceOptions
        @Option(help: "The app.") var app: String
        @Argument(help: "The file to add (at most 16 MiB).") var file: String

        func run() async throws {
            let url = URL(fileURLWithPath: file)
            print(try await services.libraryAsApp(app).createAsset(try Data(contentsOf: url), fileName: url.lastPathComponent))
        }
    }

    struct Albums: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List albums, as an app (full read-write access only).")
        @OptionGroup var services: ServiceOptions
        @Option(help: "The app.") var app: String

        func run() async throws {
            for album in try await services.libraryAsApp(app).albums() { print("\(album.identifier)\t\(album.title)") }
        }
    }

    struct CreateAlbum: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create-album", abstract: "Create an album, as an app (full read-write access only).")
        @OptionGroup var services: ServiceOptions
        @Option(help: "The app.") var app: String
        @Argument(help: "The album's title.") var title: String

        func run() async throws {
            let album = try await services.libraryAsApp(app).createAlbum(title: title)
            print("\(album.identifier)\t\(album.title)")
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print changes to an app's access as they happen (Ctrl-C stops).")
        @OptionGroup var services: ServiceOptions
        @Option(help: "The app.") var app: String
        @Option(help: "First replay the changes after this token.") var since: Int64?
        @Option(help: "Stop after this many changes (0 = run until stopped).") var count = 0

        func run() async throws {
            var seen = 0
            for try await change in try await services.libraryAsApp(app).changes(since: since) {
                print(describe(change))
                seen += 1
                if count > 0, seen >= count { return }
            }
        }
    }

    struct Changes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What changed in an app's access after a change token.")
        @OptionGroup var services: ServiceOptions
        @Option(help: "The app.") var app: String
        @Option(help: "The last token seen (0 = from the start).") var since: Int64 = 0

        func run() async throws {
            let result = try await services.libraryAsApp(app).changes(after: since)
            for change in result.changes { print(describe(change)) }
            note("latest token: \(result.token)")
        }
    }
}

func describe(_ asset: AssetSummary) -> String {
    let size = asset.pixelWidth.map { "\($0)x\(asset.pixelHeight ?? 0)" } ?? "-"
    let line = "\(asset.identifier)\t\(asset.fileName)\t\(asset.type)\t\(size)\t\(asset.creationDate.formatted(.iso8601))"
    // A pick's limits leave it out: the owner's listing says why.
    return asset.unavailable.map { line + "\tunavailable: " + $0.reason } ?? line
}

func describe(_ change: AuthorizationChange) -> String {
    "\(change.token)\t\(change.level)\t\(change.status)\tadded: \(change.added.joined(separator: ","))\tremoved: \(change.removed.joined(separator: ","))"
}
