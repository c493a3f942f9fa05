import Foundation
import LightboxProtocol
import LightboxTransport

/// A picked asset with its item provider, as an app receives it (PHPickerResult).
public struct PickedItem: Sendable {
    public let assetIdentifier: String?
    public let itemProvider: ItemProvider
}

/// PHPickerViewController for a process: asks the picker service for a pick that the owner
/// completes on a user surface. Needs no library authorization.
public struct PhotoPicker: Sendable {
    let connection: DealerConnection

    public init(connection: DealerConnection) {
        self.connection = connection
    }

    /// Waits for the owner to finish (up to `timeout`); an empty array means the owner cancelled.
    /// `onStarted` gets the pick's id as soon as the owner's surfaces can see it.
    public func pick(
        _ configuration: PickerConfiguration = PickerConfiguration(), timeout: Duration = .seconds(600),
        onStarted: @Sendable (String) -> Void = { _ in }
    ) async throws -> [PickedItem] {
        for try await reply in connection.send(.pick, PickRequest(configuration: configuration), timeout: timeout) {
            switch reply.status {
            case .event:
                if let started = try? reply.body(PickStarted.self) { onStarted(started.pick) }
            case .ok:
                let response = try reply.body(PickResponse.self)
                return response.results.map {
                    PickedItem(assetIdentifier: $0.assetIdentifier, itemProvider: ItemProvider($0.itemProvider, connection: connection))
                }
            default:
                continue
            }
        }
        throw LightboxError(.internal, "The pick ended without a final reply.")
    }
}
