import Foundation

/// Starts a thread that owns its sockets for its whole life. `setUp` runs on that thread and its
/// error (say, an endpoint already in use) is handed back to the caller before `start` returns.
enum IOThread {
    static func start(name: String, _ body: @escaping @Sendable (_ ready: @Sendable (Error?) -> Void) -> Void) throws {
        let result = ResultSlot()
        let thread = Thread {
            body { error in result.set(error) }
        }
        thread.name = name
        thread.start()
        if let error = result.wait() { throw error }
    }
}

/// A one-shot hand-over of a setup result from the I/O thread to the thread that started it.
private final class ResultSlot: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var error: Error?
    private var isSet = false

    func set(_ error: Error?) {
        lock.lock()
        defer { lock.unlock() }
        guard !isSet else { return }
        isSet = true
        self.error = error
        semaphore.signal()
    }

    func wait() -> Error? {
        semaphore.wait()
        lock.lock()
        defer { lock.unlock() }
        return error
    }
}

/// Runs an async function to completion from a plain (non-cooperative) thread, such as the ZAP thread.
func runBlocking<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
    let semaphore = DispatchSemaphore(value: 0)
    let box = Box<T>()
    Task {
        box.value = await operation()
        semaphore.signal()
    }
    semaphore.wait()
    return box.value!
}

private final class Box<T>: @unchecked Sendable {
    // Written once before the semaphore is signalled, read once after: the semaphore orders them.
    var value: T?
}
