import Foundation
import Synchronization

/// The memory tier of `RenditionStore`: the renditions served last, kept in memory so that a
/// thumbnail asked for again and again (a grid scrolled back and forth, many apps showing the same
/// photos) is answered without a system call: opening, reading, stamping and closing its cached
/// file would otherwise be most of a cached image request's work. Bounded by bytes, least recently
/// used out first.
///
/// The derivative cache on disk stays the record of what is used: an entry served from memory for
/// longer than `diskStampInterval` is read from disk again, which stamps the file's use, so the
/// disk's eviction does not take what memory keeps serving. Renditions are kept by their file's
/// name (`RenditionKey.fileName`: content hash and kind), so what is kept never goes stale.
final class RecentRenditions: Sendable {
    let maximumBytes: Int
    static let diskStampInterval: Duration = .seconds(30)

    private struct Entry {
        var rendered: Rendition
        var lastUse: UInt64
        var readFromDisk: ContinuousClock.Instant
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var uses: UInt64 = 0
    }

    private let state = Mutex(State())

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    /// The rendition kept under `key`, unless it has been served from memory long enough that
    /// its file's use should be stamped on disk again.
    func rendition(_ key: String, now: ContinuousClock.Instant = .now) -> Rendition? {
        state.withLock { state in
            guard var entry = state.entries[key], now - entry.readFromDisk < Self.diskStampInterval else { return nil }
            state.uses += 1
            entry.lastUse = state.uses
            state.entries[key] = entry
            return entry.rendered
        }
    }

    /// Keeps `rendered`, just read from disk, under `key`; the least recently used go when the
    /// bytes kept would exceed `maximumBytes` (down to three quarters, so that eviction is rare).
    func keep(_ rendered: Rendition, for key: String, now: ContinuousClock.Instant = .now) {
        let size = rendered.data.count
        guard size <= maximumBytes / 4 else { return }
        state.withLock { state in
            state.uses += 1
            if let old = state.entries.updateValue(Entry(rendered: rendered, lastUse: state.uses, readFromDisk: now), forKey: key) {
                state.bytes -= old.rendered.data.count
            }
            state.bytes += size
            guard state.bytes > maximumBytes else { return }
            for (oldest, entry) in state.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard state.bytes > maximumBytes / 4 * 3 else { break }
                state.entries[oldest] = nil
                state.bytes -= entry.rendered.data.count
            }
        }
    }

    var bytes: Int { state.withLock { $0.bytes } }
    var count: Int { state.withLock { $0.entries.count } }
}
