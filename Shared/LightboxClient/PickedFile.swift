import Foundation
import LightboxProtocol

/// A picked item loaded into a file (Transferable's FileRepresentation): named after the item, in a
/// new folder of its own under the temporary directory that only this user can enter. The file is
/// the caller's to move or remove; nothing deletes it behind their back.
public struct PickedFile: PhotoTransferable, Hashable {
    public let url: URL
    public let contentType: UTType

    public static var importedContentType: UTType { .data }

    public static func load(
        from provider: ItemProvider, contentType: UTType, progress: @Sendable (LoadProgress) -> Void
    ) async throws -> PickedFile {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lightbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let url = folder.appendingPathComponent(fileName(provider.suggestedName, contentType))
        do {
            try await provider.loadFileRepresentation(for: contentType, to: url, progress: progress)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        return PickedFile(url: url, contentType: contentType)
    }

    /// The suggested name with the type's extension; "item" when the name could not be a file's.
    static func fileName(_ suggested: String?, _ contentType: UTType) -> String {
        let name = suggested.map { $0.replacingOccurrences(of: "/", with: "_") } ?? ""
        let base = name.isEmpty || name.hasPrefix(".") ? "item" : name
        return contentType.preferredFilenameExtension.map { "\(base).\($0)" } ?? base
    }
}
