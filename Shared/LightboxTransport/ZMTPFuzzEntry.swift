import Foundation
import NIOCore

/// What the `zmtp` fuzz target (Fuzz/LightboxFuzz) drives: a client's byte stream as the server
/// reads it before and during the CURVE handshake — greeting, frames, HELLO, INITIATE and metadata.
/// Every input must end in a value or a thrown error, never a crash or a hang.
public enum ZMTPFuzzEntry {
    private static let serverKey = try! CurveServerKey(CurveKeyPair.generate())

    public static func read(_ bytes: Data) {
        var buffer = ByteBuffer(bytes: bytes)
        guard let greeting = buffer.readSlice(length: min(ZMTPFrameReader.greetingSize, buffer.readableBytes)) else { return }
        if greeting.readableBytes == ZMTPFrameReader.greetingSize {
            _ = try? ZMTPFrameReader.checkGreeting(greeting.readableBytesView)
        }
        _ = CurveServerHandshake.properties(ArraySlice(bytes.dropFirst(min(bytes.count, ZMTPFrameReader.greetingSize))))
        var handshake = CurveServerHandshake(key: serverKey)
        var commands = 0
        while let frame = try? ZMTPFrameReader.nextFrame(from: &buffer, maximumSize: 1 << 16) {
            let body = Array(frame.body.readableBytesView)
            switch commands {
            case 0: _ = try? handshake.welcome(answering: body)
            case 1: _ = try? handshake.client(from: body)
            default: _ = try? frame.body.withUnsafeReadableBytes { try handshake.open($0) }
            }
            commands += 1
        }
    }
}
