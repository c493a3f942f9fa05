import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Media
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `provider.open` and the delivery socket against the real services: a process on the same host
/// receives a read-only descriptor (the original, a cached derivative, a sealed copy without
/// metadata); a ticket works once, only for the process that asked; over tcp the client streams.
@Suite(.serialized) struct FileDescriptorDeliveryTests {
    /// Linux's F_GET_SEALS, F_SEAL_SEAL and F_SEAL_WRITE (Glibc's module leaves them out).
    static let getSeals: Int32 = 1034
    static let sealSeal: Int32 = 0x0001
    static let sealWrite: Int32 = 0x0008

    /// A ticket for `provider`'s representation as `type`, asked over `app`'s connection.
    func ticket(_ provider: ItemProvider, as type: UTType? = nil, over app: DealerConnection) async throws -> FileTicket {
        try await app.request(.open, OpenRequest(token: provider.descriptor.token, type: type), as: FileTicket.self)
    }

    /// Presents `ticket` on the delivery socket from this process; the descriptor received.
    func present(_ ticket: FileTicket) async throws -> Int32 {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try DeliverySocketClient.receive(ticket) }) }
        }
    }

    func contents(of descriptor: Int32) throws -> Data { try DeliverySocketClient.readAll(from: descriptor) }

    /// The bytes the credit stream delivers for the same provider.
    func streamed(_ provider: ItemProvider, as type: UTType? = nil) async throws -> Data {
        var streaming = provider
        streaming.delivery = .stream
        return try await streaming.loadDataRepresentation(for: type)
    }

    /// A write to the descriptor fails with EBADF and its access mode is read-only.
    func expectReadOnly(_ descriptor: Int32) {
        let byte: [UInt8] = [0]
        #expect(write(descriptor, byte, 1) == -1 && errno == EBADF)
        #expect(fcntl(descriptor, F_GETFL) & O_ACCMODE == O_RDONLY)
    }

    /// `descriptor` is a sealed memory copy holding `original`: written through a reopen of
    /// /proc/self/fd/N, after a chmod or not, nothing changes, and it cannot be resized. (Tests run
    /// as root, which may reopen any file for writing: the seals refuse the writes themselves.)
    func expectNoWayBack(_ descriptor: Int32, original: Data) throws {
        let path = "/proc/self/fd/\(descriptor)"
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path).hasPrefix("/memfd:"))
        let seals = fcntl(descriptor, Self.getSeals)
        #expect(seals >= 0 && seals & Self.sealWrite != 0 && seals & Self.sealSeal != 0, "seals \(seals)")
        var status = stat()
        #expect(fstat(descriptor, &status) == 0 && status.st_mode & 0o777 == 0o400, "mode \(String(status.st_mode & 0o777, radix: 8))")
        let byte: [UInt8] = [0x41]
        for mode in [O_RDWR, O_WRONLY, O_WRONLY | O_APPEND, O_WRONLY | O_TRUNC] {
            let reopened = open(path, mode | O_CLOEXEC)
            guard reopened >= 0 else { continue }  // refused outright: as it is for any user but root
            #expect(write(reopened, byte, 1) == -1 && errno == EPERM, "a write through a reopen (mode \(mode)) went through")
            #expect(ftruncate(reopened, 0) == -1)
            close(reopened)
        }
        _ = fchmod(descriptor, 0o666)
        let afterChmod = open(path, O_RDWR | O_CLOEXEC)
        if afterChmod >= 0 {
            #expect(write(afterChmod, byte, 1) == -1 && errno == EPERM, "a write after chmod went through")
            close(afterChmod)
        }
        #expect(try contents(of: descriptor) == original)
    }

    @Test func anOriginalArrivesAsAReadOnlyDescriptorAndTheAuditNamesTheProcess() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("viewer")
        let provider = try await harness.pickProvider(named: "harbour.jpg", as: app)
        let original = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg"))

        let ticket = try await ticket(provider, over: app)
        #expect(ticket.socket == harness.root.path + "/picker.sock.delivery")
        #expect(ticket.fileSize == Int64(original.count))
        #expect(ticket.type == .jpeg)
        let descriptor = try await present(ticket)
        defer { close(descriptor) }
        #expect(try contents(of: descriptor) == original)
        expectReadOnly(descriptor)
        // This process runs as the picker's user, so it gets a sealed copy, never the library's file:
        // neither a reopen of /proc/self/fd/N nor a chmod first lets it write.
        try expectNoWayBack(descriptor, original: original)

        // The client takes the same way by itself, and says what a stream would.
        let destination = harness.root.appendingPathComponent("mine.jpg")
        let steps = Mutex<[LoadProgress]>([])
        let completion = try await provider.loadFileRepresentation(to: destination) { step in steps.withLock { $0.append(step) } }
        #expect(try Data(contentsOf: destination) == original)
        #expect(completion.bytes == Int64(original.count))
        #expect(completion.sha256 == SHA256Hasher.hex(original))
        #expect(steps.withLock { $0.last.map { [$0.completed, $0.total] } } == [Int64(original.count), Int64(original.count)])
        #expect(try await provider.loadDataRepresentation() == original)

        let settings = try await harness.settings()
        let opens = try await settings.audit(app: "viewer", operation: "open", atLeast: 3)
        #expect(opens.allSatisfy { $0.outcome == "delivered to pid \(getpid()) uid \(getuid())" }, "\(opens)")
        #expect(opens.allSatisfy { $0.bytes == Int64(original.count) })
        // No stream ran.
        #expect(try await settings.audit(AuditRequest(app: "viewer", operation: "load")).entries.isEmpty)
    }

    @Test func aDerivativeAndAStrippedCopyArriveReadOnly() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("editor")

        // meadow.webp registers a compatible JPEG too: made once, cached, handed out as that file.
        let webp = try await harness.pickProvider(named: "meadow.webp", as: app)
        let derivative = try await present(try await ticket(webp, as: .jpeg, over: app))
        defer { close(derivative) }
        let jpeg = try contents(of: derivative)
        #expect(jpeg.prefix(2) == Data([0xFF, 0xD8]))
        #expect(try harness.metadata(of: jpeg).type == .jpeg)
        #expect(jpeg == (try await streamed(webp, as: .jpeg)))
        expectReadOnly(derivative)
        // The cached derivative is the picker's too: a sealed copy of it.
        try expectNoWayBack(derivative, original: jpeg)

        // Without location: a sealed memory copy, which the receiver cannot write, shrink or grow.
        let located = try await harness.pickProvider(named: "harbour.jpg", as: app, PickerConfiguration(stripMetadata: .location))
        let sealed = try await present(try await ticket(located, over: app))
        defer { close(sealed) }
        let stripped = try contents(of: sealed)
        #expect(try harness.metadata(of: stripped).location == nil)
        #expect(try harness.metadata(of: stripped).cameraMake == "Lightbox")
        #expect(stripped == (try await streamed(located)))
        expectReadOnly(sealed)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(sealed)").hasPrefix("/memfd:"))
        let seals = fcntl(sealed, Self.getSeals)
        #expect(seals >= 0 && seals & Self.sealWrite != 0 && seals & Self.sealSeal != 0, "seals \(seals)")
        #expect(ftruncate(sealed, 0) == -1)
        // The client's own load comes the same way, location gone.
        #expect(try harness.metadata(of: try await located.loadDataRepresentation()).location == nil)
    }

    @Test func aTicketWorksOnceAndOnlyForTheProcessThatAsked() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("viewer")
        let provider = try await harness.pickProvider(named: "harbour.jpg", as: app)

        let once = try await ticket(provider, over: app)
        close(try await present(once))
        #expect(await errorCode { try await present(once) } == .tokenUnknown)

        // Another process (a raw unix-socket client) presenting this process's ticket is refused,
        // gets no descriptor, and uses the ticket up.
        let stolen = try await ticket(provider, over: app)
        let thief = Process()
        thief.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        thief.arguments = ["-c", """
            import array, socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sys.argv[1])
            s.sendall(sys.argv[2].encode() + b"\\n")
            data, fds, _, _ = socket.recv_fds(s, 4096, 4)
            print(len(fds), data.decode().strip())
            """, stolen.socket, stolen.ticket]
        let (status, output, errors) = try await ServiceHarness.runToEnd(thief)
        #expect(status == 0, "\(errors)")
        #expect(output.hasPrefix("0 "), "\(output)")
        #expect(output.contains(#""code":"notAuthorized""#), "\(output)")
        #expect(await errorCode { try await present(stolen) } == .tokenUnknown)

        let settings = try await harness.settings()
        let refused = try await settings.audit(app: "viewer", operation: "open", atLeast: 2).filter { $0.outcome.hasPrefix("refused:") }
        #expect(refused.map(\.outcome) == ["refused:notAuthorized by pid \(thief.processIdentifier) uid \(getuid())"], "\(refused)")
    }

    @Test func clientsThatSayNothingDoNotHoldUpADelivery() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("viewer")
        let provider = try await harness.pickProvider(named: "harbour.jpg", as: app)
        let ticket = try await ticket(provider, over: app)
        // Connections that never send a ticket line, and one that sends more than a line may hold.
        var silent: [Int32] = []
        defer { silent.forEach { close($0) } }
        for _ in 0..<8 { silent.append(try Self.connect(ticket.socket)) }
        let flood = try Self.connect(ticket.socket)
        defer { close(flood) }
        let long = [UInt8](repeating: UInt8(ascii: "a"), count: FileTicket.maximumLineLength)
        #expect(write(flood, long, long.count) == long.count)
        let descriptor = try await present(ticket)
        defer { close(descriptor) }
        #expect(try contents(of: descriptor) == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg"))))
        // The overlong line is answered badRequest and closed.
        var answer = [UInt8](repeating: 0, count: 512)
        let count = read(flood, &answer, answer.count)
        #expect(count > 0 && String(decoding: answer[..<max(count, 0)], as: UTF8.self).contains(#""code":"badRequest""#))
    }

    /// A plain blocking connection to a unix socket (reads give up after 5 s).
    static func connect(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw LightboxError(.internal, "cannot connect to \(path): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    @Test func overTCPOpenIsRefusedAndTheClientStreams() async throws {
        let harness = try await ServiceHarness.start(pickerEndpoint: "tcp://127.0.0.1:\(try FreePort.make())")
        defer { harness.stop() }
        let app = try await harness.registerApp("remote")
        let provider = try await harness.pickProvider(named: "harbour.jpg", as: app)
        do {
            _ = try await ticket(provider, over: app)
            Issue.record("provider.open was answered over tcp")
        } catch let error as LightboxError {
            #expect(error.code == .badRequest)
            #expect(error.message.contains("ipc://") && error.message.contains("provider.load"), "\(error.message)")
        }
        let original = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg"))
        #expect(try await provider.loadDataRepresentation() == original)
        let loads = try await harness.settings().audit(app: "remote", operation: "load", atLeast: 1)
        #expect(loads.map(\.outcome) == ["completed"])
    }
}
