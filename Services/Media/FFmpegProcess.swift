import Foundation
import LightboxProtocol
import Synchronization

/// Runs Debian's `ffmpeg` as a child process under a time and a memory budget, passing each line
/// it writes to standard output (its `-progress pipe:1` report) to the caller.
///
/// Why a subprocess rather than libavcodec/libavformat in lightbox-picker's own process: a decoder
/// fed a hostile or broken movie may crash, spin or allocate without bound. In a child that ends
/// the child, not the service and every app's requests with it; and the kernel enforces the
/// budgets with no cooperation from the decoder: `prlimit --as` caps the child's address space, and
/// SIGKILL ends it at its deadline. The costs (a process start, and the result
/// going through a file) are small next to a transcode. The readers (`MovieReader`) keep using
/// libavformat in process: they parse headers only, under a deadline, and decode nothing.
public enum FFmpegProcess {
    /// How long the child may run and how much memory it may map.
    public struct Budget: Sendable, Hashable {
        public var timeLimit: Duration
        /// Bytes of address space (`prlimit --as`): allocations beyond it fail and ffmpeg exits.
        public var addressSpace: Int

        public init(timeLimit: Duration, addressSpace: Int = Self.defaultAddressSpace) {
            self.timeLimit = timeLimit
            self.addressSpace = addressSpace
        }

        /// 1 GiB: ffmpeg and its libraries map about 300 MiB before they start (Debian 12); scaling 4K
        /// frames to 720p and encoding them with one thread fits in it (a 1080p encode does not fit
        /// in 400 MiB).
        public static let defaultAddressSpace = 1 << 30
        /// Transcoding with one thread runs at several times real time for the sizes Lightbox
        /// makes; the budget is generous (a base plus four times the movie's length) and capped,
        /// so that a movie that claims to be hours long cannot hold a transcode slot for hours.
        public static func forMovie(lasting duration: Double?) -> Budget {
            let seconds = min(maximumSeconds, 30 + 4 * max(0, duration ?? maximumSeconds))
            return Budget(timeLimit: .seconds(seconds))
        }

        public static let maximumSeconds = 900.0
    }

    /// Runs `ffmpeg arguments` (found on PATH) under `budget`; returns when it has exited with
    /// status 0. Throws only `MediaError`: `.timedOut` when the deadline killed it, `.toolMissing`
    /// when ffmpeg is not installed, `.toolFailed` (with the end of its error output) otherwise.
    public static func run(_ arguments: [String], budget: Budget, tool: String = "ffmpeg",
                           onLine: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        guard let executable = Self.locate(tool) else {
            throw MediaError(.toolMissing, "\(tool) is not installed on this machine; deploy/install-deps.sh installs it")
        }
        guard let limiter = Self.locate("prlimit") else {
            throw MediaError(.toolMissing, "prlimit (util-linux) is not installed on this machine; Lightbox runs \(tool) only under a memory limit")
        }
        let command = [limiter, "--as=\(budget.addressSpace)", "--", executable] + arguments
        // Blocking reads and the wait for the child belong on a thread of their own, not on Swift's
        // few cooperative threads, nor on a pool thread that renders would wait for meanwhile (a
        // transcode may take minutes; `TranscodeSlots` bounds how many run).
        let outcome = try await DedicatedThread(name: "lightbox-\(tool)").run {
            Self.runBlocking(command, tool: tool, budget: budget, onLine: onLine)
        }
        try outcome.get()
    }

    static func locate(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") + ["/usr/bin", "/bin"] {
            let candidate = "\(folder)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    private static func runBlocking(_ command: [String], tool: String, budget: Budget,
                                    onLine: @Sendable (String) -> Void) -> Result<Void, MediaError> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failure(MediaError(.toolMissing, "Cannot start \(tool): \(error.localizedDescription)"))
        }
        let pid = process.processIdentifier
        // `prlimit` sets the limit on itself and then execs ffmpeg, so this pid is ffmpeg's.
        let state = Mutex(ChildState())
        let deadline = DispatchWorkItem {
            state.withLock { state in
                guard !state.hasExited else { return }
                state.wasKilled = true
                kill(pid, SIGKILL)
            }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + budget.timeLimit.seconds, execute: deadline)

        // Standard error is drained beside standard output so that neither pipe fills and stalls
        // the child; only its end is kept, for the error message.
        let errorTail = Mutex(Data())
        let drained = DispatchSemaphore(value: 0)
        let errorDescriptor = errors.fileHandleForReading.fileDescriptor
        Thread.detachNewThread {
            readAll(errorDescriptor) { chunk in
                errorTail.withLock { tail in
                    tail.append(chunk)
                    if tail.count > 4096 { tail.removeFirst(tail.count - 4096) }
                }
            }
            drained.signal()
        }
        var pending = Data()
        readAll(output.fileHandleForReading.fileDescriptor) { chunk in
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                onLine(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
        drained.wait()
        process.waitUntilExit()
        let wasKilled = state.withLock { state in
            state.hasExited = true
            return state.wasKilled
        }
        deadline.cancel()
        if wasKilled {
            return .failure(MediaError(.timedOut, "\(tool) did not finish within its budget of \(budget.timeLimit) and was stopped"))
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let message = String(decoding: errorTail.withLock { $0 }, as: UTF8.self)
                .split(separator: "\n").suffix(3).joined(separator: "; ")
            let how = process.terminationReason == .exit ? "exited with status \(process.terminationStatus)" : "was ended by signal \(process.terminationStatus)"
            return .failure(MediaError(.toolFailed, "\(tool) \(how)\(message.isEmpty ? "" : ": \(message)")"))
        }
        return .success(())
    }

    /// Reads a descriptor to its end, passing each chunk on.
    private static func readAll(_ descriptor: Int32, _ consume: (Data) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                consume(Data(buffer[0..<count]))
            } else if count == 0 || errno != EINTR {
                return
            }
        }
    }

    private struct ChildState {
        var hasExited = false
        var wasKilled = false
    }
}
