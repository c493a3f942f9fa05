import CGio
import Foundation

/// A GLib main loop on a thread of its own, for GDBus. GDBus runs the handlers of exported objects
/// and the completions of asynchronous calls in the thread-default main context of the thread that
/// registered or started them; everything that must happen there is sent here with `perform`
/// (`g_main_context_invoke`), and everything else (replies, unregistering, emitting) may happen on
/// any thread: GDBus's connection is thread-safe.
final class GLibLoop: @unchecked Sendable {
    // @unchecked: both pointers are set once in init and only used through GLib's thread-safe
    // entry points (invoke, quit, unref once the thread has finished).
    let context: OpaquePointer
    private let loop: OpaquePointer
    private let finished = DispatchSemaphore(value: 0)

    init(name: String) {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        let thread = Thread { [self] in
            g_main_context_push_thread_default(context)
            g_main_loop_run(loop)
            g_main_context_pop_thread_default(context)
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Stops the loop and waits for its thread to finish; nothing runs in the context afterwards.
    func stop() {
        g_main_loop_quit(loop)
        g_main_context_wakeup(context)
        finished.wait()
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Runs `body` on the loop's thread, soon.
    func perform(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Work(body)).toOpaque()
        g_main_context_invoke_full(context, G_PRIORITY_DEFAULT, { data in
            Unmanaged<Work>.fromOpaque(data!).takeUnretainedValue().body()
            return 0  // G_SOURCE_REMOVE
        }, box, { data in
            Unmanaged<Work>.fromOpaque(data!).release()
        })
    }

    /// Runs `body` on the loop's thread and returns what it returns.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            perform { continuation.resume(returning: body()) }
        }
    }

    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
