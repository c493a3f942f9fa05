import Foundation

/// Where derived files are shared beyond one picker's disk: an object store every picker of the
/// library reads and writes (`S3DerivativeStore`). The local folder (`DerivativeCache`) stays in
/// front of it as a bounded cache; this store has no bound of its own, and the sweep
/// (`StoredFileSweep`) removes what no asset's content uses any more.
///
/// Names are `RenditionKey.fileName`s (`ab12….thumb-…`): content-addressed, so two pickers making
/// the same derivative write the same object.
protocol DerivativeStore: StoredFileListing {
    /// Writes the stored derivative `name` to `destination` (a new private file), streamed; false
    /// when the store has no such object.
    func fetch(_ name: String, to destination: URL) async throws -> Bool

    /// Uploads the complete file at `file` as the derivative `name`, streamed.
    func store(_ name: String, from file: URL) async throws
}
