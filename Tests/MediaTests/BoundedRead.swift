import Dispatch
import Foundation
import Media

/// Reads a file's metadata on another thread and stops waiting after `seconds`, so a reader that
/// hangs on a hostile file fails its test instead of stalling the whole run.
enum BoundedRead {
    enum Outcome {
        case read(MediaMetadata)
        case failed(any Error)
        case timedOut
    }

    private final class Slot: @unchecked Sendable {
        let lock = NSLock()
        var outcome: Outcome?
    }

    static func metadata(of url: URL, within seconds: Double = 10) -> Outcome {
        let slot = Slot()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let outcome: Outcome
            do { outcome = .read(try MetadataReader.read(fileAt: url)) } catch { outcome = .failed(error) }
            slot.lock.withLock { slot.outcome = outcome }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { return .timedOut }
        return slot.lock.withLock { slot.outcome ?? .timedOut }
    }
}
