import ArgumentParser
import Foundation
import LightboxTransport

/// `serve-echo`: the baseline server `bench ops` starts as a process of its own.
struct ServeEchoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-echo", abstract: "The baseline server of `bench ops` (a bare CURVE ROUTER echo).", shouldDisplay: false)
    @Option var endpoint: String
    @Option var key: String

    func run() async throws {
        try BareEcho.serve(endpoint: endpoint, keyPair: try CurveKeyPair.load(from: URL(fileURLWithPath: key)))
    }
}
