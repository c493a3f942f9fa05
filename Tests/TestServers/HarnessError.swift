/// Why a test server could not be started or reached.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// A server that could not bind a port another process took between our choosing it and its start.
    var isPortTaken: Bool {
        let text = description.lowercased()
        return text.contains("is not available") || text.contains("address already in use")
    }
}

extension HarnessError {
    /// Runs `start` again (up to four times in all) while it fails because another process took the
    /// port it chose first: a free port is free only until taken.
    static func retryingTakenPorts<Server>(_ start: () async throws -> Server) async throws -> Server {
        for _ in 1..<4 {
            do {
                return try await start()
            } catch let error as HarnessError where error.isPortTaken {
                continue
            }
        }
        return try await start()
    }
}
