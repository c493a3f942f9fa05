import Foundation
import LightboxProtocol

/// Where an owner's page ended, in library order (newest first, then by identifier): the stored
/// creation date exactly as SQLite holds it, and the identifier. Opaque to clients (base64url).
struct LibraryCursor: Equatable {
    var storedDate: String
    var identifier: String

    var encoded: String {
        Data("\(storedDate)\n\(identifier)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    init(storedDate: String, identifier: String) {
        self.storedDate = storedDate
        self.identifier = identifier
    }

    init(decoding text: String) throws(LightboxError) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard text.count <= 512, let data = Data(base64Encoded: base64), let decoded = String(data: data, encoding: .utf8) else {
            throw Self.invalid
        }
        let parts = decoded.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw Self.invalid }
        storedDate = String(parts[0])
        identifier = String(parts[1])
    }

    static let invalid = LightboxError(.badRequest, "The cursor in \"after\" is not one this picker gave out; pass the \"next\" of the previous page, or leave it out for the first page.")
}
