import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Testing

/// A pick's selection limits against real services: each limit marks on the owner's pages exactly
/// the sample assets that miss it, with the reason; `owner.choose` refuses those (and the pick stays
/// open) and delivers the rest; bad limits are refused before the owner sees a pick, from an app
/// and from lightbox-portal alike.
///
/// The samples: bounce.gif 80 × 60 (1,130 bytes), clip.mp4 160 × 120, 2 s (17,929), harbour.jpg
/// 640 × 480 (31,859), meadow.webp 400 × 300 (10,308), portrait.jpg 300 × 400 (7,855),
/// spinner.webp 64 × 64 (4,902), sunset.png 320 × 200 (4,988).
@Suite(.serialized) struct SelectionLimitTests {
    /// The error an operation throws, or nil when it succeeds.
    func refusal<T>(_ operation: () async throws -> T) async -> LightboxError? {
        do {
            _ = try await operation()
            return nil
        } catch {
            return error as? LightboxError ?? LightboxError(.internal, "unexpected: \(error)")
        }
    }

    @Test func eachLimitDisablesWhatMissesItAndChooseRefusesIt() async throws {
        let harness = try await ServiceHarness.start()
        defer { #expect(harness.stop() == (0, 0)) }
        let app = try await harness.registerApp("postcard")
        let owner = try await harness.owner()
        let cases: [(SelectionLimits, [String: String])] = [
            (SelectionLimits(maxFileSize: 10_000), ["clip.mp4": "Too large for App postcard: 17.9 KB of 10 KB",
                                                    "harbour.jpg": "Too large for App postcard: 31.9 KB of 10 KB",
                                                    "meadow.webp": "Too large for App postcard: 10.3 KB of 10 KB"]),
            (SelectionLimits(minPixels: 200), ["bounce.gif": "Too small: 80 × 60, at least 200 px", "clip.mp4": "Too small: 160 × 120, at least 200 px",
                                               "spinner.webp": "Too small: 64 × 64, at least 200 px"]),
            (SelectionLimits(maxPixels: 400), ["harbour.jpg": "Too large: 640 × 480, at most 400 px"]),
            (SelectionLimits(maxDuration: 1), ["clip.mp4": "Too long: 0:02 of 0:01"]),
            (SelectionLimits(mediaTypes: [.video]), Dictionary(uniqueKeysWithValues: [
                "bounce.gif", "harbour.jpg", "meadow.webp", "portrait.jpg", "spinner.webp", "sunset.png",
            ].map { ($0, "App postcard takes videos only") })),
        ]
        for (limits, misfits) in cases {
            let configuration = PickerConfiguration(selectionLimit: 0, photoLibrary: true, limits: limits)
            async let picked = PhotoPicker(connection: app).pick(configuration, timeout: .seconds(30))
            let pick = try await harness.pendingPick(owner)
            #expect(pick.configuration.limits == limits)
            let offered = try await owner.assets(for: pick.pick)
            #expect(offered.count == 7, "limits disable, they do not hide")
            let marked = Dictionary(uniqueKeysWithValues: offered.compactMap { asset in asset.unavailable.map { (asset.fileName, $0.reason) } })
            #expect(marked == misfits, "\(limits)")

            // A forged choice of a disabled asset is refused, naming it and why; the pick stays open.
            let disabled = try #require(offered.first { $0.unavailable != nil })
            let fitting = offered.filter { $0.unavailable == nil }
            let error = await refusal { try await owner.choose([fitting[0].identifier, disabled.identifier], for: pick.pick) }
            #expect(error?.code == .badRequest)
            #expect(error?.message.contains("\(disabled.fileName) cannot be chosen for this pick: \(disabled.unavailable!.reason)") == true,
                    "\(String(describing: error))")
            #expect(error?.details?["limit"] == disabled.unavailable?.limit.rawValue)
            #expect(try await owner.pendingPicks().map(\.pick) == [pick.pick])

            #expect(try await owner.choose(fitting.map(\.identifier), for: pick.pick) == fitting.count)
            let items = try await picked
            #expect(Set(items.compactMap(\.assetIdentifier)) == Set(fitting.map(\.identifier)))
        }
    }

    /// The owner's terminal listing says why; the scripted owner never chooses what does not fit.
    @Test func theCommandLineOwnerSeesWhyAndPassesItOver() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("postcard")
        let owner = try await harness.owner()
        async let picked = PhotoPicker(connection: app).pick(
            PickerConfiguration(selectionLimit: 0, limits: SelectionLimits(maxFileSize: 10_000)), timeout: .seconds(30))
        let pick = try await harness.pendingPick(owner)
        let listing = try await harness.cli(["user", "assets", "--pick", pick.pick])
        #expect(listing.status == 0)
        #expect(listing.output.split(separator: "\n").filter { $0.contains("\tunavailable: ") }.count == 3)
        let harbour = try #require(listing.output.split(separator: "\n").first { $0.contains("\tharbour.jpg\t") })
        #expect(harbour.hasSuffix("\tunavailable: Too large for App postcard: 31.9 KB of 10 KB"), "\(harbour)")

