import Foundation
import LightboxProtocol
import LightboxTransport

/// Bytes delivered so far and the size of the whole (NSProgress's completed / total unit counts).
public struct LoadProgress: Sendable, Hashable {
    public var completed: Int64
    public var total: Int64

    public var fractionCompleted: Double { total > 0 ? Double(completed) / Double(total) : 1 }
}

/// NSItemProvider for a picked asset: the app holds the token, the picker holds the bytes.
public struct ItemProvider: Sendable {
    public let descriptor: ItemProviderDescriptor
    let connection: any PickerConnection
    /// How loads reach this process: by default a read-only file descriptor from the picker's
    /// delivery socket when connected over ipc://, else the credit stream.
    public var delivery: LoadDelivery = .automatic

    public init(_ descriptor: ItemProviderDescriptor, connection: any PickerConnection) {
        self.descriptor = descriptor
        self.connection = connection
    }

    public var registeredTypeIdentifiers: [UTType] { descriptor.registeredTypeIdentifiers }
    public var suggestedName: String? { descriptor.suggestedName }

    /// Whether one of the registered types is `type` or conforms to it (`public.jpeg` → `public.image`).
    public func hasItemConformingTo(_ type: UTType) -> Bool {
        registeredTypeIdentifiers.contains { $0.conforms(to: type) }
    }

    /// The image properties behind the token, without loading the bytes.
    public func describe() async throws -> ProviderDescription {
        try await connection.request(.describe, TokenRequest(token: descriptor.token), as: ProviderDescription.self)
    }

    /// Loads the whole representation into memory. For large files prefer `loadFileRepresentation`.
    public func loadDataRepresentation(
        for type: UTType? = nil, progress: @Sendable (LoadProgress) -> Void = { _ in }
    ) async throws -> Data {
        if let delivered = try await openDelivered(type: type) {
            return try await delivered.read(progress: progress)
        }
        var data = Data()
        _ = try await stream(type: type, progress: progress) { data.append($0) }
        return data
    }

    /// Writes the representation into a file at `destination` that the caller owns (it is not
    /// deleted afterwards): copied from a delivered descriptor, or streamed with memory within
    /// `credit` chunks whatever the file's size.
    @discardableResult
    public func loadFileRepresentation(
        for type: UTType? = nil, to destination: URL, credit: Int = LoadRequest.defaultCredit,
        chunkSize: Int = LoadRequest.defaultChunkSize, progress: @Sendable (LoadProgress) -> Void = { _ in }
    ) async throws -> StreamCompletion {
        let file = try PartialFile(destination)
        let completion: StreamCompletion
        if let delivered = try await openDelivered(type: type) {
            completion = try await delivered.copy(to: file, progress: progress)
        } else {
            completion = try await stream(type: type, credit: credit, chunkSize: chunkSize, progress: progress) { try file.write($0) }
        }
        try file.commit()
        return completion
    }

    /// Runs one credit-based load of this provider's token (`CreditStream`).
    func stream(
        type: UTType?, credit: Int = LoadRequest.defaultCredit, chunkSize: Int = LoadRequest.defaultChunkSize,
        progress: @Sendable (LoadProgress) -> Void, consume: (Data) throws -> Void
    ) async throws -> StreamCompletion {
        let request = LoadRequest(token: descriptor.token, type: type, credit: credit, chunkSize: chunkSize)
        return try await CreditStream.load(.load, request, credit: credit, on: connection, progress: progress, consume: consume)
    }
}
