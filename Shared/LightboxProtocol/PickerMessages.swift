import Foundation

/// PHPickerConfiguration, as an app sends it with `picker.pick`.
public struct PickerConfiguration: Codable, Hashable, Sendable {
    public enum Selection: String, Codable, Sendable { case `default`, ordered }
    public enum RepresentationMode: String, Codable, Sendable { case automatic, current, compatible }

    /// How many assets the owner may choose; 0 means no limit.
    public var selectionLimit: Int
    public var filter: PickerFilter?
    public var selection: Selection
    public var preselectedAssetIdentifiers: [String]
    public var preferredAssetRepresentationMode: RepresentationMode
    /// Bound to the photo library: only then do results carry `assetIdentifier`.
    public var photoLibrary: Bool
    /// Metadata to remove from delivered images (the owner may remove more when choosing).
    public var stripMetadata: MetadataStripping
    /// What may be delivered beyond the filter (size, pixels, duration, kinds); what does not fit
    /// is shown to the owner disabled, with the reason, and refused at `owner.choose`.
    public var limits: SelectionLimits?
    /// Where the picked items were taken, as the app asks for it; the owner decides what it gets.
    public var location: LocationAccess

    public init(
        selectionLimit: Int = 1, filter: PickerFilter? = nil, selection: Selection = .default,
        preselectedAssetIdentifiers: [String] = [], preferredAssetRepresentationMode: RepresentationMode = .automatic,
        photoLibrary: Bool = false, stripMetadata: MetadataStripping = .none, limits: SelectionLimits? = nil, location: LocationAccess = .none
    ) {
        self.selectionLimit = selectionLimit
        self.filter = filter
        self.selection = selection
        self.preselectedAssetIdentifiers = preselectedAssetIdentifiers
        self.preferredAssetRepresentationMode = preferredAssetRepresentationMode
        self.photoLibrary = photoLibrary
        self.stripMetadata = stripMetadata
        self.limits = limits
        self.location = location
    }

    // Every field may be left out and takes PhotoKit's default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        selectionLimit = try c.decodeIfPresent(Int.self, forKey: .selectionLimit) ?? 1
        filter = try c.decodeIfPresent(PickerFilter.self, forKey: .filter)
        selection = try c.decodeIfPresent(Selection.self, forKey: .selection) ?? .default
        preselectedAssetIdentifiers = try c.decodeIfPresent([String].self, forKey: .preselectedAssetIdentifiers) ?? []
        preferredAssetRepresentationMode =
            try c.decodeIfPresent(RepresentationMode.self, forKey: .preferredAssetRepresentationMode) ?? .automatic
        photoLibrary = try c.decodeIfPresent(Bool.self, forKey: .photoLibrary) ?? false
        stripMetadata = try c.decodeIfPresent(MetadataStripping.self, forKey: .stripMetadata) ?? .none
        limits = try c.decodeIfPresent(SelectionLimits.self, forKey: .limits)
        location = try c.decodeIfPresent(LocationAccess.self, forKey: .location) ?? .none
    }
}

public struct PickRequest: Codable, Sendable {
    public var configuration: PickerConfiguration
    public init(configuration: PickerConfiguration) { self.configuration = configuration }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        configuration = try c.decodeIfPresent(PickerConfiguration.self, forKey: .configuration) ?? PickerConfiguration()
    }
}

/// Sent as an `event` reply as soon as the pick session exists, so the app can show or log it.
public struct PickStarted: Codable, Sendable, Hashable {
    public var event: String
    public var pick: String
    public init(pick: String) {
        self.event = "pickStarted"
        self.pick = pick
    }
}

/// An item provider as the app holds it: an opaque token and the types it can load as.
public struct ItemProviderDescriptor: Codable, Hashable, Sendable {
    public var token: String
    public var registeredTypeIdentifiers: [UTType]
    public var suggestedName: String?
    public var expiresAt: Date

    public init(token: String, registeredTypeIdentifiers: [UTType], suggestedName: String?, expiresAt: Date) {
        self.token = token
        self.registeredTypeIdentifiers = registeredTypeIdentifiers
        self.suggestedName = suggestedName
        self.expiresAt = expiresAt
    }
}

/// One picked asset (PHPickerResult).
public struct PickerResult: Codable, Hashable, Sendable {
    /// Set only when the configuration was bound to the photo library.
    public var assetIdentifier: String?
    public var itemProvider: ItemProviderDescriptor

    public init(assetIdentifier: String?, itemProvider: ItemProviderDescriptor) {
        self.assetIdentifier = assetIdentifier
        self.itemProvider = itemProvider
    }
}

/// The final `ok` body of `picker.pick`; `results` is empty when the owner cancelled.
public struct PickResponse: Codable, Sendable, Hashable {
    public var pick: String
    public var results: [PickerResult]
    public init(pick: String, results: [PickerResult]) {
        self.pick = pick
        self.results = results
    }
}