        let policy = harness.root.appendingPathComponent("all.json")
        try Data(#"{"action":"choose","strategy":"newest","count":100}"#.utf8).write(to: policy)
        let auto = try await harness.cli(["user", "auto", "--policy", policy.path, "--max-picks", "1"])
        #expect(auto.status == 0, "\(auto.errors)")
        #expect(Set(try await picked.compactMap(\.itemProvider.suggestedName)) == ["bounce", "portrait", "spinner", "sunset"])
    }

    @Test func badLimitsAreRefusedBeforeTheOwnerSeesAPick() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("postcard")
        let owner = try await harness.owner()
        let bad: [(SelectionLimits, String)] = [
            (SelectionLimits(maxFileSize: 0), "limits.maxFileSize"), (SelectionLimits(maxFileSize: -1), "limits.maxFileSize"),
            (SelectionLimits(minPixels: 0), "limits.minPixels"), (SelectionLimits(maxPixels: 12_000_000), "limits.maxPixels"),
            (SelectionLimits(minPixels: 1080, maxPixels: 720), "nothing could fit"),
            (SelectionLimits(maxDuration: 0), "limits.maxDuration"), (SelectionLimits(maxDuration: -60), "limits.maxDuration"),
            (SelectionLimits(mediaTypes: []), "limits.mediaTypes"),
        ]
        for (limits, named) in bad {
            let error = await refusal { try await PhotoPicker(connection: app).pick(PickerConfiguration(limits: limits), timeout: .seconds(10)) }
            #expect(error?.code == .badRequest && error?.message.contains(named) == true, "\(limits): \(String(describing: error))")
        }
        // Values of the wrong kind never reach a handler.
        let keyPair = try harness.directory.appKeyPair("postcard")
        let serverKey = try await harness.directory.keys.publicKey(KeyDirectory.pickerService)
        let raw = try RawDealer(endpoint: harness.directory.pickerEndpoint, serverKey: serverKey, keyPair: keyPair)
        defer { raw.close() }
        let wrongKinds = [#"{"mediaTypes":["audio"]}"#: true, #"{"maxFileSize":"20MB"}"#: true, #"{"maxDuration":null,"mediaTypes":"image"}"#: true,
                          // A fraction where a whole number belongs is refused without naming the field (the decoder's own words).
                          #"{"minPixels":10.5}"#: false]
        for (limits, namesTheField) in wrongKinds {
            let request = #"{"v":1,"id":"x","op":"picker.pick","body":{"configuration":{"limits":"# + limits + "}}}"
            let reply = try WireCoding.decode(ReplyEnvelope<ErrorBody>.self, from: try raw.exchange([Data(request.utf8)]))
            #expect(reply.status == .error && reply.body.code == .badRequest, "\(limits)")
            #expect(!namesTheField || reply.body.message.contains("configuration.limits."), "\(limits): \(reply.body.message)")
        }
        #expect(try await owner.pendingPicks().isEmpty)
        // The app is served as before.
        #expect(try await app.request(.ping, Empty(), as: ServiceIdentity.self).service == "picker")
    }

    /// lightbox-portal files a desktop app's pick through the same door: its limits are checked
    /// alike, and what they leave out is refused at choose. (The portal's own picks carry none:
    /// a desktop file chooser has no such options.)
    @Test func aPortalPickIsHeldToItsLimitsToo() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let portal = try await harness.directory.connectToPicker(
            as: try harness.directory.keys.loadOrCreateKeyPair(KeyDirectory.portalService), launch: nil)
        let owner = try await harness.owner()
        let bad = PortalPickRequest(app: "org.example.Postcards", appName: "Postcards", configuration: PickerConfiguration(limits: SelectionLimits(maxPixels: 0)))
        #expect(await refusal { try await portal.request(.portalPick, bad, as: PickResponse.self) }?.code == .badRequest)
        #expect(try await owner.pendingPicks().isEmpty)

        let filed = PortalPickRequest(app: "org.example.Postcards", appName: "Postcards",
                                      configuration: PickerConfiguration(limits: SelectionLimits(maxPixels: 400)))
        async let answer = portal.request(.portalPick, filed, as: PickResponse.self, timeout: .seconds(30))
        let pick = try await harness.pendingPick(owner)
        let offered = try await owner.assets(for: pick.pick)
        let harbour = try #require(offered.first { $0.fileName == "harbour.jpg" })
        #expect(harbour.unavailable?.reason == "Too large: 640 × 480, at most 400 px")
        #expect(await refusal { try await owner.choose([harbour.identifier], for: pick.pick) }?.code == .badRequest)
        let sunset = try #require(offered.first { $0.fileName == "sunset.png" })
        #expect(try await owner.choose([sunset.identifier], for: pick.pick) == 1)
        #expect(try await answer.results.map(\.itemProvider.suggestedName) == ["sunset"])
    }
}
