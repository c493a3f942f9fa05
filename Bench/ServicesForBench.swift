import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxTransport

extension ServiceProcesses {
    /// Both services for a bench, on ipc endpoints in `work` with their data in `work/data`, stopped
    /// with this process on Ctrl-C; returns once the owner's and the picker's keys are there (a
    /// connection waits only 5 s for a service's key, and a loaded machine can take longer to start
    /// a picker).
    static func forBench(in work: URL, importFolders: [String] = []) async throws -> (ServiceDirectory, ServiceProcesses) {
        let directory = ServiceDirectory(dataDirectory: work.appendingPathComponent("data"), authEndpoint: "ipc://\(work.path)/auth.sock",
                                         pickerEndpoint: "ipc://\(work.path)/picker.sock")
        let processes = try ServiceProcesses(data: directory.dataDirectory.path, authEndpoint: directory.authEndpoint,
                                             pickerEndpoint: directory.pickerEndpoint, importFolders: importFolders, logLevel: "warning")
        processes.stopOnInterrupt()
        _ = try await directory.keys.publicKey(KeyDirectory.owner, waitingUpTo: .seconds(30))
        _ = try await directory.keys.publicKey(KeyDirectory.pickerService, waitingUpTo: .seconds(60))
        return (directory, processes)
    }
}
