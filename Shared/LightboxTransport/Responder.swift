import Foundation
import Logging
import LightboxProtocol
import NIOCore
import NIOFileSystem

/// How a stream ended, for the service that started it (audit, clean-up).
public enum StreamOutcome: Sendable, Equatable {
    case completed(bytes: Int64)
    case cancelled
    case failed(String)
    /// The client went away or stopped granting credit.
    case abandoned
}

/// Answers one request. Any number of `progress`/`event` replies, then exactly one final reply
/// (`succeed`, `fail`, or the end of a `stream`). Every reply goes to the connection the request
/// came on, into its one way out (`CurveRouterConnection.enqueue`), so one request's replies never
/// overtake each other.
public struct Responder: Sendable {
    let connection: PeerConnection
    let streams: ActiveStreamCount
    public let requestID: String
    let logger: Logger

    /// False once the connection this request came on is gone (the client went away, its heartbeats
    /// stopped, or it was dropped for not reading). Long-lived requests (watches) check it.
    public var isConnected: Bool { !connection.isClosed }

    public func succeed<Body: Codable & Sendable>(_ body: Body) {
        send(.ok, body)
    }

    public func fail(_ error: LightboxError) {
        send(.error, error)
    }

    public func progress<Body: Codable & Sendable>(_ body: Body) {
        send(.progress, body)
    }

    public func event<Body: Codable & Sendable>(_ body: Body) {
        send(.event, body)
    }

    public func send<Body: Codable & Sendable>(_ status: ReplyStatus, _ body: Body, attachments: [Data] = []) {
        guard let header = header(status, body) else { return }
        connection.send([.data(header)] + attachments.map { .data($0) })
    }

    /// The reply's JSON header frame. One that cannot be encoded is never silenced (the client would
    /// wait for its timeout): the client gets `internal`, and the cause is logged.
    private func header<Body: Codable & Sendable>(_ status: ReplyStatus, _ body: Body) -> Data? {
        do {
            return try WireCoding.encode(ReplyEnvelope(id: requestID, status: status, body: body))
        } catch {
            logger.error("a reply could not be encoded", metadata: ["id": "\(requestID)", "status": "\(status)", "cause": "\(error)"])
            let failure = LightboxError(.internal, "The service could not encode its answer to this request; the reason is in the service's log.")
            return try? WireCoding.encode(ReplyEnvelope(id: requestID, status: .error, body: failure))
        }
    }

    /// Streams the file at `file` (see `stream(_:credit:chunkSize:type:suggestedName:digest:)`).
    /// Throws only when the file cannot be opened, before anything was sent.
    public func stream(file: URL, credit: Int, chunkSize: Int, type: UTType?, suggestedName: String?,
                       digest: String? = nil) async throws -> StreamOutcome {
        let handle = try await FileSystem.shared.openFile(forReadingAt: FilePath(file.path), options: .init())
        let outcome: StreamOutcome
        do {
            let size = try await handle.info().size
            outcome = await stream(FileChunkSource(handle: handle, totalBytes: size), credit: credit, chunkSize: chunkSize,
                                   type: type, suggestedName: suggestedName, digest: digest)
        } catch {
            try? await handle.close()
            throw error
        }
        try? await handle.close()
        return outcome
    }

    /// Sends `source` as `chunk` replies under the client's credit and ends with an `ok` carrying a
    /// `StreamCompletion`; returns when it is done. A chunk goes out only when the client has granted
    /// credit for it and the connection has room; the next chunk is read while one is being sent.
    /// The completion's SHA-256 is `digest` when the caller knows what the bytes must hash to (an
    /// original, hashed when it was imported: a copy damaged since then fails the client's check),
    /// else computed from the bytes as they are sent.
    public func stream(_ source: some ChunkSource, credit: Int, chunkSize: Int, type: UTType?, suggestedName: String?,
                       digest: String? = nil) async -> StreamOutcome {
        let id = requestID
        let started: Result<Void, StreamInterruption> = await onLoop { handler in
            Result { () throws(StreamInterruption) in try handler.startStream(id, credit: max(1, credit)) }
        }
        if case .failure(let interruption) = started {
            if interruption == .duplicateID {
                fail(LightboxError(.badRequest, "A stream with request id \(id) is already running; use a new id for each request."))
                return .failed("duplicate request id")
            }
            return .abandoned
        }
        streams.add(1)
        defer { streams.add(-1) }
        let outcome = await send(source, chunkSize: chunkSize, type: type, suggestedName: suggestedName, digest: digest)
        connection.onLoop { $0.endStream(id) }
        return outcome
    }

