import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Media
import Testing

/// What an owner's import does with folders nobody checked: the kernel's trees refused, links,
/// FIFOs, sockets and devices passed over, and the picker's memory unmoved; nothing hangs.
@Suite(.serialized) struct HostileFolderTests {
    static let megabyte: Int64 = 1 << 20

    /// /proc/self once took the picker to 24 GB (a /proc file reports 0 bytes and yields hundreds of GiB).
    @Test func importingTheKernelsTreesIsRefusedWithAReason() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { #expect(harness.stop() == (0, 0)) }
        let owner = try await harness.owner()
        try harness.resetPeakMemory(of: harness.picker)
        let before = harness.peakMemory(of: harness.picker)
        for path in ["/proc/self", "/proc", "/sys", "/dev", "/proc/self/root/proc"] {
            let error = await lightboxError { _ = try await owner.importLibrary(at: path) }
            #expect(error?.code == .badRequest, "\(path)")
            #expect(error?.message.contains("kernel") == true, "\(error?.message ?? "")")
        }
        let growth = harness.peakMemory(of: harness.picker) - before
        print("importing /proc, /sys and /dev: picker peak grew \(growth / Self.megabyte) MiB")
        #expect(growth < 64 * Self.megabyte)
        #expect(try await owner.assets().isEmpty)
    }

    /// A Pictures folder with a symbolic link loop, links into /proc, a FIFO, a socket and a device
    /// node: the photos are imported, the rest passed over, and the import ends.
    @Test func aFolderWithLoopsFIFOsAndLinksIntoProcImportsOnlyItsPhotos() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { #expect(harness.stop() == (0, 0)) }
        let folder = harness.root.appendingPathComponent("Pictures")
        let manager = FileManager.default
        try manager.createDirectory(at: folder.appendingPathComponent("Trip/Day 1"), withIntermediateDirectories: true)
        try manager.copyItem(at: ServiceHarness.samples.appendingPathComponent("harbour.jpg"), to: folder.appendingPathComponent("harbour.jpg"))
        try manager.copyItem(at: ServiceHarness.samples.appendingPathComponent("sunset.png"), to: folder.appendingPathComponent("Trip/Day 1/sunset.png"))
        for (name, target) in [("Trip/again", ".."), ("Trip/Day 1/self", "."), ("proc", "/proc/self"),
                               ("pagemap.jpg", "/proc/self/pagemap"), ("zero.jpg", "/dev/zero"), ("loop.jpg", "loop.jpg")] {
            #expect(symlink(target, folder.appendingPathComponent(name).path) == 0, "\(name)")
        }
        #expect(mkfifo(folder.appendingPathComponent("pipe.jpg").path, 0o600) == 0)
        #expect(mknod(folder.appendingPathComponent("null.jpg").path, S_IFCHR | 0o600, dev_t(1 << 8 | 3)) == 0 || getuid() != 0)
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let socketPath = folder.appendingPathComponent("socket.jpg").path
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in socketPath.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)

        let owner = try await harness.owner()
        try harness.resetPeakMemory(of: harness.picker)
        let before = harness.peakMemory(of: harness.picker)
        let summary = try await owner.importLibrary(at: folder.path)
        #expect(summary.imported.count == 2)
        #expect(summary.failed.isEmpty, "\(summary.failed)")
        let growth = harness.peakMemory(of: harness.picker) - before
        print("importing a folder with loops, FIFOs, devices and links into /proc: picker peak grew \(growth / Self.megabyte) MiB")
        #expect(growth < 64 * Self.megabyte)
        #expect(Set(try await owner.assets().map(\.fileName)) == ["harbour.jpg", "sunset.png"])
    }

    func lightboxError(_ body: () async throws -> Void) async -> LightboxError? {
        do {
            try await body()
            return nil
        } catch let error as LightboxError {
            return error
        } catch {
            Issue.record("not a LightboxError: \(error)")
            return nil
        }
    }
}
