import ArgumentParser
import LightboxCommandLineSupport

/// `lightbox-bench`, which people run as `lightbox bench …` (the CLI hands its arguments over):
/// Lightbox measured against a baseline in the same run. Built by `make bench`, not installed.
@main
struct LightboxBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        // Help and errors name the command people type.
        commandName: "lightbox bench", abstract: "Measure Lightbox against a baseline in the same run.",
        discussion: "Run from the repository (some benches read Samples/). They start the lightbox-auth and lightbox-picker built beside this binary.",
        subcommands: [BenchLoadCommand.self, BenchImportCommand.self, BenchMediaCommand.self, BenchOpsCommand.self, BenchScaleCommand.self, BenchBrowseCommand.self, BenchWatchCommand.self, BenchS3Command.self,
                      ServeRawCommand.self, ServeEchoCommand.self])

    /// Keys the benches write are private, as with `lightbox`.
    static func main() async {
        await mainWithPrivateFiles()
    }
}
