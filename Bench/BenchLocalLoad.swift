import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport

#if canImport(Glibc)
import Glibc
#endif

/// `bench load --local`: a token's file handed over as a descriptor (`provider.open`, the delivery
/// socket, then reading the descriptor to its end) against `cat FILE > /dev/null` of the same
/// bytes, in alternating rounds with the page cache warm for both. Prints the median MB/s of each
/// and their ratio, and what was handed over: the library's file, or (to a process of the picker's
/// own user, as the bench is) a sealed memory copy of it.
struct BenchLocalLoad {
    let app: DealerConnection
    let token: String
    let rounds: Int
    /// The file the picker imported, which `cat` reads when the descriptor is a copy.
    let original: URL

    /// Bytes read per call, like a plain reader's buffer.
    static let readSize = 1 << 20

    func run() async throws {
        // A first delivery also tells which file the picker hands out: cat reads that very file.
        let (warm, _) = try await delivered()
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(warm)")
        close(warm)
        let isCopy = link.hasPrefix("/memfd:")
        let file = isCopy ? original.path : link
        guard file.hasPrefix("/") else { throw LightboxError(.internal, "the delivered descriptor is neither a file nor a sealed copy: \(link)") }
        let bytes = try await cat(file).bytes
        var lightboxRates: [Double] = []
        var catRates: [Double] = []
        for round in 1...rounds {
            let start = ContinuousClock.now
            let (descriptor, size) = try await delivered()
            let read = try Self.readToEnd(descriptor)
            close(descriptor)
            let lightboxSeconds = (ContinuousClock.now - start).seconds
            guard read == size, read == bytes else {
                throw LightboxError(.internal, "round \(round) read \(read) bytes of a \(size)-byte file; cat read \(bytes)")
            }
            let catSeconds = try await cat(file).seconds
            lightboxRates.append(Double(read) / 1e6 / lightboxSeconds)
            catRates.append(Double(bytes) / 1e6 / catSeconds)
        }
        let lightbox = BenchStatistics.median(lightboxRates)
        let baseline = BenchStatistics.median(catRates)
        print("bench load --local: \(String(format: "%.1f", Double(bytes) / 1_048_576)) MiB, \(rounds) rounds, page cache warm, "
              + (isCopy ? "delivered as a sealed memory copy (this process runs as the picker's user)" : "delivered as the library's file"))
        print(String(format: "  provider.open + descriptor read : %8.1f MB/s (median)", lightbox))
        print(String(format: "  cat FILE > /dev/null            : %8.1f MB/s (median)", baseline))
        print(String(format: "  ratio lightbox/cat              : %8.2f (goal ≥ 0.9)", lightbox / baseline))
    }

    /// A descriptor for the token's file, as a client on this host gets it, and its size.
    func delivered() async throws -> (descriptor: Int32, size: Int64) {
        let ticket = try await app.request(.open, OpenRequest(token: token), as: FileTicket.self)
        let descriptor = try await Self.onDispatch { try DeliverySocketClient.receive(ticket) }
        return (descriptor, ticket.fileSize)
    }

    /// Reads `descriptor` to its end into one reused buffer; the bytes read.
    static func readToEnd(_ descriptor: Int32) throws -> Int64 {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: readSize, alignment: 4096)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let count = read(descriptor, buffer, readSize)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw LightboxError(.internal, "reading the descriptor: \(String(cString: strerror(errno)))") }
            if count == 0 { return total }
            total += Int64(count)
        }
    }

    /// `cat FILE > /dev/null` as its own process (posix_spawn and waitpid, nothing in between):
    /// how long it took and how much the file holds.
    func cat(_ file: String) async throws -> (seconds: Double, bytes: Int64) {
        try await Self.onDispatch {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("cat"), strdup(file), nil]
            defer { arguments.forEach { free($0) } }
            var pid: pid_t = 0
            let start = ContinuousClock.now
            let spawned = posix_spawn(&pid, "/bin/cat", &actions, nil, arguments, environ)
            guard spawned == 0 else { throw LightboxError(.internal, "cannot start cat: \(String(cString: strerror(spawned)))") }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            let seconds = (ContinuousClock.now - start).seconds
            guard status == 0 else { throw LightboxError(.internal, "cat \(file) failed (wait status \(status))") }
            var info = stat()
            guard stat(file, &info) == 0 else { throw LightboxError(.internal, "cannot stat \(file)") }
            return (seconds, Int64(info.st_size))
        }
    }

    /// Blocking calls on Dispatch's threads, not Swift's cooperative pool.
    static func onDispatch<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}
