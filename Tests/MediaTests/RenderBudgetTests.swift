import Foundation
import LightboxProtocol
import Testing
@testable import Media

/// Bounded rendering: no enlargement whatever box is asked for, and a time limit libvips obeys.
@Suite struct RenderBudgetTests {
    @Test func boxesLargerThanTheImageGiveTheImageAtScaleOne() {
        // 300 × 400, as in the attack: fill at 16384² is a 300 × 300 crop, fit is the image itself.
        #expect(ThumbnailSize.bounded(width: 16384, height: 16384, contentMode: .fill, imageWidth: 300, imageHeight: 400) == (300, 300))
        #expect(ThumbnailSize.bounded(width: 16384, height: 16384, contentMode: .fit, imageWidth: 300, imageHeight: 400) == (300, 400))
        #expect(ThumbnailSize.bounded(width: 1000, height: 400, contentMode: .fit, imageWidth: 300, imageHeight: 400) == (300, 400))
        #expect(ThumbnailSize.bounded(width: 600, height: 100, contentMode: .fill, imageWidth: 300, imageHeight: 400) == (300, 50))
        // Smaller boxes are left alone.
        #expect(ThumbnailSize.bounded(width: 100, height: 100, contentMode: .fill, imageWidth: 300, imageHeight: 400) == (100, 100))
        #expect(ThumbnailSize.bounded(width: 1000, height: 200, contentMode: .fit, imageWidth: 300, imageHeight: 400) == (1000, 200))
        #expect(ThumbnailSize.upright(width: 640, height: 480, orientation: 6) == (480, 640))
        #expect(ThumbnailSize.upright(width: 640, height: 480, orientation: nil) == (640, 480))
    }

    @Test func aHugeFillRequestRendersNoMorePixelsThanTheOriginal() throws {
        let image = try ImageRenderer.thumbnail(of: SampleFiles.library("harbour.jpg"), targetWidth: 16384, targetHeight: 16384,
                                                contentMode: .fill)  // 640 × 480
        #expect((image.pixelWidth, image.pixelHeight) == (480, 480))
        let fit = try ImageRenderer.thumbnail(of: SampleFiles.library("harbour.jpg"), targetWidth: 16384, targetHeight: 16384, contentMode: .fit)
        #expect((fit.pixelWidth, fit.pixelHeight) == (640, 480))
    }

    @Test func aRenderingPastItsTimeLimitIsStopped() throws {
        do {
            _ = try ImageRenderer.thumbnail(of: SampleFiles.library("harbour.jpg"), targetWidth: 200, targetHeight: 200, contentMode: .fit,
                                            timeLimit: .zero)
            Issue.record("a rendering with no time left finished")
        } catch let error as MediaError {
            #expect(error.code == .timedOut, "\(error)")
        }
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("budget-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: destination) }
        do {
            try ImageRenderer.compatibleJPEG(of: SampleFiles.library("meadow.webp"), to: destination, timeLimit: .zero)
            Issue.record("a transcode with no time left finished")
        } catch let error as MediaError {
            #expect(error.code == .timedOut, "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        // With time to spare the same rendering works.
        #expect(try ImageRenderer.thumbnail(of: SampleFiles.library("harbour.jpg"), targetWidth: 200, targetHeight: 200, contentMode: .fit).pixelWidth == 200)
    }
}
