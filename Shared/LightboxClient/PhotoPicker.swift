import Foundation
import LightboxProtocol
import LightboxTransport
import Observation

/// A picked asset with its item provider, as `pick(_:)` returns it (PHPickerResult).
public struct PickedItem: Sendable {
    public let assetIdentifier: String?
    public let itemProvider: ItemProvider
}

/// The picker, shaped like SwiftUI's PhotosPicker without SwiftUI: set `maxSelectionCount` and
/// `matching`, set `isPresented` to true, and the owner chooses on their surface; `selection` then
/// holds what they chose, as items that load as transferable values. `present()` does the same and
/// waits for the answer (Linux has no SwiftUI run loop to drive a binding). `pick(_:)` stays the
/// one-call form (PHPickerViewController's). Needs no library authorization.
///
/// ```swift
/// let picker = PhotoPicker(connection: app)      // or `lightbox.picker`
/// picker.maxSelectionCount = 2
/// picker.matching = .images
/// for item in try await picker.present() {
///     let data = try await item.loadTransferable(type: Data.self)
/// }
/// ```
///
/// Isolated to the main actor: it is interface state, read by a view or a loop and written by
/// setters that file a pick at once. On one actor `selection`, `error` and `isPresented` change in
/// one step when the owner answers, so no observer sees an answered pick still presented, and the
/// setters need no locks. The wire work (`pick`) is nonisolated: it runs off the main actor, and
/// `PhotoPicker(connection:).pick(…)` works from any task as before.
@MainActor @Observable
public final class PhotoPicker {
    @ObservationIgnored nonisolated let connection: any PickerConnection

    /// What the owner chose in the last answered presentation (the owner's order with `.ordered`);
    /// empty when they cancelled. Dismissing from the app's side leaves it as it was.
    public var selection: [PhotoPickerItem] = []
    /// The most the owner may choose; nil is no limit.
    public var maxSelectionCount: Int?
    /// The kinds of assets offered (images, videos, `.any([…])`, …); nil offers everything.
    public var matching: PickerFilter?
    /// `.ordered` numbers the owner's choices and keeps their order in `selection`.
    public var selectionBehavior: PickerConfiguration.Selection = .default
    /// Which representations items register: the original, a compatible one, or both (`automatic`).
    public var preferredItemEncoding: PickerConfiguration.RepresentationMode = .automatic
    /// Bound to the photo library: only then do items carry an `itemIdentifier`.
    public var isBoundToPhotoLibrary = false
    /// Metadata removed from delivered images (the owner may remove more when choosing).
    public var stripMetadata: MetadataStripping = .none
    /// What may be delivered beyond `matching` (largest file, fewest and most pixels, longest
    /// video, kinds); the owner sees what does not fit disabled, with the reason. nil: no limits.
    public var selectionLimits: SelectionLimits?
    /// Where the items were taken, as the app asks for it: none (the default), approximate (about
    /// 10 km) or precise. The owner chooses what the app gets, never more than it asks.
    public var location: LocationAccess = .none
    /// The longest wait for the owner's answer; past it the presentation ends with `error`.
    public var timeout: Duration = .seconds(600)
    /// Why the last presentation failed (timeout, connection lost, a refused configuration); nil
    /// while presenting and after an answer.
    public private(set) var error: (any Error)?

    /// The running presentation: the task waiting for the owner's answer.
    private var presentation: Task<Void, Never>?
    /// Counts presentations, so that an answer to one the app dismissed is not taken for a later one's.
    @ObservationIgnored private var presentations = 0

    public nonisolated init(connection: any PickerConnection) {
        self.connection = connection
    }

    /// Setting it to true files a pick with the owner's surfaces (once, however often it is set);
    /// it turns false when the owner answers or cancels, or the pick fails. Setting it to false
    /// while the owner has not answered stops this app's wait for the pick.
    public var isPresented: Bool {
        get { presentation != nil }
        set { if newValue { presentIfNeeded() } else { dismiss() } }
    }

    /// The pick these properties ask for.
    public var configuration: PickerConfiguration {
        PickerConfiguration(
            selectionLimit: max(maxSelectionCount ?? 0, 0), filter: matching, selection: selectionBehavior,
            preferredAssetRepresentationMode: preferredItemEncoding, photoLibrary: isBoundToPhotoLibrary,
            stripMetadata: stripMetadata, limits: selectionLimits, location: location)
    }

    /// Presents (or joins the running presentation) and waits for the owner: returns `selection`,
    /// throws `error`. Cancelling the calling task dismisses the picker.
    @discardableResult
    public func present() async throws -> [PhotoPickerItem] {
        isPresented = true
        guard let presentation else { return selection }
        await withTaskCancellationHandler {
            await presentation.value
        } onCancel: {
            Task { @MainActor in self.dismiss() }
        }
        try Task.checkCancellation()
        if let error { throw error }
        return selection
    }

    private func presentIfNeeded() {
        guard presentation == nil else { return }
        presentations += 1
        let number = presentations
        let configuration = configuration
        let timeout = timeout
        error = nil
        presentation = Task {
            let answer: Result<[PickedItem], any Error>
            do {
                answer = .success(try await pick(configuration, timeout: timeout))
            } catch {
                answer = .failure(error)
            }
            finish(number, with: answer)
        }
    }

    private func finish(_ number: Int, with answer: Result<[PickedItem], any Error>) {
        // Dismissed by the app, and maybe presented again since: this answer is no longer awaited.
        guard number == presentations, presentation != nil else { return }
        switch answer {
        case .success(let items): selection = items.map(PhotoPickerItem.init)
        case .failure(let failure): error = failure
        }
        presentation = nil
    }

    private func dismiss() {
        presentation?.cancel()
        presentation = nil
    }

    /// Waits for the owner to finish (up to `timeout`); an empty array means the owner cancelled.
    /// `onStarted` gets the pick's id as soon as the owner's surfaces can see it. Leaves the
    /// model's properties alone.
    public nonisolated func pick(
        _ configuration: PickerConfiguration = PickerConfiguration(), timeout: Duration = .seconds(600),
        onStarted: @Sendable (String) -> Void = { _ in }
    ) async throws -> [PickedItem] {
        for try await reply in connection.send(.pick, PickRequest(configuration: configuration), timeout: timeout) {
            switch reply.status {
            case .event:
                if let started = try? reply.body(PickStarted.self) { onStarted(started.pick) }
            case .ok:
                let response = try reply.body(PickResponse.self)
                return response.results.map {
                    PickedItem(assetIdentifier: $0.assetIdentifier, itemProvider: ItemProvider($0.itemProvider, connection: connection))
                }
            default:
                continue
            }
        }
        throw LightboxError(.internal, "The pick ended without a final reply.")
    }
}
