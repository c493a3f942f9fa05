import CZeroMQ
import Foundation

/// A failure of the ZeroMQ layer itself (not a wire error from a service).
public struct TransportError: Error, CustomStringConvertible, Sendable {
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let socket = Code(rawValue: "socket")
        public static let keyFile = Code(rawValue: "keyFile")
        public static let closed = Code(rawValue: "closed")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The last libzmq error, described for a person.
    static func zmq(_ call: String, context: String = "") -> TransportError {
        let text = String(cString: zmq_strerror(zmq_errno()))
        return TransportError(.socket, "\(call) failed\(context.isEmpty ? "" : " (\(context))"): \(text)")
    }

    public var description: String { message }
}
