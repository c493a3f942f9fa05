import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Media

/// Picks: an app asks (`picker.pick`) and waits; the owner sees what is pending, browses the
/// library through the pick's filter, and chooses or cancels; the app then gets item-provider tokens
/// for exactly what was chosen. No library permission is involved.
struct PickFeature: Sendable {
    let sessions: PickSessionStore
    let appNames: AppNameCache
    let catalog: Catalog
    let tokens: ProviderTokenStore
    /// Picks one app may have waiting for the owner at once.
    let pendingPicksPerApp: Int
    /// How long a pick waits for the owner before the app gets `timeout`.
    let pickTimeout: Duration
    /// Whether imports name places (the picker has its place table).
    let placeSearch: Bool
    let logger: Logger

    func register(in table: inout OperationTable) {
        table.later(Operations.pick) { try await startPick($0, $1, &$2, $3) }
        table.on(Operations.pendingPicks) { _, body, _ in try await pendingPicks(body) }
        table.on(Operations.listAssets) { _, body, _ in try await listAssets(body) }
        table.on(Operations.outline) { _, _, _ in try await outline() }
        table.on(Operations.choose) { _, body, _ in try await choose(body) }
        table.on(Operations.cancelPick) { _, body, _ in try await cancelPick(body) }
    }

    /// The audit facts of a pick's answer (`pick:answered`).
    static func pickAnswered(_ outcome: AuditOutcome, count: Int = 0) -> AuditFacts {
        AuditFacts(outcome, assetCount: count, detail: AuditOperation.PickStep.answered.rawValue)
    }

    func startPick(_ app: AppID, _ body: PickRequest, _ context: inout RequestContext, _ reply: LaterReply<PickResponse>) async throws {
        let configuration = body.configuration
        guard configuration.selectionLimit >= 0 else {
            throw LightboxError(.badRequest, "selectionLimit must be 0 (no limit) or more.")
        }
        try configuration.limits?.validate()
        guard let session = try await sessions.open(app: app.rawValue, appName: await appNames.name(of: app.rawValue), configuration: configuration,
                                                    reply: reply, limit: pendingPicksPerApp, timeout: pickTimeout) else {
            throw LightboxError(.busy, "App \(app) already has \(pendingPicksPerApp) picks waiting for the owner, its limit; wait for them to be answered.")
        }
        context.event(PickStarted(pick: session.id))
        context.audit(.waiting, assetCount: configuration.selectionLimit)
        logger.info("pick waiting for the owner", metadata: ["pick": "\(session.id)", "app": "\(app)"])
    }

    func pendingPicks(_ body: PendingPicksRequest) async throws -> PendingPicksResponse {
        await sessions.waitForPending(upTo: .milliseconds(min(max(body.waitMs ?? 0, 0), 60_000)))
        return PendingPicksResponse(picks: try await sessions.pending().map(\.pending))
    }

    func cancelPick(_ body: CancelPickRequest) async throws -> Empty {
        _ = try await cancel(body.pick)
        return Empty()
    }

    /// Ends a pending pick with no results (the owner cancelled, or the app that filed it, when
    /// `app` is given, withdrew it) and returns it.
    func cancel(_ pick: String, filedBy app: String? = nil) async throws -> PickSessionStore.Session {
        guard let session = try await sessions.answer(pick, with: .cancelled, filedBy: app) else { throw noSuchPick(pick) }
        return session
    }

    /// The name the owner's sheet shows for `app` (a desktop app's, as lightbox-portal gives it).
    func remember(name: String, of app: String) async {
        await appNames.remember(app, name: name)
    }

    func listAssets(_ body: ListAssetsRequest) async throws -> ListAssetsResponse {
        var filters: [PickerFilter] = []
        var session: PickSessionStore.Session?
        if let pick = body.pick {
            guard let found = try await sessions.session(pick) else { throw noSuchPick(pick) }
            session = found
            if let filter = found.configuration.filter { filters.append(filter) }
        }
        if let filter = body.filter { filters.append(filter) }
        let limit = min(max(body.limit ?? ListAssetsRequest.defaultLimit, 1), ListAssetsRequest.maximumLimit)
        let cursor = try body.after.map { text throws(LightboxError) in try LibraryCursor(decoding: text) }
        let page = try await catalog.page(filter: filters.isEmpty ? nil : filters.count == 1 ? filters[0] : .all(filters),
                                          browse: try OwnerBrowse(body), limit: limit, after: cursor)
        return ListAssetsResponse(assets: session.map { Self.markingMisfits(page.assets, of: $0) } ?? page.assets, next: page.next?.encoded)
    }

