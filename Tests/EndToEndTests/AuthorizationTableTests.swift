import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Testing

/// Every status × every library action, against running services: what PhotoKit apps expect.
@Suite(.serialized) struct AuthorizationTableTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var status: AuthorizationStatus
        /// What `requestAuthorization(.readWrite)` answers (notDetermined: after the owner denies the prompt).
        var request: AuthorizationStatus
        var prompts: Bool
        var legacy: AuthorizationStatus
        /// How many of the 7 library assets a fetch by identifier returns.
        var fetched: Int
        var canCreate: Bool
        var canUseAlbums: Bool
        var canExpand: Bool
        var testDescription: String { status.rawValue }
    }

    static let rows: [Row] = [
        Row(status: .notDetermined, request: .denied, prompts: true, legacy: .notDetermined, fetched: 0, canCreate: false, canUseAlbums: false, canExpand: false),
        Row(status: .restricted, request: .restricted, prompts: false, legacy: .restricted, fetched: 0, canCreate: false, canUseAlbums: false, canExpand: false),
        Row(status: .denied, request: .denied, prompts: false, legacy: .denied, fetched: 0, canCreate: false, canUseAlbums: false, canExpand: false),
        Row(status: .authorized, request: .authorized, prompts: false, legacy: .authorized, fetched: 7, canCreate: true, canUseAlbums: true, canExpand: false),
        Row(status: .limited, request: .limited, prompts: false, legacy: .authorized, fetched: 2, canCreate: true, canUseAlbums: false, canExpand: true),
    ]

    static let setting: [AuthorizationStatus: SetAccessRequest.ReadWrite] = [
        .restricted: .restricted, .denied: .none, .authorized: .full, .limited: .limited,
    ]

    @Test(arguments: rows)
    func statusAgainstEveryAction(_ row: Row) async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = "app-\(row.status)"
        try await harness.registerApp(app, preventAutomaticLimitedAccessAlert: true)
        let owner = try await harness.owner()
        let settings = try await harness.settings()
        let everything = try await owner.assets().map(\.identifier)
        try #require(everything.count == 7)
        if let setting = Self.setting[row.status] {
            try await settings.setAccess(SetAccessRequest(app: app, readWrite: setting, selection: row.status == .limited ? Array(everything.prefix(2)) : nil))
        }
        let library = try await harness.library(for: app)

        #expect(try await library.authorizationStatus(for: .readWrite) == row.status)
        #expect(try await library.authorizationStatus() == row.legacy)

        let fetched = try await library.fetchAssets(withLocalIdentifiers: everything)
        #expect(fetched.count == row.fetched)
        #expect(try await library.fetchAssets(AssetQuery()).total == row.fetched)

        let photo = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("sunset.png"))
        let created = await errorCode { try await library.createAsset(photo + Data("\(row.status)".utf8), fileName: "new.png") }
        #expect(created == (row.canCreate ? nil : .notAuthorized))

        #expect(await errorCode { try await library.albums() } == (row.canUseAlbums ? nil : .notAuthorized))
        #expect(await errorCode { try await library.createAlbum(title: "Trips") } == (row.canUseAlbums ? nil : .notAuthorized))

        if row.canExpand {
            let addition = everything[2]
            async let added = library.presentLimitedLibraryPicker(timeout: .seconds(30))
            let prompt = try await harness.openPrompt(settings, app: app, kind: .limitedLibrary)
            // The current selection (with the asset the app just created) comes preselected.
            #expect(prompt.selection.count == 3)
            try await settings.answer(prompt.prompt, .done, selection: prompt.selection + [addition])
            #expect(try await added == [addition])
        } else {
            #expect(await errorCode { try await library.presentLimitedLibraryPicker(timeout: .seconds(5)) } == .notLimited)
        }

        // requestAuthorization prompts only while notDetermined; otherwise it answers from the store.
        if row.prompts {
            async let answered = library.requestAuthorization(for: .readWrite, timeout: .seconds(30))
            let prompt = try await harness.openPrompt(settings, app: app, kind: .authorization)
            #expect(prompt.usageDescription == "To test read-write access.")
            #expect(prompt.appName == "App \(app)")
            try await settings.answer(prompt.prompt, .deny)
            #expect(try await answered == row.request)
        } else {
            #expect(try await library.requestAuthorization(for: .readWrite, timeout: .seconds(5)) == row.request)
            #expect(try await settings.prompts().isEmpty)
        }
        // Asked again, nobody is prompted: the stored answer stands.
        #expect(try await library.requestAuthorization(for: .readWrite, timeout: .seconds(5)) == row.request)
        #expect(try await settings.prompts().isEmpty)
    }
}
