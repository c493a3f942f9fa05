import CLinux
import Foundation
import LightboxProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The app's side of the picker's delivery socket: presents a `provider.open` ticket and takes
/// the read-only descriptor that comes with the `ok` answer. Blocking; call it off Swift's
/// cooperative threads.
public enum DeliverySocketClient {
    /// The longest answer line read (it is a few dozen bytes).
    static let maximumAnswerLength = 4096

    /// The delivered descriptor, now the caller's to close; or why the picker refused.
    public static func receive(_ ticket: FileTicket, timeoutSeconds: Int32 = 5) throws(LightboxError) -> Int32 {
        guard ticket.socket.hasPrefix("/"), ticket.ticket.utf8.count < FileTicket.maximumLineLength,
              !ticket.ticket.contains("\n") else {
            throw LightboxError(.internal, "The picker's file ticket is malformed; use provider.load.")
        }
        let connection = lightbox_unix_connect(ticket.socket, timeoutSeconds)
        guard connection >= 0 else { throw failure("connect to the delivery socket \(ticket.socket)") }
        defer { close(connection) }
        let line = Array((ticket.ticket + "\n").utf8)
        guard line.withUnsafeBytes({ lightbox_send_with_descriptor(connection, $0.baseAddress, $0.count, -1) }) == line.count else {
            throw failure("send the ticket")
        }
        var answer: [UInt8] = []
        var descriptor: Int32 = -1
        var buffer = [UInt8](repeating: 0, count: 512)
        while !answer.contains(UInt8(ascii: "\n")) {
            guard answer.count < maximumAnswerLength else { break }
            var passed: Int32 = -1
            let count = lightbox_receive_with_descriptor(connection, &buffer, buffer.count, &passed)
            if count < 0, errno == EINTR { continue }
            if passed >= 0 {
                if descriptor >= 0 { close(descriptor) }
                descriptor = passed
            }
            guard count > 0 else {
                if descriptor >= 0 { close(descriptor) }
                throw count == 0 ? LightboxError(.internal, "The delivery socket closed without an answer.") : failure("read the answer")
            }
            answer += buffer[..<count]
        }
        let text = answer.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        let decoded = try? JSONDecoder().decode(DeliveryAnswer.self, from: Data(text))
        guard let decoded, decoded.status == .ok, descriptor >= 0 else {
            if descriptor >= 0 { close(descriptor) }
            throw LightboxError(decoded?.code ?? .internal, decoded?.message ?? "The delivery socket answered without a file.")
        }
        return descriptor
    }

    /// Copies everything readable from `source` to `destination`, hashing it; reports the bytes
    /// copied so far after each piece. Returns the bytes and their SHA-256 (hex).
    public static func copy(
        from source: Int32, to destination: Int32, progress: (Int64) -> Void = { _ in }
    ) throws(LightboxError) -> (bytes: Int64, sha256: String) {
        var hasher = SHA256Hasher()
        var total: Int64 = 0
        var failed: LightboxError?
        try readPieces(of: source) { piece in
            var written = 0
            while written < piece.count {
                let count = piece.withUnsafeBytes { write(destination, $0.baseAddress! + written, piece.count - written) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    failed = failure("write the file")
                    return false
                }
                written += count
            }
            hasher.update(piece)
            total += Int64(piece.count)
            progress(total)
            return true
        }
        if let failed { throw failed }
        return (total, hasher.finalize())
    }

    /// Everything readable from `source`, reporting the bytes read so far after each piece.
    public static func readAll(from source: Int32, sizeHint: Int64 = 0, progress: (Int64) -> Void = { _ in }) throws(LightboxError) -> Data {
        var data = Data(capacity: Int(max(0, min(sizeHint, 1 << 31))))
        try readPieces(of: source) { piece in
            data.append(piece)
            progress(Int64(data.count))
            return true
        }
        return data
    }

    /// Reads `source` to its end in 1 MiB pieces from offset 0 (pread: the descriptor's own offset
    /// is left alone); `use` returns false to stop.
    static func readPieces(of source: Int32, _ use: (Data) -> Bool) throws(LightboxError) {
        var buffer = Data(count: 1 << 20)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress, $0.count, offset) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure("read the delivered file") }
            if count == 0 { return }
            offset += off_t(count)
            guard use(buffer.prefix(count)) else { return }
        }
    }

    private static func failure(_ step: String) -> LightboxError {
        LightboxError(.internal, "Could not \(step): \(String(cString: strerror(errno))).")
    }
}
