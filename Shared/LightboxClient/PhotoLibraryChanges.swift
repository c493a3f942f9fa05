import Foundation
import LightboxProtocol
import LightboxTransport

/// PHPhotoLibraryChangeObserver and album contents, on the picker.
extension PhotoLibrary {
    /// Library changes this app may see, as they happen. With `since`, the changes after that token
    /// come first, so an app that reconnects misses nothing.
    public func libraryChanges(since token: Int64? = nil) -> AsyncThrowingStream<LibraryChange, Error> {
        Self.events(of: picker.send(.watchLibrary, LibraryChangesRequest(since: token), timeout: .seconds(365 * 86_400)), after: token,
                    token: \.token)
    }

    /// What changed in the library after `token` (visible to this app), and the token to ask with next.
    public func libraryChanges(after token: Int64) async throws -> LibraryChangesResponse {
        try await picker.request(.libraryChanges, LibraryChangesRequest(since: token), as: LibraryChangesResponse.self)
    }

    public func add(_ assets: [String], toAlbum album: String) async throws {
        _ = try await picker.request(.addToAlbum, AlbumMembershipRequest(album: album, assets: assets), as: Empty.self)
    }

    public func remove(_ assets: [String], fromAlbum album: String) async throws {
        _ = try await picker.request(.removeFromAlbum, AlbumMembershipRequest(album: album, assets: assets), as: Empty.self)
    }

    /// One page of an album's assets, newest first; pass `next` as `after` for the following page.
    public func assets(inAlbum album: String, limit: Int = 100, after: String? = nil) async throws -> FetchAssetsResponse {
        try await picker.request(.albumAssets, AlbumAssetsRequest(album: album, limit: limit, after: after), as: FetchAssetsResponse.self)
    }
}

/// Deleting, as PHAssetChangeRequest.deleteAssets: the owner confirms on a user surface first.
extension PhotoLibrary {
    /// Deletes `assets` once the owner allows it (`onPrompt` gets the prompt's id); throws
    /// `cancelled` when the owner declines and `timeout` when nobody answers.
    @discardableResult
    public func deleteAssets(
        _ assets: [String], timeout: Duration = .seconds(3600), onPrompt: @Sendable (String) -> Void = { _ in }
    ) async throws -> [String] {
        for try await reply in picker.send(.deleteAssets, DeleteAssetsRequest(assets: assets), timeout: timeout) {
            switch reply.status {
            case .event: if let shown = try? reply.body(PromptShown.self) { onPrompt(shown.prompt) }
            case .ok: return try reply.body(DeleteAssetsResponse.self).deleted
            default: continue
            }
        }
        throw LightboxError(.internal, "library.delete ended without a final reply.")
    }
}
