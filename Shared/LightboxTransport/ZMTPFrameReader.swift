import NIOCore

/// Reads ZMTP 3 from a byte stream: the 64-byte greeting, then frames (flags, 1- or 8-byte size,
/// body). A frame's size is checked from its header, before any of its body is kept.
struct ZMTPFrameReader {
    struct Frame {
        var isMore: Bool
        var isCommand: Bool
        var body: ByteBuffer
    }

    struct Violation: Error, CustomStringConvertible {
        var description: String
    }

    static let greetingSize = 64

    /// Our greeting: ZMTP 3.1, the CURVE mechanism, as the server.
    static var serverGreeting: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: greetingSize)
        bytes[0] = 0xFF
        bytes[9] = 0x7F
        bytes[10] = 3
        bytes[11] = 1
        for (index, byte) in "CURVE".utf8.enumerated() { bytes[12 + index] = byte }
        bytes[32] = 1
        return bytes
    }

    /// Checks a client's greeting: ZMTP 3.x asking for CURVE. (Bytes 1…8 carry a legacy length.)
    static func checkGreeting(_ bytes: ByteBufferView) throws {
        let greeting = Array(bytes)
        guard greeting[0] == 0xFF, greeting[9] & 0x01 == 0x01 else { throw Violation(description: "not a ZMTP peer") }
        guard greeting[10] >= 3 else { throw Violation(description: "ZMTP \(greeting[10]).\(greeting[11]) is too old; 3.0 or later is needed") }
        let mechanism = String(decoding: greeting[12..<32].prefix { $0 != 0 }, as: UTF8.self)
        guard mechanism == "CURVE" else { throw Violation(description: "the \(mechanism) mechanism is refused; CURVE is required") }
    }

    /// The size of the next frame's body and of the whole frame with its header, once its header
    /// has arrived; nil while more bytes are needed. Throws when the header announces more than
    /// `maximumSize` bytes or flags ZMTP does not define.
    static func announcedSize(in buffer: ByteBuffer, maximumSize: Int) throws -> (body: Int, total: Int)? {
        guard let flags = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return nil }
        guard flags & 0xF8 == 0 else { throw Violation(description: "a frame has unknown flags \(flags)") }
        let isLong = flags & 0x02 != 0
        let headerSize = isLong ? 9 : 2
        guard buffer.readableBytes >= headerSize else { return nil }
        let size: UInt64 = isLong
            ? buffer.getInteger(at: buffer.readerIndex + 1, as: UInt64.self)!
            : UInt64(buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self)!)
        guard size <= UInt64(maximumSize) else {
            throw Violation(description: "a frame of \(size) bytes is over the \(maximumSize)-byte limit")
        }
        return (Int(size), headerSize + Int(size))
    }

    /// The next frame when all of it has arrived; nil while more bytes are needed. Throws as
    /// `announcedSize` does.
    static func nextFrame(from buffer: inout ByteBuffer, maximumSize: Int) throws -> Frame? {
        guard let size = try announcedSize(in: buffer, maximumSize: maximumSize), buffer.readableBytes >= size.total else { return nil }
        let flags = buffer.readInteger(as: UInt8.self)!
        buffer.moveReaderIndex(forwardBy: size.total - size.body - 1)
        let body = buffer.readSlice(length: size.body)!
        return Frame(isMore: flags & 0x01 != 0, isCommand: flags & 0x04 != 0, body: body)
    }

    /// Writes a frame header for a body of `size` bytes.
    static func writeHeader(size: Int, isCommand: Bool, isMore: Bool = false, into buffer: inout ByteBuffer) {
        let command: UInt8 = (isCommand ? 0x04 : 0) | (isMore ? 0x01 : 0)
        if size > 255 {
            buffer.writeInteger(command | 0x02)
            buffer.writeInteger(UInt64(size))
        } else {
            buffer.writeInteger(command)
            buffer.writeInteger(UInt8(size))
        }
    }

    static func frame(command bytes: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        writeHeader(size: bytes.count, isCommand: true, into: &buffer)
        buffer.writeBytes(bytes)
        return buffer
    }
}
