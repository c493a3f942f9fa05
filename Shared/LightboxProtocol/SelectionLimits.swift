import Foundation

/// What a pick may deliver beyond its filter, as Android's PhotoPickerSelectionParams says it:
/// "at most 20 MB, at least 1080 px, at most 60 s, photos only". Unlike the filter, which hides what
/// it leaves out, limits show the owner what does not fit, disabled with the reason
/// (`SelectionMisfit`), and `owner.choose` refuses it. Every field is optional; an absent one does
/// not limit.
///
/// Pixels are counted on a side, whatever the orientation: `minPixels` holds the shorter side,
/// `maxPixels` the longer one, so "at least 1080 px" takes 1920 × 1080 and 1080 × 1920 and refuses
/// 1280 × 720.
public struct SelectionLimits: Codable, Hashable, Sendable {
    /// The largest original, in bytes: the file as the library stores it (`fileSize` of
    /// `owner.assets`; a Live Photo's movie is not counted).
    public var maxFileSize: Int64?
    /// The fewest pixels on the shorter side.
    public var minPixels: Int?
    /// The most pixels on the longer side.
    public var maxPixels: Int?
    /// The longest video, in seconds. Stills, animated images and Live Photos are not held to it.
    public var maxDuration: Double?
    /// The kinds that may be chosen (`image`, `video`); nil takes both.
    public var mediaTypes: [MediaType]?

    /// The largest side a pixel limit may name: past it no photo or video fits, and the value is
    /// more likely a pixel count than a side.
    public static let maximumSide = 100_000

    public init(maxFileSize: Int64? = nil, minPixels: Int? = nil, maxPixels: Int? = nil, maxDuration: Double? = nil,
                mediaTypes: [MediaType]? = nil) {
        self.maxFileSize = maxFileSize
        self.minPixels = minPixels
        self.maxPixels = maxPixels
        self.maxDuration = maxDuration
        self.mediaTypes = mediaTypes
    }

    /// Whether any limit is set.
    public var isEmpty: Bool {
        maxFileSize == nil && minPixels == nil && maxPixels == nil && maxDuration == nil && mediaTypes == nil
    }

    /// Refuses values no asset could meet or that say something else than they seem to, with
    /// `badRequest` naming the field and what it takes.
    public func validate() throws(LightboxError) {
        func refuse(_ message: String) -> LightboxError { LightboxError(.badRequest, message) }
        if let maxFileSize, maxFileSize < 1 {
            throw refuse("limits.maxFileSize is the largest file the app takes, in bytes: 1 or more (20 MB is 20000000).")
        }
        for (name, value) in [("minPixels", minPixels), ("maxPixels", maxPixels)] {
            if let value, !(1...Self.maximumSide).contains(value) {
                throw refuse("limits.\(name) is a side in pixels, 1 to \(Self.maximumSide) (1080 for \"at least 1080 px\"); \(value) is not.")
            }
        }
        if let minPixels, let maxPixels, minPixels > maxPixels {
            throw refuse("limits.minPixels (\(minPixels), the shorter side) is more than limits.maxPixels (\(maxPixels), the longer side): nothing could fit.")
        }
        if let maxDuration, !(maxDuration > 0 && maxDuration.isFinite) {
            throw refuse("limits.maxDuration is the longest video the app takes, in seconds: more than 0 (60 for a minute).")
        }
        if let mediaTypes, mediaTypes.isEmpty {
            throw refuse("limits.mediaTypes must name at least one kind, image or video; leave it out to take both.")
        }
    }

    /// Why `asset` does not fit, or nil when it does: the first limit it misses, in the order
    /// kind, file size, pixels, duration. A size or duration the library does not know does not
    /// fit a limit on it: what cannot be checked is not delivered.
    public func misfit(of asset: AssetSummary, appName: String) -> SelectionMisfit? {
        guard let missed = missedLimit(of: asset) else { return nil }
        var misfit = SelectionMisfit(limit: missed.limit, actual: missed.actual, allowed: missed.allowed, reason: "")
        misfit.reason = reason(for: misfit, of: asset, appName: appName)
        return misfit
    }

