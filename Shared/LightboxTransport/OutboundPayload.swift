import Foundation
import NIOCore

/// One frame's payload on its way out: a reply's JSON header or attachment (`Data`), or a chunk of a
/// file just read (`ByteBuffer`), sealed into the CURVE box straight from where it lies.
enum OutboundPayload: Sendable {
    case data(Data)
    case buffer(ByteBuffer)

    var count: Int {
        switch self {
        case .data(let data): data.count
        case .buffer(let buffer): buffer.readableBytes
        }
    }

    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch self {
        case .data(let data): try data.withUnsafeBytes(body)
        case .buffer(let buffer): try buffer.withUnsafeReadableBytes(body)
        }
    }
}

/// What leaves a connection after its handshake: a message (its frames) or a ZMTP command (PING, PONG).
enum OutboundItem: Sendable {
    case message([OutboundPayload])
    case command([UInt8])

    /// Bytes counted against the connection's bounds.
    var size: Int {
        switch self {
        case .message(let frames): frames.reduce(0) { $0 + $1.count + CurveRouterConnection.frameOverhead }
        case .command(let bytes): bytes.count + CurveRouterConnection.frameOverhead
        }
    }
}
