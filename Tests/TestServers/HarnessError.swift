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