    private func missedLimit(of asset: AssetSummary) -> (limit: SelectionMisfit.Limit, actual: Double?, allowed: Double?)? {
        if let mediaTypes, !mediaTypes.contains(asset.mediaType) { return (.mediaTypes, nil, nil) }
        if let maxFileSize, asset.fileSize > maxFileSize { return (.maxFileSize, Double(asset.fileSize), Double(maxFileSize)) }
        // (shorter, longer); nil when the library does not know the size.
        var sides: (shorter: Int, longer: Int)?
        if let width = asset.pixelWidth, let height = asset.pixelHeight, width > 0, height > 0 {
            sides = (min(width, height), max(width, height))
        }
        if let minPixels, (sides.map { $0.shorter < minPixels } ?? true) {
            return (.minPixels, sides.map { Double($0.shorter) }, Double(minPixels))
        }
        if let maxPixels, (sides.map { $0.longer > maxPixels } ?? true) {
            return (.maxPixels, sides.map { Double($0.longer) }, Double(maxPixels))
        }
        if let maxDuration, asset.mediaType == .video {
            let duration = asset.duration.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            if duration.map({ $0 > maxDuration }) ?? true { return (.maxDuration, duration, maxDuration) }
        }
        return nil
    }

    /// The limits in words, one part each, for the sheet to say what the app takes ("photos
    /// only", "files up to 20 MB", "at least 1080 px on the shorter side", "videos up to 1:00").
    public func summary(wording: SelectionMisfit.Wording = SelectionMisfit.english) -> [String] {
        var parts: [String] = []
        if mediaTypes == [.image] { parts.append(wording("photos only", [:])) }
        if mediaTypes == [.video] { parts.append(wording("videos only", [:])) }
        if let maxFileSize { parts.append(wording("files up to {size}", ["size": SelectionMisfit.bytes(Double(maxFileSize), precise: false)])) }
        if let minPixels { parts.append(wording("at least {limit} px on the shorter side", ["limit": "\(minPixels)"])) }
        if let maxPixels { parts.append(wording("at most {limit} px on the longer side", ["limit": "\(maxPixels)"])) }
        if let maxDuration, mediaTypes != [.image] {
            parts.append(wording("videos up to {duration}", ["duration": SelectionMisfit.duration(maxDuration, precise: false)]))
        }
        return parts
    }

    /// `misfit` in words for the owner ("Too large for Postcard Maker: 48 MB of 20 MB"), through
    /// `wording`: English by default; the owner's surface passes its table for the page's language.
    public func reason(for misfit: SelectionMisfit, of asset: AssetSummary, appName: String,
                       wording: SelectionMisfit.Wording = SelectionMisfit.english) -> String {
        let limit = misfit.allowed ?? 0, side = "\(Int(limit))"
        let size = ["width": "\(asset.pixelWidth ?? 0)", "height": "\(asset.pixelHeight ?? 0)", "limit": side]
        switch misfit.limit {
        case .mediaTypes:
            return wording(mediaTypes == [.video] ? "{app} takes videos only" : "{app} takes photos only", ["app": appName])
        case .maxFileSize:
            let (actual, allowed) = SelectionMisfit.apart(misfit.actual ?? 0, limit, SelectionMisfit.bytes)
            return wording("Too large for {app}: {size} of {limit}", ["app": appName, "size": actual, "limit": allowed])
        case .minPixels where misfit.actual == nil:
            return wording("Size unknown: {app} needs at least {limit} px", ["app": appName, "limit": side])
        case .minPixels:
            return wording("Too small: {width} × {height}, at least {limit} px", size)
        case .maxPixels where misfit.actual == nil:
            return wording("Size unknown: {app} takes at most {limit} px", ["app": appName, "limit": side])
        case .maxPixels:
            return wording("Too large: {width} × {height}, at most {limit} px", size)
        case .maxDuration where misfit.actual == nil:
            return wording("Length unknown: {app} takes at most {limit}",
                           ["app": appName, "limit": SelectionMisfit.duration(limit, precise: false)])
        case .maxDuration:
            let (actual, allowed) = SelectionMisfit.apart(misfit.actual ?? 0, limit, SelectionMisfit.duration)
            return wording("Too long: {duration} of {limit}", ["duration": actual, "limit": allowed])
        }
    }
}
