import Foundation
import LightboxProtocol

/// One item the owner chose, as SwiftUI's PhotosPickerItem: its identifier in the photo library
/// (when the pick was bound to it), the content types it loads as, and `loadTransferable`. The
/// bytes stay with the picker service until a load asks for them with the item's provider token.
public struct PhotoPickerItem: Sendable, Hashable, Identifiable {
    /// The asset's local identifier; nil unless the pick was bound to the photo library.
    public let itemIdentifier: String?
    public let itemProvider: ItemProvider

    public init(itemIdentifier: String?, itemProvider: ItemProvider) {
        self.itemIdentifier = itemIdentifier
        self.itemProvider = itemProvider
    }

    init(_ picked: PickedItem) {
        self.init(itemIdentifier: picked.assetIdentifier, itemProvider: picked.itemProvider)
    }

    /// The provider's token: unique to this item of this pick.
    public var id: String { itemProvider.descriptor.token }

    /// The types the item loads as, the original's first (`public.jpeg`, `public.heic`, …).
    public var supportedContentTypes: [UTType] { itemProvider.registeredTypeIdentifiers }

    /// The asset's file name without its extension, for naming what it is saved as.
    public var suggestedName: String? { itemProvider.suggestedName }

    /// Loads the item as `type`, made from the first supported content type that conforms to
    /// `type.importedContentType`; nil when none does (a movie asked for as an image, say).
    /// Over ipc the bytes arrive as a file descriptor, elsewhere as a stream; `progress` reports both.
    public func loadTransferable<T: PhotoTransferable>(
        type: T.Type, progress: @Sendable (LoadProgress) -> Void = { _ in }
    ) async throws -> T? {
        guard let contentType = supportedContentTypes.first(where: { $0.conforms(to: T.importedContentType) }) else { return nil }
        return try await T.load(from: itemProvider, contentType: contentType, progress: progress)
    }

    // Equal when they load the same thing: the provider's descriptor is the token and its types.
    public static func == (lhs: PhotoPickerItem, rhs: PhotoPickerItem) -> Bool {
        lhs.itemIdentifier == rhs.itemIdentifier && lhs.itemProvider.descriptor == rhs.itemProvider.descriptor
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(itemProvider.descriptor.token)
    }
}
