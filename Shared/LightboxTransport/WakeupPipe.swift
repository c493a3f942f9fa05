import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Lets any thread wake an I/O thread that sits in zmq_poll: the I/O thread polls the read end.
final class WakeupPipe: Sendable {
    let readFD: Int32
    let writeFD: Int32

    init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0, "pipe() failed: \(String(cString: strerror(errno)))")
        readFD = fds[0]
        writeFD = fds[1]
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    func signal() {
        var byte: UInt8 = 1
        // A full pipe already means "wake up"; losing this byte is harmless.
        _ = write(writeFD, &byte, 1)
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(readFD, &buffer, buffer.count) > 0 {}
    }
}
