import Foundation
import TestServers
import Testing

/// The benches are how the team measures the control plane; these run each for a moment (no timing
/// is judged) so that a bench that hangs, cannot set up, or loses a column shows here, not at the
/// next long measurement. (The deadlock a long `bench ops` once met is provoked reliably only by
/// `PointReadTests`; a moment of load here rarely hits it.)
@Suite(.serialized) struct BenchSmokeTests {
    /// Runs `lightbox` with `arguments` in the repository; its output, then what it wrote to
    /// stderr (so that a failure says why), and its exit status.
    func lightbox(_ arguments: [String]) async throws -> (output: String, status: Int32) {
        let process = Process()
        process.executableURL = ServiceHarness.binaries.appendingPathComponent("lightbox")
        process.arguments = arguments
        process.currentDirectoryURL = ServiceHarness.repository
        let run = try await ServiceHarness.runToEnd(process)
        return (run.errors.isEmpty ? run.output : run.output + "\n--- stderr ---\n" + run.errors, run.status)
    }

    @Test func benchOpsTimesEveryOperationAndTheDecisionRate() async throws {
        let (output, status) = try await lightbox(["bench", "ops", "--rounds", "1", "--requests", "10", "--concurrency", "8", "--window", "4",
                                             "--renders", "2", "--load-seconds", "0.3"])
        #expect(status == 0, "bench ops failed:\n\(output)")
        let rows = output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        // Names as the table prints them, and how many words each takes.
        let names = ["echo": 1, "service.ping": 1, "auth.status": 1, "library.fetchAssets": 1, "library.query": 1, "provider.describe": 1,
                     "image.request": 2, "owner.assets": 2]
        for (name, words) in names {
            for clients in ["1", "8"] {
                let row = rows.first { $0.first.map(String.init) == name && $0.dropFirst(words).first.map(String.init) == clients }
                #expect(row != nil, "no \(name) row for \(clients) clients in:\n\(output)")
            }
        }
        let decisions = output.split(separator: "\n").first { $0.hasPrefix("decisions/s:") }
        #expect(decisions?.contains(" req/s (echo pipelined alike: ") == true, "no decision rate in:\n\(output)")
        #expect(output.contains("service.ping, 1 client, alone: p50 "))
    }

    @Test(.enabled(if: PostgresServer.isInstalled && SeaweedFSServer.isInstalled, "needs PostgreSQL and SeaweedFS; run `make deps`"))
    func benchOpsWithTwoPickersComparesThemWithOne() async throws {
        let (output, status) = try await lightbox(["bench", "ops", "--pickers", "2", "--rounds", "1", "--requests", "10", "--concurrency", "4",
                                                   "--renders", "1", "--load-seconds", "0.3"])
        #expect(status == 0, "bench ops --pickers 2 failed:\n\(output)")
        let lines = output.split(separator: "\n")
        let table = lines.drop { !$0.hasPrefix("one picker vs two") }.dropFirst(2)
        for name in ["service.ping", "auth.status", "library.fetchAssets", "library.query", "provider.describe", "image.request (cached)",
                     "owner.assets (page)"] {
            let row = table.first { $0.hasPrefix(name + " ") }
            // Six numbers after the name: two rates, their ratio, two p50s, their ratio.
            let numbers = row.map { $0.dropFirst(name.count).split(separator: " ").compactMap { Double($0) } }
            #expect(numbers?.count == 6, "no two-picker row for \(name) in:\n\(output)")
        }
        // The baseline table is still there, the echo included.
        #expect(lines.contains { $0.hasPrefix("echo ") }, "no echo row in:\n\(output)")
    }

    @Test func benchLoadLocalComparesDescriptorDeliveryWithCat() async throws {
        let (output, status) = try await lightbox(["bench", "load", "--local", "--size-mb", "4", "--rounds", "1"])
        #expect(status == 0, "bench load --local failed:\n\(output)")
        for line in ["provider.open + descriptor read :", "cat FILE > /dev/null            :", "ratio lightbox/cat              :"] {
            #expect(output.contains(line), "no \"\(line)\" in:\n\(output)")
        }
    }

    @Test func benchScaleImportsAndMeasuresASmallLibrary() async throws {
        // With a throwaway SeaweedFS beside the embedded setup when it is installed: the S3 column and its ratios.
        let store = SeaweedFSServer.isInstalled ? ["--originals", "s3"] : []
        let (output, status) = try await lightbox(["bench", "scale", "--count", "60", "--selection", "30", "--repeats", "1", "--load-mb", "2"] + store)
        #expect(status == 0, "bench scale failed:\n\(output)")
        for line in ["import ", "library.query, first page", "owner.assets, first page", "library.fetchAssets, 100 ids",
                     "library.query, limited app", "2 MiB load (MB/s)", "peak memory, SQLite + folder: picker "]
            + (store.isEmpty ? [] : ["S3 originals", "slower ×", "peak memory, S3 originals: picker "]) {
            #expect(output.contains(line), "no \"\(line)\" in:\n\(output)")
        }
        #expect(output.contains("60 assets"), "the library is not the size asked:\n\(output)")
    }

    @Test func benchBrowseTimesAPickAndSearchesInAGeneratedLibrary() async throws {
        let (output, status) = try await lightbox(["bench", "browse", "--count", "60", "--repeats", "1"])
        #expect(status == 0, "bench browse failed:\n\(output)")
        for line in ["bench browse: 60 assets (place search on)", "pick request → first thumbnail", "search \"Lisbon\" (a place)",
                     "search \"Reykjavik\" (words that name nothing)", "peak memory: picker "] {
            #expect(output.contains(line), "no \"\(line)\" in:\n\(output)")
        }
        // Five of the sixty photos were taken in Lisbon (every twelfth).
        #expect(output.contains("(5 on the first page"), "the place search did not find Lisbon's photos:\n\(output)")
    }

    @Test func benchImportTimesAWatchingPickerAgainstVipsthumbnail() async throws {
        let (output, status) = try await lightbox(["bench", "import", "--count", "3", "--rounds", "1"])
        #expect(status == 0, "bench import failed:\n\(output)")
        for line in ["round 1: lightbox --watch ", "lightbox --watch first scan", "vipsthumbnail ", "ratio (lightbox/vips)"] {
            #expect(output.contains(line), "no \"\(line)\" in:\n\(output)")
        }
    }

    @Test func benchWatchTimesCatchUpsOnRestart() async throws {
        let (output, status) = try await lightbox(["bench", "watch", "--files", "200"])
        #expect(status == 0, "bench watch failed:\n\(output)")
        for line in ["first scan (all imported)", "restart, nothing changed", "restart, 1% changed (2)"] {
            #expect(output.contains(line), "no \"\(line)\" in:\n\(output)")
        }
    }
}
