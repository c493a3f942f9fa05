import ArgumentParser
import LightboxCommandLineSupport

@main
struct LightboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lightbox",
        abstract: "Private photo access on a ZeroMQ bus: pick, load, and the owner's controls.",
        discussion: """
        Start both services with `lightbox run`, then, in a second terminal:
          lightbox app register demo --name "Demo App"
          lightbox user auto --policy deploy/policies/newest.json &
          lightbox pick --app demo --limit 2
          lightbox load <TOKEN> --app demo --out picked.jpg
        Every command finds keys in the data directory (--data, default ./var).
        """,
        subcommands: [
            RunCommand.self, AppCommand.self, PickCommand.self, DescribeCommand.self, LoadCommand.self, ImageCommand.self,
            VideoCommand.self, UserCommand.self, LibraryCommand.self, BenchCommand.self,
        ])

    /// Keys and app files the CLI writes into the data folder are private, whatever the umask.
    /// `bench` goes to lightbox-bench as it is, `--help` and all.
    static func main() async {
        if CommandLine.arguments.dropFirst().first == BenchCommand.configuration.commandName {
            BenchCommand.handOver(Array(CommandLine.arguments.dropFirst(2)))
        }
        await mainWithPrivateFiles()
    }
}
