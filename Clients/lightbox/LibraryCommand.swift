import ArgumentParser
import Foundation
import LightboxClient

struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library", abstract: "The owner's library.", subcommands: [Import.self])

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
}
