import Foundation
import LightboxClient
import LightboxProtocol
import Media
import Testing

/// The import that crashed the release picker (SIGSEGV in liborc, or glibc's "double free or
/// corruption"): `count` distinct copies of a sample photo imported by an AddressSanitizer build of
/// lightbox-picker with its usual render pool, so that a use after free or a double free anywhere
/// on the import path (ours, libvips', liborc's) stops the picker and fails the test.
/// The Motion Photo samples follow, hostile one included. `make test` builds that picker (`make asan`) and names it in LIGHTBOX_ASAN_BIN.
@Suite(.serialized) struct ImportUnderAddressSanitizerTests {
    static let count = 2_000

    @Test func twoThousandPhotosImportUnderAddressSanitizer() async throws {
        guard let folder = ProcessInfo.processInfo.environment["LIGHTBOX_ASAN_BIN"] else {
            print("skipped: LIGHTBOX_ASAN_BIN is not set (make test builds the AddressSanitizer picker and sets it)")
            return
        }
        let sanitized = URL(fileURLWithPath: folder).appendingPathComponent("lightbox-picker")
        #expect(FileManager.default.isExecutableFile(atPath: sanitized.path), "no AddressSanitizer picker at \(sanitized.path)")
        let harness = try await ServiceHarness.start(importFolders: [], environment: ["ASAN_OPTIONS": "detect_leaks=0"]) { harness in
            harness.executables["lightbox-picker"] = sanitized
        }
        defer {
            // What AddressSanitizer reported, if anything, is in the picker's log.
            let log = (try? String(contentsOf: harness.root.appendingPathComponent("lightbox-picker.log"), encoding: .utf8)) ?? ""
            #expect(!log.contains("AddressSanitizer"), "\(log.suffix(6000))")
            #expect(harness.stop() == (0, 0), "the picker stopped cleanly")
        }
        let photos = harness.root.appendingPathComponent("photos")
        let harbour = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg"))
        _ = try NumberedJPEG.write(Self.count, from: harbour, into: photos)

        let owner = try await harness.owner()
        let summary = try await owner.importLibrary(at: photos.path)
        #expect(summary.imported.count == Self.count)
        #expect(summary.failed.isEmpty, "\(summary.failed.prefix(3))")
        var listed = 0
        var cursor: String?
        repeat {
            let page = try await owner.assetPage(limit: ListAssetsRequest.maximumLimit, after: cursor)
            listed += page.assets.count
            cursor = page.next
        } while cursor != nil
        #expect(listed == Self.count, "every photo is in the catalog")

        // The Motion Photo reader walks each still's XMP and boxes, the lying sample's too.
        let motion = try await owner.importLibrary(at: ServiceHarness.repository.appendingPathComponent("Samples/motion").path)
        #expect(motion.imported.count == 5, "\(motion.failed.prefix(3))")
    }
}
