import Foundation
import LightboxCommandLineSupport
import LightboxTransport

/// A bare baseline server (`serve-raw`, `serve-echo`) started as a lightbox-bench process of its
/// own, on an ipc endpoint in the bench's work folder, with a key pair made for it.
struct BaselineServer {
    let process: Process
    let endpoint: String
    /// The server's CURVE public key, for the clients that connect to it.
    let publicKey: String

    /// Starts `lightbox-bench COMMAND --endpoint … --key … ARGUMENTS`; `name` names its key and socket files.
    init(_ command: String, named name: String, in work: URL, arguments: [String] = []) throws {
        let keys = try CurveKeyPair.generate()
        let keyFile = work.appendingPathComponent("\(name).key")
        try JSONEncoder().encode(keys).write(to: keyFile)
        endpoint = "ipc://\(work.path)/\(name).sock"
        publicKey = keys.publicKey
        process = Process()
        process.executableURL = ServiceProcesses.binaryFolder.appendingPathComponent("lightbox-bench")
        process.arguments = [command, "--endpoint", endpoint, "--key", keyFile.path] + arguments
        // Gone with the bench even if it is killed outright (the echo server watches for that).
        process.environment = StarterProcess.environmentForChild()
        try process.run()
    }
}
