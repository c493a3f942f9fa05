import Foundation
import LightboxTransport

/// The ZeroMQ Guide's credit-based file transfer ("fileio3") over a bare CURVE ROUTER/DEALER pair,
/// with no Lightbox protocol on top. `lightbox bench load` runs it as the baseline.
///
/// Client → server: `fetch <chunkSize> <credit>`, then `credit <n>` as chunks are consumed.
/// Server → client: one frame per chunk; an empty frame ends the file.
enum BareFileTransfer {
    /// Serves `file` to any number of clients, one fetch at a time each, until the process ends.
    static func serve(endpoint: String, keyPair: CurveKeyPair, file: URL) throws -> Never {
        let socket = try BareSocket.curveRouter(endpoint: endpoint, keyPair: keyPair)
        struct Transfer {
            var file: FileHandle
            var chunkSize: Int
            var credit: Int
        }
        var transfers: [Data: Transfer] = [:]
        while true {
            let hasCredit = transfers.values.contains { $0.credit > 0 }
            _ = try socket.waitForMessage(milliseconds: hasCredit ? 0 : 1000)
            while let frames = try socket.receive(), frames.count >= 2 {
                let peer = frames[0]
                let words = String(decoding: frames[1], as: UTF8.self).split(separator: " ")
                if words.first == "fetch", words.count == 3, let size = Int(words[1]), let credit = Int(words[2]) {
                    transfers[peer] = Transfer(file: try FileHandle(forReadingFrom: file), chunkSize: size, credit: credit)
                } else if words.first == "credit", words.count == 2, let credit = Int(words[1]) {
                    transfers[peer]?.credit += credit
                }
            }
            for (peer, var transfer) in transfers where transfer.credit > 0 {
                var isFinished = false
                while transfer.credit > 0, !isFinished {
                    let chunk = try transfer.file.read(upToCount: transfer.chunkSize) ?? Data()
                    _ = try socket.send([peer, chunk])
                    transfer.credit -= 1
                    isFinished = chunk.isEmpty
                }
                if isFinished { try? transfer.file.close() }
                transfers[peer] = isFinished ? nil : transfer
            }
        }
    }

    /// Fetches the served file into `destination`; returns the byte count and SHA-256.
    static func fetch(endpoint: String, serverKey: String, keyPair: CurveKeyPair, chunkSize: Int, credit: Int,
                             to destination: URL, progress: (Int64) -> Void = { _ in }) throws -> (bytes: Int64, sha256: String) {
        let socket = try BareSocket.curveDealer(endpoint: endpoint, serverKey: serverKey, keyPair: keyPair)
        guard FileManager.default.createFile(atPath: destination.path, contents: nil) else {
            throw TransportError(.socket, "cannot create \(destination.path)")
        }
        let output = try FileHandle(forWritingTo: destination)
        defer { try? output.close() }
        _ = try socket.send([Data("fetch \(chunkSize) \(credit)".utf8)])
        var hasher = SHA256Hasher()
        var total: Int64 = 0
        var consumed = 0
        while true {
            guard try socket.waitForMessage(milliseconds: 30_000) else { throw TransportError(.socket, "the bare file server did not answer in 30 s") }
            while let frames = try socket.receive() {
                guard let chunk = frames.first, !chunk.isEmpty else { return (total, hasher.finalize()) }
                try output.write(contentsOf: chunk)
                hasher.update(chunk)
                total += Int64(chunk.count)
                progress(total)
                consumed += 1
                if consumed * 2 >= credit {
                    _ = try socket.send([Data("credit \(consumed)".utf8)])
                    consumed = 0
                }
            }
        }
    }
}
