import Foundation
import LightboxProtocol
import LightboxTransport

/// PHPhotoLibrary and PHAsset for an app: authorization (auth service) and library access (picker,
/// which asks the auth service). Shaped like PhotoKit so ported code reads the same.
public struct PhotoLibrary: Sendable {
    let auth: DealerConnection
    let picker: any PickerConnection

    /// `picker` is one picker's connection, or a `FailoverConnection` over several.
    public init(auth: DealerConnection, picker: any PickerConnection) {
        self.auth = auth
        self.picker = picker
    }

    /// `PHPhotoLibrary.authorizationStatus(for:)`.
    public func authorizationStatus(for level: AccessLevel) async throws -> AuthorizationStatus {
        try await auth.request(.authorizationStatus, StatusRequest(level: level), as: StatusResponse.self).status
    }

    /// The legacy `PHPhotoLibrary.authorizationStatus()`: limited reads as authorized.
    public func authorizationStatus() async throws -> AuthorizationStatus {
        try await auth.request(.authorizationStatus, StatusRequest(), as: StatusResponse.self).status
    }

    /// `PHPhotoLibrary.requestAuthorization(for:)`: prompts the owner only while notDetermined
    /// (`onPrompt` gets the prompt's id); afterwards answers with the stored status.
    public func requestAuthorization(
        for level: AccessLevel, timeout: Duration = .seconds(300), onPrompt: @Sendable (String) -> Void = { _ in }
    ) async throws -> AuthorizationStatus {
        try await requestAccess(for: level, timeout: timeout, onPrompt: onPrompt).status
    }

    /// `requestAuthorization(for:)` asking also for where the photos were taken (`location`, with
    /// readWrite): the owner is asked once per request, with the access prompt or on its own once
    /// access is granted. The reply's `location` is what the app's reads deliver.
    public func requestAccess(
        for level: AccessLevel, location: LocationAccess? = nil, timeout: Duration = .seconds(300),
        onPrompt: @Sendable (String) -> Void = { _ in }
    ) async throws -> StatusResponse {
        for try await reply in auth.send(.requestAuthorization, AuthorizationRequest(level: level, location: location), timeout: timeout) {
            switch reply.status {
            case .event: if let shown = try? reply.body(PromptShown.self) { onPrompt(shown.prompt) }
            case .ok: return try reply.body(StatusResponse.self)
            default: continue
            }
        }
        throw LightboxError(.internal, "auth.request ended without a final reply.")
    }

    /// The location the app's library reads deliver (none, approximate or precise), as the owner gave it.
    public func locationAccess() async throws -> LocationAccess {
        try await auth.request(.authorizationStatus, StatusRequest(level: .readWrite), as: StatusResponse.self).location ?? LocationAccess.none
    }

    /// `PHPhotoLibrary.presentLimitedLibraryPicker`: the owner edits the selection; returns the
    /// identifiers newly added. Throws `notLimited` unless access is limited.
    public func presentLimitedLibraryPicker(
        timeout: Duration = .seconds(300), onPrompt: @Sendable (String) -> Void = { _ in }
    ) async throws -> [String] {
        try await presentLimitedLibraryPickerWithAlbums(timeout: timeout, onPrompt: onPrompt).added
    }

    /// The limited-library picker, as `presentLimitedLibraryPicker`, saying also which albums the
    /// owner newly let the selection follow (`addedAlbums`): their assets, now and later, are the
    /// app's to see.
    public func presentLimitedLibraryPickerWithAlbums(
        timeout: Duration = .seconds(300), onPrompt: @Sendable (String) -> Void = { _ in }
    ) async throws -> LimitedLibraryPickerResponse {
        for try await reply in auth.send(.presentLimitedLibraryPicker, Empty(), timeout: timeout) {
            switch reply.status {
            case .event: if let shown = try? reply.body(PromptShown.self) { onPrompt(shown.prompt) }
            case .ok: return try reply.body(LimitedLibraryPickerResponse.self)
            default: continue
            }
        }
        throw LightboxError(.internal, "auth.presentLimitedLibraryPicker ended without a final reply.")
    }

    /// `PHAsset.fetchAssets(withLocalIdentifiers:)`: only the assets this app may see, in the order
    /// asked; without access the result is simply empty.
    public func fetchAssets(withLocalIdentifiers identifiers: [String]) async throws -> [AssetSummary] {
        try await picker.request(.fetchAssets, FetchAssetsRequest(localIdentifiers: identifiers), as: FetchAssetsResponse.self).assets
    }

    /// `PHAsset.fetchAssets(with:options:)`: by media type and date, sorted and paged.
    public func fetchAssets(_ query: AssetQuery) async throws -> FetchAssetsResponse {
        try await picker.request(.queryAssets, query, as: FetchAssetsResponse.self)
    }

    /// `PHAssetCreationRequest`: adds a photo or video (needs add-only or read-write access).
    public func createAsset(_ data: Data, fileName: String? = nil) async throws -> String {
        var identifier: String?
        for try await reply in picker.send(.createAsset, CreateAssetRequest(fileName: fileName), attachments: [data]) where reply.status == .ok {
            identifier = try reply.body(CreateAssetResponse.self).identifier
        }
        guard let identifier else { throw LightboxError(.internal, "library.create ended without a final reply.") }
        return identifier
    }

    /// The albums (needs full read-write access).
    public func albums() async throws -> [Album] {
        try await picker.request(.albums, Empty(), as: AlbumsResponse.self).albums
    }

    public func createAlbum(title: String) async throws -> Album {
        try await picker.request(.createAlbum, CreateAlbumRequest(title: title), as: AlbumResponse.self).album
    }

    /// Changes to this app's access as they happen (PHPhotoLibraryChangeObserver). With `since`,
    /// changes after that token come first, so a reconnecting app misses nothing.
    public func changes(since token: Int64? = nil) -> AsyncThrowingStream<AuthorizationChange, Error> {
        Self.events(of: auth.send(.watch, ChangesRequest(since: token), timeout: .seconds(365 * 86_400)), after: token, token: \.token)
    }

    /// A watch's `event` replies as values, each once: a change may arrive both live and in the
    /// replay after `since`, and tokens only grow.
    static func events<Change: Codable & Sendable>(
        of replies: AsyncThrowingStream<IncomingReply, Error>, after since: Int64?, token: KeyPath<Change, Int64> & Sendable
    ) -> AsyncThrowingStream<Change, Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var latest = since ?? 0
                    for try await reply in replies where reply.status == .event {
                        let change = try reply.body(Change.self)
                        guard change[keyPath: token] > latest else { continue }
                        latest = change[keyPath: token]
                        continuation.yield(change)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// What changed after `token`, and the newest token (for a client that was away).
    public func changes(after token: Int64) async throws -> ChangesResponse {
        try await auth.request(.changes, ChangesRequest(since: token), as: ChangesResponse.self)
    }
}
