import Foundation
import LightboxProtocol
import Media
import Testing
@testable import Picker

/// What an import reads: regular files only, never more than they said they held.
@Suite struct HostileFileReadTests {
    static func staging() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("hostile-read-\(UUID())")
    }

    /// A FIFO is refused at once: opening it for reading would otherwise wait for a writer forever.
    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let folder = Self.staging()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("photo.jpg")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let error = try #require(throws: MediaError.self) { try IngestedFile.read(fifo, staging: folder) }
        #expect(error.message.contains("FIFO"), "\(error.message)")
        #expect(throws: MediaError.self) { try MetadataReader.read(fileAt: fifo) }
    }

    @Test func aSymbolicLinkIsNotFollowed() throws {
        let folder = Self.staging()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("real.jpg")
        try Data("x".utf8).write(to: target)
        let link = folder.appendingPathComponent("link.jpg")
        #expect(symlink(target.path, link.path) == 0)
        let error = try #require(throws: MediaError.self) { try IngestedFile.read(link, staging: folder) }
        #expect(error.message.contains("symbolic link"), "\(error.message)")
    }

    /// /proc/self/pagemap says it holds 0 bytes and yields hundreds of GiB: refused before a read.
    @Test func kernelFilesAndDevicesAreRefused() throws {
        let folder = Self.staging()
        defer { try? FileManager.default.removeItem(at: folder) }
        for path in ["/proc/self/pagemap", "/proc/self/environ", "/sys/kernel/notes"] where FileManager.default.fileExists(atPath: path) {
            let error = try #require(throws: MediaError.self) { try IngestedFile.read(URL(fileURLWithPath: path), staging: folder) }
            #expect(error.message.contains("kernel"), "\(error.message)")
        }
        let error = try #require(throws: MediaError.self) { try IngestedFile.read(URL(fileURLWithPath: "/dev/zero"), staging: folder) }
        #expect(error.message.contains("device"), "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: folder.path), "nothing was staged")
    }

    @Test func importFoldersInsideTheKernelsTreesAreRefused() {
        for path in ["/proc/self", "/proc", "/sys/kernel", "/dev"] {
            let error = #expect(throws: LightboxError.self) { try LibraryImporter.validatedFolder(path) }
            #expect(error?.code == .badRequest)
            #expect(error?.message.contains("kernel") == true, "\(error?.message ?? "")")
        }
    }
}
