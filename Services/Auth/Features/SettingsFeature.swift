import Foundation
import LightboxProtocol
import LightboxTransport
import Logging

/// The owner's settings per app: every app's access, one app's with its selection, and changes to it.
struct SettingsFeature: Sendable {
    let store: any AuthStorage
    let registry: AppRegistry
    let accessChanges: AccessChanges
    let grantTerms: GrantTerms

    func register(in table: inout OperationTable) {
        table.on(Operations.appAccess) { _, _, _ in try await listAppAccess() }
        table.on(Operations.setAccess) { _, body, _ in try await setAccess(body) }
        table.on(Operations.accessDetail) { _, body, _ in try await accessDetail(of: body.app) }
    }

    func listAppAccess() async throws -> AppAccessListResponse {
        var list: [AppAccess] = []
        for app in try await registry.apps() { list.append(try await appAccess(app)) }
        // Desktop apps have no library access to set: only their picks, which the owner may revoke.
        for app in try await registry.desktopApps() {
            list.append(AppAccess(app: app.app, name: app.name, readWrite: .restricted, addOnly: .restricted, selectionCount: 0, portal: true))
        }
        return AppAccessListResponse(apps: list)
    }

    func setAccess(_ body: SetAccessRequest) async throws -> SetAccessResponse {
        guard let manifest = try await registry.app(withID: body.app) else {
            throw LightboxError(.notFound, "No app \(body.app) is registered; see lightbox app list.")
        }
        let app = body.app
        let auditLine: AuthorizationStore.AuditLine = { applied in
            AuditEntry(app: app, operation: .settings, assetCount: applied.selectionCount,
                       outcome: .settings(readWrite: applied.access.readWrite, addOnly: applied.access.addOnly), at: Date())
        }
        // Everything the request names is checked before anything is stored: a refused request
        // changes nothing, the location included.
        let albums = try AuthorizationStore.validatedAlbums(body.albums)
        let term = try body.term.map(GrantTerms.validated)
        // The location first: the status changes announced next make the picker read both.
        if let location = body.location {
            let setting = try await store.location(of: app)
            let granted = LocationAccess.granted(asked: setting.requested ?? LocationAccess.none, chosen: location)
            if granted != setting.granted {
                try await store.setLocation(of: app, granted: granted,
                                            auditLine: AuditEntry(app: app, operation: .locationSettings, outcome: .location(granted), at: Date()))
                await accessChanges.announceLocation(of: app)
            }
        }
        var changes: [AuthorizationChange]
        if body.reset == true {
            changes = try await store.reset(app, auditLine: auditLine)
        } else {
            var update = AuthorizationStore.Update()
            update.readWrite = body.readWrite.map(AccessPolicy.status(for:))
            update.addOnly = body.addOnly.map(AccessPolicy.status(for:))
            update.selection = body.selection
            update.albums = albums
            update.term = term
            changes = try await store.apply(update, to: app, auditLine: auditLine)
            if let term = update.term { await grantTerms.granted(until: term.until) }
        }
        await accessChanges.publish(changes)
        let access = try await appAccess(manifest)
        return SetAccessResponse(access: access, token: try await store.latestToken(of: body.app))
    }

    func accessDetail(of app: String) async throws -> AccessDetail {
        guard let manifest = try await registry.app(withID: app) else {
            throw LightboxError(.notFound, "No app \(app) is registered; see lightbox app list.")
        }
        let access = try await store.access(of: app)
        return AccessDetail(access: try await appAccess(manifest), usageReadWrite: manifest.usageReadWrite,
                            usageAddOnly: manifest.usageAddOnly, selection: access.selection)
    }

    func appAccess(_ manifest: AppManifest) async throws -> AppAccess {
        let access = try await store.access(of: manifest.id, includingSelection: false)
        let albums = try await store.followedAlbums(of: manifest.id)
        let location = try await store.location(of: manifest.id)
        return AppAccess(app: manifest.id, name: manifest.name, readWrite: access.readWrite, addOnly: access.addOnly,
                         selectionCount: try await store.selectionCount(of: manifest.id), readWriteTerm: access.readWriteTerm,
                         addOnlyTerm: access.addOnlyTerm, resetAsUnusedSince: try await store.unusedResetSince(of: manifest.id),
                         albums: albums.isEmpty ? nil : albums, location: location.granted, locationRequested: location.requested)
    }
}
