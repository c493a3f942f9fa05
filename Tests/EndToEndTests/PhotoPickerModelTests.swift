import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Observation
import Synchronization
import Testing

/// The @Observable picker model (PhotosPicker's shape) against the real services: presenting files
/// a pick, the owner's answer fills `selection` and ends the presentation, and the items load as
/// transferable values.
@MainActor @Suite(.serialized) struct PhotoPickerModelTests {
    @Test func presentingFillsTheSelectionWithItemsThatLoadAsTransferables() async throws {
        let (harness, picker, owner) = try await startedPicker()
        defer { #expect(harness.stop() == (0, 0)) }
        picker.maxSelectionCount = 2
        picker.matching = .images
        picker.isBoundToPhotoLibrary = true
        picker.location = .precise  // the originals, harbour's location included
        #expect(picker.configuration == PickerConfiguration(selectionLimit: 2, filter: .images, photoLibrary: true, location: .precise))

        let presentedChanges = Mutex(0)
        withObservationTracking { _ = picker.isPresented } onChange: { presentedChanges.withLock { $0 += 1 } }
        picker.isPresented = true
        #expect(picker.isPresented)
        #expect(presentedChanges.withLock { $0 } == 1)
        picker.isPresented = true  // already presented: no second pick
        let selectionChanges = Mutex(0)
        withObservationTracking { _ = picker.selection } onChange: { selectionChanges.withLock { $0 += 1 } }

        let pick = try await harness.pendingPick(owner)
        #expect(pick.configuration == picker.configuration)
        #expect(try await owner.pendingPicks().count == 1)
        let offered = try await owner.assets(for: pick.pick)
        #expect(offered.allSatisfy { $0.mediaType == .image })
        let chosen = offered.filter { ["harbour.jpg", "portrait.jpg"].contains($0.fileName) }
        try #require(chosen.count == 2)
        #expect(selectionChanges.withLock { $0 } == 0)
        try await owner.choose(chosen.map(\.identifier), for: pick.pick, location: .precise)
        await dismissal(of: picker)

        #expect(selectionChanges.withLock { $0 } == 1)
        #expect(picker.error == nil)
        let selection = picker.selection
        #expect(Set(selection.compactMap(\.itemIdentifier)) == Set(chosen.map(\.identifier)))
        #expect(selection.allSatisfy { $0.supportedContentTypes == [.jpeg] })
        #expect(Set(selection.map(\.id)).count == 2)

        for item in selection {
            let name = try #require(item.suggestedName)
            let original = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("\(name).jpg"))
            let steps = Mutex<[LoadProgress]>([])
            let data = try await item.loadTransferable(type: Data.self) { step in steps.withLock { $0.append(step) } }
            #expect(data == original)
            #expect(steps.withLock { $0.last.map { $0.completed == $0.total && $0.total == Int64(original.count) } } == true)

            let file = try #require(try await item.loadTransferable(type: PickedFile.self))
            defer { try? FileManager.default.removeItem(at: file.url.deletingLastPathComponent()) }
            #expect(file.url.lastPathComponent == "\(name).jpg")
            #expect(file.contentType == .jpeg)
            #expect(try Data(contentsOf: file.url) == original)

            // No supported type conforms to a movie: nothing is loaded.
            #expect(try await item.loadTransferable(type: MovieBytes.self) == nil)
        }
    }

    @Test func theOwnerCancellingEmptiesTheSelectionAndEndsThePresentation() async throws {
        let (harness, picker, owner) = try await startedPicker()
        defer { harness.stop() }

        async let first = picker.present()
        let answered = try await harness.pendingPick(owner)
        try await owner.choose([try #require(try await owner.assets(for: answered.pick).first).identifier], for: answered.pick)
        #expect(try await first.count == 1)
        #expect(picker.selection.count == 1)

        async let second = picker.present()
        let cancelled = try await harness.pendingPick(owner)
        #expect(cancelled.pick != answered.pick)
        try await owner.cancel(cancelled.pick)
        #expect(try await second.isEmpty)
        #expect(picker.selection.isEmpty)
        #expect(!picker.isPresented)
        #expect(picker.error == nil)
    }

    @Test func dismissingFromTheAppEndsTheWaitAndKeepsTheSelection() async throws {
        let (harness, picker, owner) = try await startedPicker()
        defer { harness.stop() }

        async let waiting = picker.present()
        let pick = try await harness.pendingPick(owner)
        picker.isPresented = false
        #expect(!picker.isPresented)
        #expect(try await waiting.isEmpty)
        #expect(picker.error == nil)
        // An answer the app no longer waits for does not reach the selection.
        _ = try? await owner.choose([try #require(try await owner.assets(for: pick.pick).first).identifier], for: pick.pick)
        #expect(picker.selection.isEmpty)
        #expect(!picker.isPresented)
    }

    /// Both services, a registered app's picker model (waiting at most 30 s for an answer) and the owner.
    private func startedPicker() async throws -> (ServiceHarness, PhotoPicker, OwnerSurface) {
        let harness = try await ServiceHarness.start()
        do {
            let picker = PhotoPicker(connection: try await harness.registerApp("demo"))
            picker.timeout = .seconds(30)
            return (harness, picker, try await harness.owner())
        } catch {
            harness.stop()
            throw error
        }
    }

    /// Waits, by observing the model rather than polling it, until its presentation has ended.
    private func dismissal(of picker: PhotoPicker) async {
        while picker.isPresented {
            await withCheckedContinuation { continuation in
                withObservationTracking { _ = picker.isPresented } onChange: { continuation.resume() }
            }
        }
    }
}

/// Bytes that load only from a movie representation.
private struct MovieBytes: PhotoDataTransferable, Equatable {
    static var importedContentType: UTType { .movie }
    let data: Data
    init(importing data: Data, contentType: UTType) { self.data = data }
}
