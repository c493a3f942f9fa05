import LightboxProtocol

/// PhotoKit's rules, as pure functions of an app's stored statuses: what each library action may
/// do, and when a request may prompt. The only place these rules live.
enum AccessPolicy {
    /// `PHPhotoLibrary.authorizationStatus()` without a level reports limited as authorized.
    static func legacyStatus(readWrite: AuthorizationStatus) -> AuthorizationStatus {
        readWrite == .limited ? .authorized : readWrite
    }

    /// Adding is allowed when addOnly is authorized, or readWrite is authorized or limited.
    static func canAdd(readWrite: AuthorizationStatus, addOnly: AuthorizationStatus) -> Bool {
        addOnly == .authorized || readWrite == .authorized || readWrite == .limited
    }

    static func decide(_ action: LibraryAction, readWrite: AuthorizationStatus, addOnly: AuthorizationStatus) -> LibraryDecision {
        switch action {
        case .read:
            // Reading never fails: without access it finds nothing, as PHAsset fetches do on iOS.
            switch readWrite {
            case .authorized: return LibraryDecision(allowed: true, scope: .all, status: readWrite)
            case .limited: return LibraryDecision(allowed: true, scope: .selection, status: readWrite)
            default: return LibraryDecision(allowed: true, scope: .none, status: readWrite)
            }
        case .add:
            guard canAdd(readWrite: readWrite, addOnly: addOnly) else {
                return LibraryDecision(allowed: false, scope: .none, status: readWrite,
                                       reason: "Adding needs add-only or read-write access; request it with auth.request.")
            }
            return LibraryDecision(allowed: true, scope: .none, status: addOnly == .authorized ? addOnly : readWrite)
        case .delete, .edit:
            // Changing what is there (deleting, PhotoKit's content editing) needs read-write access,
            // within the selection when limited; add-only access adds, never changes.
            switch readWrite {
            case .authorized: return LibraryDecision(allowed: true, scope: .all, status: readWrite)
            case .limited: return LibraryDecision(allowed: true, scope: .selection, status: readWrite)
            default:
                return LibraryDecision(allowed: false, scope: .none, status: readWrite,
                                       reason: "\(action == .delete ? "Deleting" : "Editing") needs read-write access (status: \(readWrite)).")
            }
        case .listAlbums, .createAlbum:
            guard readWrite == .authorized else {
                let reason = readWrite == .limited
                    ? "Albums cannot be listed or created with limited access."
                    : "Albums need full read-write access (status: \(readWrite))."
                return LibraryDecision(allowed: false, scope: .none, status: readWrite, reason: reason)
            }
            return LibraryDecision(allowed: true, scope: .all, status: readWrite)
        }
    }

    /// The status an owner's answer to an authorization prompt sets, or nil if it does not fit the level.
    static func status(for answer: PromptAnswer, level: AccessLevel) -> AuthorizationStatus? {
        switch (level, answer) {
        case (.readWrite, .full): .authorized
        case (.readWrite, .limited): .limited
        case (.addOnly, .allow): .authorized
        case (_, .deny): .denied
        default: nil
        }
    }

    static func status(for setting: SetAccessRequest.ReadWrite) -> AuthorizationStatus {
        switch setting {
        case .full: .authorized
        case .limited: .limited
        case .none: .denied
        case .restricted: .restricted
        }
    }

    static func status(for setting: SetAccessRequest.AddOnly) -> AuthorizationStatus {
        switch setting {
        case .allow: .authorized
        case .none: .denied
        case .restricted: .restricted
        }
    }
}

// MARK: - Location with library access

extension AccessPolicy {
    /// The location an app's library reads deliver: what the owner gave, while the app may read
    /// the library at all (a grant that ended or was reset takes its location with it).
    static func location(granted: LocationAccess, readWrite: AuthorizationStatus) -> LocationAccess {
        readWrite == .authorized || readWrite == .limited ? granted : .none
    }

    /// Whether asking for `asked` with library access that is already decided prompts the owner
    /// about the location alone: only for more than the app asked before (each request asked
    /// once, like the levels), and only while it has read access to give it with. (While readWrite
    /// is notDetermined, its own prompt asks both.)
    static func promptsForLocation(asked: LocationAccess, requested: LocationAccess?, readWrite: AuthorizationStatus) -> Bool {
        asked > (requested ?? LocationAccess.none) && (readWrite == .authorized || readWrite == .limited)
    }

    /// What the owner's answer to a prompt that asked for `asked` gives: the owner's choice, never
    /// more than asked; a denial, or an answer that names none, gives none.
    static func location(answering answer: PromptAnswer, asked: LocationAccess, chosen: LocationAccess?) -> LocationAccess {
        answer == .deny ? .none : LocationAccess.granted(asked: asked, chosen: chosen)
    }
}
