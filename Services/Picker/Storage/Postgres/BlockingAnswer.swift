import Foundation
import Synchronization

/// One answer handed from a task to a thread that waits for it (`PostgresCatalogStorage.waitingForAnswer`).
final class BlockingAnswer<Value: Sendable>: Sendable {
    private let answer = Mutex<Result<Value, any Error>?>(nil)
    private let given = DispatchSemaphore(value: 0)

    func give(_ result: Result<Value, any Error>) {
        answer.withLock { $0 = result }
        given.signal()
    }

    func wait() -> Result<Value, any Error> {
        given.wait()
        return answer.withLock { $0! }
    }
}
