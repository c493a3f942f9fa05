import ArgumentParser
import Foundation
import LightboxTransport

/// `serve-raw`: the baseline server `bench load` starts as a process of its own.
struct ServeRawCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-raw", abstract: "The baseline server of `bench load` (a bare CURVE ROUTER).", shouldDisplay: false)
    @Option var endpoint: String
    @Option var key: String
    @Option var file: String

    func run() async throws {
        let keyPair = try CurveKeyPair.load(from: URL(fileURLWithPath: key))
        try BareFileTransfer.serve(endpoint: endpoint, keyPair: keyPair, file: URL(fileURLWithPath: file))
    }
}