    private func send(_ source: some ChunkSource, chunkSize: Int, type: UTType?, suggestedName: String?, digest: String?) async -> StreamOutcome {
        func size(from offset: Int64) -> Int { Int(max(0, min(Int64(chunkSize), source.totalBytes - offset))) }
        var completed: Int64 = 0
        do {
            let hashing: SHA256Hasher? = digest == nil ? SHA256Hasher() : nil
            var (chunk, hasher) = try await Self.read(source, at: 0, upTo: size(from: 0), hashingAfter: hashing)
            while chunk.readableBytes > 0 {
                let end = completed + Int64(chunk.readableBytes)
                let hashedSoFar = hasher
                async let following = Self.read(source, at: end, upTo: size(from: end), hashingAfter: hashedSoFar)
                try await waitUntilSendable()
                let header = ChunkHeader(offset: completed, length: chunk.readableBytes, completed: end, total: source.totalBytes)
                guard let headerFrame = self.header(.chunk, header) else { return .failed("unencodable chunk header") }
                let frames: [OutboundPayload] = [.data(headerFrame), .buffer(chunk)]
                connection.onLoop { [requestID] in $0.sendChunk(requestID, frames) }
                RequestMetrics.streamed(bytes: chunk.readableBytes)
                completed = end
                (chunk, hasher) = try await following
            }
            succeed(StreamCompletion(bytes: completed, sha256: digest ?? hasher?.finalize() ?? "", type: type, suggestedName: suggestedName))
            return .completed(bytes: completed)
        } catch let interruption as StreamInterruption {
            switch interruption {
            case .cancelled:
                fail(LightboxError(.cancelled, "The load was cancelled by its client."))
                return .cancelled
            case .idle:
                logger.info("dropped a stream that got no credit", metadata: ["id": "\(requestID)"])
                fail(LightboxError(.timeout, "No stream.credit came in time; the load was dropped. Grant credit as chunks are consumed."))
                return .abandoned
            case .connectionGone, .duplicateID:
                return .abandoned
            }
        } catch is CancellationError {
            return .abandoned
        } catch let error as any LightboxErrorConvertible {
            // A source that knows what went wrong (an object store that stopped answering: `timeout`).
            fail(error.lightboxError)
            return .failed("\(error)")
        } catch {
            fail(LightboxError(.badMedia, "Reading the file failed: \(error)"))
            return .failed("\(error)")
        }
    }

    /// The next chunk, and `hasher` (when the stream hashes) having taken it in. Hashing costs more
    /// than sealing the chunk, so it runs on Swift's shared executor, beside the connection's event
    /// loop, which is left to seal and write what is already read.
    private static func read(_ source: some ChunkSource, at offset: Int64, upTo count: Int,
                             hashingAfter hasher: SHA256Hasher?) async throws -> (ByteBuffer, SHA256Hasher?) {
        let chunk = try await source.read(at: offset, upTo: count)
        guard let hasher else { return (chunk, nil) }
        let hashed = await withTaskExecutorPreference(globalConcurrentExecutor) {
            var hasher = hasher
            chunk.withUnsafeReadableBytes { hasher.update($0) }
            return hasher
        }
        return (chunk, hashed)
    }

    /// Returns once the stream may send its next chunk (see `CurveRouterConnection.waitUntilSendable`).
    private func waitUntilSendable() async throws {
        let id = requestID
        let connection = self.connection
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                connection.onLoop { $0.waitUntilSendable(id, waiter) }
            }
        } onCancel: {
            connection.onLoop { $0.cancelWait(id) }
        }
    }

    /// Runs `body` on the connection's event loop and returns its result.
    private func onLoop<Value: Sendable>(_ body: @escaping @Sendable (CurveRouterConnection) -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            connection.onLoop { continuation.resume(returning: body($0)) }
        }
    }
}
