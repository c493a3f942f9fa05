import NIOCore

/// Runs a request's handler on the event loop of the connection it came on. A handler mostly waits
/// (on the catalog, on lightbox-auth, on the render pool) and does little work between waits, so
/// starting it where the request was read and writing its reply from there saves two thread
/// hand-offs per request. Blocking and CPU-heavy work still goes to the services' pools, never here.
final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { [self] in
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
