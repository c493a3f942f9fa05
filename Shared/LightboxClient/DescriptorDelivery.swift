import Foundation
import LightboxProtocol
import LightboxTransport

#if canImport(Glibc)
import Glibc
#endif

/// How an item provider's loads reach the app.
public enum LoadDelivery: Sendable, Hashable {
    /// Over an ipc:// connection, a read-only file descriptor from the picker's delivery socket
    /// (`provider.open`); over tcp, or when that fails, the credit stream.
    case automatic
    /// Always the credit stream (`provider.load`).
    case stream
}

/// A representation delivered as a read-only file descriptor, owned until it is read or copied.
final class DeliveredDescriptor: Sendable {
    let descriptor: Int32
    let ticket: FileTicket

    init(descriptor: Int32, ticket: FileTicket) {
        self.descriptor = descriptor
        self.ticket = ticket
    }

    deinit { close(descriptor) }

    /// The whole file in memory.
    func read(progress: @Sendable (LoadProgress) -> Void) async throws -> Data {
        let total = ticket.fileSize
        return try await withoutActuallyEscaping(progress) { progress in
            try await Self.offCooperativeThreads { [self] in
                let data = try DeliverySocketClient.readAll(from: descriptor, sizeHint: total) {
                    progress(LoadProgress(completed: $0, total: total))
                }
                if data.isEmpty { progress(LoadProgress(completed: 0, total: 0)) }
                return data
            }
        }
    }

    /// The whole file copied into `file`; what a stream's completion would say of it.
    func copy(to file: PartialFile, progress: @Sendable (LoadProgress) -> Void) async throws -> StreamCompletion {
        let total = ticket.fileSize
        let destination = file.descriptor
        let (bytes, sha256) = try await withoutActuallyEscaping(progress) { progress in
            try await Self.offCooperativeThreads { [self] in
                let copied = try DeliverySocketClient.copy(from: descriptor, to: destination) {
                    progress(LoadProgress(completed: $0, total: total))
                }
                if copied.bytes == 0 { progress(LoadProgress(completed: 0, total: 0)) }
                return copied
            }
        }
        return StreamCompletion(bytes: bytes, sha256: sha256, type: ticket.type, suggestedName: ticket.suggestedName)
    }

    /// Runs blocking reads and writes on Dispatch's threads, not Swift's cooperative pool. `work`
    /// may hold a closure lent by `withoutActuallyEscaping`: it is let go before the caller
    /// resumes (the dispatched block outlives the resumption, so it holds only the job).
    static func offCooperativeThreads<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        let job = OneShotJob(work)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: job.run()) }
        }
    }
}

/// Work run once, then dropped.
private final class OneShotJob<Value: Sendable>: @unchecked Sendable {
    // Set at init, taken by the one `run`: never touched from two threads at once.
    private var work: (@Sendable () throws -> Value)?

    init(_ work: @escaping @Sendable () throws -> Value) { self.work = work }

    func run() -> Result<Value, any Error> {
        guard let work else { return .failure(LightboxError(.internal, "A blocking job ran twice.")) }
        self.work = nil
        return Result { try work() }
    }
}

extension ItemProvider {
    /// Error codes of `provider.open` after which the stream is tried: no ipc connection, a picker
    /// without it, its bounds, or a fault on the way. The rest (token, type, asset) the stream
    /// would answer the same.
    static let streamAfterOpenFailing: Set<ErrorCode> = [.badRequest, .unknownOp, .busy, .internal, .timeout]

    /// The representation as a delivered descriptor, or nil when the credit stream should carry it.
    func openDelivered(type: UTType?) async throws -> DeliveredDescriptor? {
        guard delivery == .automatic, connection.endpoint.hasPrefix("ipc://") else { return nil }
        let ticket: FileTicket
        do {
            // Progress (a download from the cloud tier, a transcode) keeps the wait alive, as for a stream.
            var answer: FileTicket?
            for try await reply in connection.send(.open, OpenRequest(token: descriptor.token, type: type), timeout: .seconds(30))
            where reply.status == .ok {
                answer = try reply.body(FileTicket.self)
            }
            guard let answer else { return nil }
            ticket = answer
        } catch let error as LightboxError where Self.streamAfterOpenFailing.contains(error.code) {
            return nil
        }
        do {
            let descriptor = try await DeliveredDescriptor.offCooperativeThreads { try DeliverySocketClient.receive(ticket) }
            return DeliveredDescriptor(descriptor: descriptor, ticket: ticket)
        } catch {
            return nil
        }
    }
}
