import Foundation
import LightboxProtocol
import LightboxTransport
import Logging

/// Edits with the original kept, as PhotoKit's content editing: an app with read-write access
/// saves an edited version of an asset it may see (`library.edit`, with its adjustment data),
/// reads back what the current version is (`library.editingInput`) and returns an asset to its
/// original (`library.revert`); the owner can revert any edit (`owner.revert`). Whether an app
/// may edit is lightbox-auth's decision (`LibraryAction.edit`); the edited file is taken in as an
/// import takes a file (`LibraryImporter.storeEdit`). Every edit and revert is a library change.
struct EditsFeature: Sendable {
    let catalog: Catalog
    let access: LibraryAccess
    let importer: LibraryImporter
    let appNames: AppNameCache
    let logger: Logger

    func register(in table: inout OperationTable) {
        table.on(Operations.editAsset) { try await edit($0, $1, &$2) }
        table.on(Operations.revertAsset) { try await revert($0, $1, &$2) }
        table.on(Operations.editingInput) { try await editingInput($0, $1, &$2) }
        table.on(Operations.ownerRevert) { _, body, context in try await ownerRevert(body, &context) }
    }

    func edit(_ app: AppID, _ body: EditAssetRequest, _ context: inout RequestContext) async throws -> EditingInput {
        guard context.attachments.count == 1, let bytes = context.attachments.first, !bytes.isEmpty else {
            throw LightboxError(.badRequest, "library.edit needs the edited photo or movie as one binary frame after the header.")
        }
        try body.adjustment.validate()
        let original = try await editableAsset(body.asset, app: app, context: context)
        let stored = try await importer.storeEdit(bytes, of: original)
        let edit = AssetEdit(asset: original.identifier, contentHash: stored.contentHash, storedPath: stored.storedPath,
                             type: stored.metadata.type, pixelWidth: stored.metadata.pixelWidth, pixelHeight: stored.metadata.pixelHeight,
                             duration: stored.metadata.duration, fileSize: stored.size,
                             properties: String(decoding: (try? JSONEncoder().encode(stored.metadata.imageProperties)) ?? Data("{}".utf8), as: UTF8.self),
                             app: app.rawValue, appName: await appNames.name(of: app.rawValue), adjustment: body.adjustment, editedAt: Date())
        try await catalog.save(edit)
        logger.info("asset edited", metadata: ["app": "\(app)", "asset": "\(original.identifier)", "format": "\(body.adjustment.format)"])
        context.audit(.edited, assetCount: 1, asset: original.identifier)
        return EditingInput(asset: original.identifier, edit: edit.version)
    }

    func revert(_ app: AppID, _ body: AssetRequest, _ context: inout RequestContext) async throws -> RevertResponse {
        let asset = try await editableAsset(body.asset, app: app, context: context)
        let reverted = try await catalog.revert(asset.identifier)
        if reverted != nil { logger.info("asset reverted", metadata: ["app": "\(app)", "asset": "\(asset.identifier)"]) }
        context.audit(reverted != nil ? .reverted : .ok, assetCount: 1, asset: asset.identifier)
        return RevertResponse(reverted: reverted != nil)
    }

    /// PHContentEditingInput: the current version's adjustment data, for an app to continue an
    /// edit from the original (`image.request` with `version: original`) or to start anew.
    func editingInput(_ app: AppID, _ body: AssetRequest, _ context: inout RequestContext) async throws -> EditingInput {
        let asset = try await access.visibleAsset(body.asset, app: app, context: context)
        let edit = try await catalog.edit(of: asset.identifier)
        context.audit(.delivered, assetCount: 1, asset: asset.identifier)
        return EditingInput(asset: asset.identifier, edit: edit?.version)
    }

    /// The owner returns an asset to its original; audited under the app whose edit it undid.
    func ownerRevert(_ body: AssetRequest, _ context: inout RequestContext) async throws -> RevertResponse {
        guard try await catalog.asset(body.asset) != nil else {
            throw LightboxError(.notFound, "No asset \(body.asset) in the library.", details: ["asset": body.asset])
        }
        guard let reverted = try await catalog.revert(body.asset) else { return RevertResponse(reverted: false) }
        logger.info("asset reverted by the owner", metadata: ["asset": "\(body.asset)", "editedBy": "\(reverted.app)"])
        context.audit(AuditFacts(.reverted, assetCount: 1, asset: body.asset, app: reverted.app))
        return RevertResponse(reverted: true)
    }

    /// An asset the app may change, as auth decided (everything with full access, the selection
    /// when limited); refused without read-write access, `notFound` when the app cannot see it.
    private func editableAsset(_ identifier: String, app: AppID, context: RequestContext) async throws -> AssetRecord {
        let view = try await access.view(.edit, for: app, on: context, assetCount: 1)
        guard view.isAllowed else { throw LightboxError(.notAuthorized, view.decision.reason ?? "This app may not edit assets.") }
        guard try await view.canSee(identifier), let asset = try await catalog.asset(identifier) else {
            throw LightboxError(.notFound, "No asset \(identifier) is visible to this app.", details: ["asset": identifier])
        }
        return asset
    }
}

extension AdjustmentData {
    /// Checks what the app said about its edit: a format and version of 1 to 200 characters
    /// without control characters, and at most 64 KiB of data.
    func validate() throws(LightboxError) {
        for (field, value) in [("format", format), ("version", version)] {
            guard !value.isEmpty, value.count <= Self.maximumNameLength,
                  !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw LightboxError(.badRequest, "The adjustment's \(field) must be 1 to \(Self.maximumNameLength) characters, without control characters.")
            }
        }
        guard data.count <= Self.maximumDataBytes else {
            throw LightboxError(.badRequest, "The adjustment data may be at most \(Self.maximumDataBytes) bytes; it is \(data.count).")
        }
    }
}
