import Foundation
import LightboxTransport
import Testing
@testable import Picker

#if canImport(Glibc)
import Glibc
#endif

/// Who gets a file of the library itself on the delivery socket, and who a sealed copy: only a peer
/// that can neither write the file nor change its mode gets the file.
@Suite struct SealedCopyTests {
    /// A file of `mode` owned by this process's user, open read-only, for `body`.
    func withFile(mode: mode_t, _ body: (Int32, uid_t) throws -> Void) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sealed-\(UUID().uuidString)")
        try Data("photo".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(chmod(url.path, mode) == 0)
        let descriptor = open(url.path, O_RDONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        var status = stat()
        #expect(fstat(descriptor, &status) == 0)
        try body(descriptor, status.st_uid)
    }

    func peer(_ uid: uid_t) -> PeerCredentials { PeerCredentials(processID: 4242, userID: uid, groupID: uid) }

    @Test func theFilesOwnerAndRootGetACopyAndAnotherUserTheFileUnlessItIsWritableToOthers() throws {
        let stranger: uid_t = 65_000
        try withFile(mode: 0o644) { descriptor, owner in
            #expect(SealedCopy.isNeeded(for: peer(owner), fileAt: descriptor, removesMetadata: false))
            #expect(SealedCopy.isNeeded(for: peer(0), fileAt: descriptor, removesMetadata: false))
            #expect(owner == stranger || !SealedCopy.isNeeded(for: peer(stranger), fileAt: descriptor, removesMetadata: false))
            #expect(SealedCopy.isNeeded(for: peer(stranger), fileAt: descriptor, removesMetadata: true))
        }
        for mode: mode_t in [0o664, 0o646, 0o666] {
            try withFile(mode: mode) { descriptor, _ in
                #expect(SealedCopy.isNeeded(for: peer(stranger), fileAt: descriptor, removesMetadata: false), "mode \(String(mode, radix: 8))")
            }
        }
    }

    @Test func aCopyIsReadOnlyForItsOwnerAndSealed() throws {
        try withFile(mode: 0o644) { descriptor, _ in
            let copy = try SealedCopy.make(of: descriptor, size: 5, name: "test")
            defer { close(copy) }
            var status = stat()
            #expect(fstat(copy, &status) == 0 && status.st_mode & 0o777 == 0o400)
            #expect(lightbox_seals_for_test(copy) & 0x0008 != 0)
            var bytes = [UInt8](repeating: 0, count: 5)
            #expect(pread(copy, &bytes, 5, 0) == 5 && String(decoding: bytes, as: UTF8.self) == "photo")
        }
    }
}

/// F_GET_SEALS (1034), which Glibc's Swift module leaves out.
private func lightbox_seals_for_test(_ descriptor: Int32) -> Int32 { fcntl(descriptor, 1034) }
