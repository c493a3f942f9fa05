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
