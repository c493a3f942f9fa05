import ArgumentParser
import Foundation
import LightboxCommandLineSupport

/// `lightbox bench …`: the benchmarks live in their own executable, lightbox-bench, built beside
/// this one by `make bench` and not installed; this command hands its arguments over to it.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure Lightbox against a baseline in the same run (runs lightbox-bench; `make bench` builds it).")

    @Argument(parsing: .captureForPassthrough, help: "A bench and its options (`lightbox bench --help` lists them).")
    var arguments: [String] = []

    func run() throws {
        Self.handOver(arguments)
    }

    /// Replaces this process with lightbox-bench from beside it, given `arguments`; when it cannot,
    /// says why on standard error and exits with status 1.
    static func handOver(_ arguments: [String]) -> Never {
        let bench = ServiceProcesses.binaryFolder.appendingPathComponent("lightbox-bench").path
        guard FileManager.default.isExecutableFile(atPath: bench) else {
            note("lightbox-bench is not built; run `make bench`")
            Self.exit(withError: ExitCode.failure)
        }
        let argv = ([bench] + arguments).map { strdup($0) } + [nil]
        execv(bench, argv)
        note("cannot run \(bench): \(String(cString: strerror(errno)))")
        Self.exit(withError: ExitCode.failure)
    }
}
