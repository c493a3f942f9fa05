import Foundation
import LightboxClient

/// Picks photos, loads them with progress, asks for library access and waits for the owner to
/// change it. Run it with `lightbox run` going and an app registered:
/// `lightbox app register demo --name "Demo App" --usage-read-write "To show your photos"`.
@main
struct PickDemo {
    // The picker is an @Observable model on the main actor, as a view's state would be.
    @MainActor
    static func main() async throws {
        let lightbox = try await Lightbox.connect(app: CommandLine.arguments.dropFirst().first ?? "demo")
        defer { lightbox.close() }

        // A pick needs no permission: the owner chooses on their surface, the app gets exactly that.
        // PhotosPicker(selection: $items, maxSelectionCount: 2, matching: .images), without SwiftUI:
        // `isPresented = true` files the pick and `selection` fills when the owner answers (a view
        // would observe both); `present()` does the same and waits for the answer.
        let picker = lightbox.picker
        picker.maxSelectionCount = 2
        picker.matching = .images
        let selection = try await picker.present()
        print("picked \(selection.count) item(s)")
        for item in selection {
            let name = item.suggestedName ?? "item"
            guard let data = try await item.loadTransferable(type: Data.self, progress: { progress in
                print("  loading \(name): \(Int(progress.fractionCompleted * 100))%")
            }) else { continue }
            print("loaded \(name): \(data.count) bytes")
        }

        // Library access is a separate permission; the owner is asked once.
        let status = try await lightbox.library.requestAuthorization(for: .readWrite)
        print("read-write access: \(status.rawValue)")
        if status == .authorized || status == .limited {
            let page = try await lightbox.library.fetchAssets(AssetQuery(limit: 10))
            print("the library shows this app \(page.total) asset(s)")
        }

        // Only the owner changes it afterwards; an app that watches is told.
        print("watching for changes")
        for try await change in lightbox.library.changes() {
            print("access changed: \(change.level.rawValue) is now \(change.status.rawValue)")
            break
        }
    }
}
