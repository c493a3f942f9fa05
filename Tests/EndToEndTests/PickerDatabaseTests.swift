import Foundation
import TestServers
import Testing

/// `--database postgres://…` on lightbox-picker when the server is not there: a sentence naming it,
/// and the picker stops instead of waiting for ever.
@Suite struct PickerDatabaseTests {
    @Test func aPickerWhoseDatabaseIsDownSaysSoAndStops() async throws {
        let harness = try ServiceHarness(importFolders: [])
        defer { _ = harness.stop() }
        try harness.startAuth()
        // A free port nothing listens on.
        let port = try FreePorts.take(1)[0]
        let picker = try harness.launch("lightbox-picker", [
            "--endpoint", harness.directory.pickerEndpoint, "--auth-endpoint", harness.directory.authEndpoint,
            "--database", "postgres://lightbox@127.0.0.1:\(port)/catalog",
        ])
        for _ in 0..<600 where picker.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        if picker.isRunning { picker.terminate() }
        picker.waitUntilExit()
        let log = harness.log("lightbox-picker")
        #expect(picker.terminationStatus != 0)
        #expect(log.contains("postgres://lightbox@127.0.0.1:\(port)/catalog") && log.contains("Is it running"), "\(log)")
    }
}
