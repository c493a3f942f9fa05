import Foundation

/// The repository's own sample files (Samples/), which every test may rely on, and scratch copies
/// of them for tests that damage or rearrange bytes.
enum SampleFiles {
    static let folder = ExpectedSample.samples

    static func library(_ name: String) -> URL { folder.appendingPathComponent("library/\(name)") }
    static func extra(_ name: String) -> URL { folder.appendingPathComponent("extra/\(name)") }
    static func malformed(_ name: String) -> URL { folder.appendingPathComponent("malformed/\(name)") }

    static func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    /// Writes `data` to a new temporary file called `name` (the readers name files in their
    /// errors), hands its URL to `body`, and removes it afterwards.
    @discardableResult
    static func withTemporaryFile<Result>(_ data: Data, named name: String, _ body: (URL) throws -> Result) throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("media-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return try body(url)
    }
}
