/// Image requests in progress, so `image.cancel` can reach them by request id.
actor ImageRequestRegistry {
    private var running: Set<String> = []
    private var cancelled: Set<String> = []

    func begin(_ id: String) { running.insert(id) }

    func end(_ id: String) {
        running.remove(id)
        cancelled.remove(id)
    }

    /// Marks a running request cancelled; false when no such request is running.
    func cancel(_ id: String) -> Bool {
        guard running.contains(id) else { return false }
        cancelled.insert(id)
        return true
    }

    func isCancelled(_ id: String) -> Bool { cancelled.contains(id) }
}
