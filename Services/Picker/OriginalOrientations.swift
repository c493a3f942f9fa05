import Synchronization

/// `RenditionStore`'s orientation cache: the EXIF orientation of originals, by content hash,
/// remembered once read. Every image request, a cached thumbnail's too, bounds its size by the
/// original's upright size, and decoding the orientation from the asset's stored properties JSON
/// each time would repeat the same work for every request. Named by content, an entry never goes
/// stale; the memory is bounded by emptying it when full.
final class OriginalOrientations: Sendable {
    let capacity: Int
    /// nil inside: the original has no orientation tag.
    private let known = Mutex<[String: Int?]>([:])

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    func orientation(of asset: AssetRecord) -> Int? {
        if let orientation = known.withLock({ $0[asset.contentHash] }) { return orientation }
        let orientation = asset.orientation
        known.withLock { known in
            if known.count >= capacity { known.removeAll(keepingCapacity: true) }
            known[asset.contentHash] = .some(orientation)
        }
        return orientation
    }

    var count: Int { known.withLock(\.count) }
}
