import Foundation

/// The one byte range of an HTTP `Range` header a browser's video element sends (`bytes=0-`,
/// `bytes=100-199`, `bytes=-500`), resolved against the file's size. Several ranges, or a range
/// that starts past the end, are not satisfiable.
struct ByteRange: Equatable, Sendable {
    let start: Int64
    /// Inclusive, as HTTP counts it.
    let end: Int64

    var count: Int64 { end - start + 1 }

    enum Outcome: Equatable {
        case whole
        case range(ByteRange)
        case unsatisfiable
    }

    /// What a `Range` header asks of a file of `total` bytes; no header (or another unit) is the whole file.
    static func resolve(_ header: String?, total: Int64) -> Outcome {
        guard let header, header.hasPrefix("bytes=") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .unsatisfiable }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            guard let suffix = Int64(last), suffix > 0, total > 0 else { return .unsatisfiable }
            return .range(ByteRange(start: max(0, total - suffix), end: total - 1))
        }
        guard let start = Int64(first), start >= 0, start < total else { return .unsatisfiable }
        if last.isEmpty { return .range(ByteRange(start: start, end: total - 1)) }
        guard let end = Int64(last), end >= start else { return .unsatisfiable }
        return .range(ByteRange(start: start, end: min(end, total - 1)))
    }
}
