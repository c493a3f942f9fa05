import Foundation
import LightboxProtocol

/// A type a picked item loads as, in place of CoreTransferable's Transferable (not on Linux): the
/// content type its values are made from, and how one is made from an item provider.
public protocol PhotoTransferable: Sendable {
    /// An item loads as this type when one of its supported content types conforms to this one.
    static var importedContentType: UTType { get }

    /// Makes a value from `provider`'s representation of `contentType`, one the item supports.
    static func load(
        from provider: ItemProvider, contentType: UTType, progress: @Sendable (LoadProgress) -> Void
    ) async throws -> Self
}

/// A PhotoTransferable made from the bytes in memory (Transferable's DataRepresentation).
public protocol PhotoDataTransferable: PhotoTransferable {
    init(importing data: Data, contentType: UTType) throws
}

extension PhotoDataTransferable {
    public static func load(
        from provider: ItemProvider, contentType: UTType, progress: @Sendable (LoadProgress) -> Void
    ) async throws -> Self {
        try Self(importing: try await provider.loadDataRepresentation(for: contentType, progress: progress), contentType: contentType)
    }
}

/// The item's bytes as they are: the original's, or the representation `preferredItemEncoding` chose.
extension Data: PhotoDataTransferable {
    public static var importedContentType: UTType { .data }

    public init(importing data: Data, contentType: UTType) {
        self = data
    }
}
