import Foundation
import LightboxClient

/// Picks photos, loads them with progress, asks for library access and waits for the owner to
/// change it. Run it with `lightbox run` going and an app registered:
/// `lightbox app register demo --name "Demo App" --usage-read-write "To show your photos"`.
@main
struct PickDemo {
    static func main() async throws {
        let lightbox = try await Lightbox.connect(app: CommandLine.arguments.dropFirst().first ?? "demo")
        defer { lightbox.close() }

        // A pick needs no permission: the owner chooses on their surface, the app gets exactly that.
        let picked = try await lightbox.picker.pick(PickerConfiguration(selectionLimit: 2, filter: .images))
        print("picked \(picked.count) item(s)")
        for item in picked {
            let data = try await item.itemProvider.loadDataRepresentation { progress in
                print("  loading \(item.itemProvider.suggestedName ?? "item"): \(Int(progress.fractionCompleted * 100))%")
            }
            print("loaded \(item.itemProvider.suggestedName ?? "item"): \(data.count) bytes")
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