    /// A pick's page with what its limits leave out marked, and why: the page's own rows are
    /// checked (from columns the page reads anyway), so a page costs the same in any library.
    static func markingMisfits(_ assets: [AssetSummary], of session: PickSessionStore.Session) -> [AssetSummary] {
        guard let limits = session.configuration.limits, !limits.isEmpty else { return assets }
        return assets.map { asset in
            var marked = asset
            marked.unavailable = limits.misfit(of: asset, appName: session.shownName)
            return marked
        }
    }

    /// What the owner's sheet browses by. Two index reads for the span of dates, and the albums.
    func outline() async throws -> LibraryOutline {
        let (newest, oldest) = try await catalog.dateSpan()
        return LibraryOutline(albums: try await catalog.albums(), newest: newest, oldest: oldest, placeSearch: placeSearch)
    }

    func choose(_ body: ChooseRequest) async throws -> ChooseResponse {
        guard let session = try await sessions.session(body.pick) else { throw noSuchPick(body.pick) }
        let configuration = session.configuration
        guard !body.assets.isEmpty else {
            throw LightboxError(.badRequest, "Choose at least one asset, or cancel the pick (owner.cancel) to send the app no results.")
        }
        guard Set(body.assets).count == body.assets.count else {
            throw LightboxError(.badRequest, "Each asset can be chosen once.")
        }
        if configuration.selectionLimit > 0, body.assets.count > configuration.selectionLimit {
            throw LightboxError(.badRequest, "This pick allows at most \(configuration.selectionLimit) asset(s); \(body.assets.count) were chosen.")
        }
        // As the owner saw them: an app's edit is what the pick delivers.
        let found = try await catalog.currentVersions(of: body.assets)
        if let missing = body.assets.first(where: { found[$0] == nil }) {
            throw LightboxError(.notFound, "No asset \(missing) in the library.", details: ["asset": missing])
        }
        if let filter = configuration.filter, let excluded = body.assets.first(where: { !filter.matches(found[$0]!.traits) }) {
            throw LightboxError(.badRequest, "Asset \(excluded) does not match this pick's filter \(filter).", details: ["asset": excluded])
        }
        // What the sheet showed disabled is refused here too, however the choice was made.
        if let limits = configuration.limits {
            for identifier in body.assets {
                let asset = found[identifier]!.summary
                guard let misfit = limits.misfit(of: asset, appName: session.shownName) else { continue }
                throw LightboxError(.badRequest, "\(asset.fileName) cannot be chosen for this pick: \(misfit.reason) (limits.\(misfit.limit.rawValue)).",
                                    details: ["asset": identifier, "limit": misfit.limit.rawValue])
            }
        }
        var chosen = body.assets.map { found[$0]! }
        if configuration.selection == .default { chosen.sort(by: AssetRecord.precedesInLibrary) }
        // The owner may remove more metadata than the app asked, never less; and give it the
        // location it asked for, or less, never more.
        let removal = MetadataRemoval(stripping: max(configuration.stripMetadata, body.stripMetadata ?? .none),
                                      location: LocationAccess.granted(asked: configuration.location, chosen: body.location))
        let requests = chosen.map { asset in
            ProviderTokenStore.Request(asset: asset.identifier, types: Representations.registeredTypes(
                for: asset, mode: configuration.preferredAssetRepresentationMode, removing: removal))
        }
        // Every token is stored, in one transaction, before the session is answered: when issuing
        // fails, the owner is told and the app's pick still waits.
        let grants = try await tokens.issue(app: session.app, pick: session.id, requests, removal: removal)
        let results = zip(chosen, zip(requests, grants)).map { asset, issued in
            let (request, grant) = issued
            let provider = ItemProviderDescriptor(token: grant.token, registeredTypeIdentifiers: request.types,
                                                  suggestedName: asset.suggestedName, expiresAt: grant.expiresAt)
            return PickerResult(assetIdentifier: configuration.photoLibrary ? asset.identifier : nil, itemProvider: provider)
        }
        // A concurrent choose or cancel (at any picker) may have answered first: the tokens never
        // leave. When answering fails the answer may still have been committed, so the tokens stay
        // (unused, they expire).
        let sealed = try SealedPickResults(sealing: results, to: session.holderKey, pick: session.id)
        guard let claimed = try await sessions.answer(body.pick, with: .chosen(sealed)) else {
            try await tokens.discard(grants)
            throw noSuchPick(body.pick)
        }
        logger.info("pick completed", metadata: ["pick": "\(claimed.id)", "app": "\(claimed.app)", "count": "\(results.count)"])
        return ChooseResponse(delivered: results.count)
    }

    func noSuchPick(_ pick: String) -> LightboxError {
        LightboxError(.notFound, "No pending pick \(pick); it may have been answered, cancelled or timed out.", details: ["pick": pick])
    }
}
