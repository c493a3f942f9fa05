import LightboxProtocol

/// Why a pick's limits leave an asset out, in the page's language: the picker decides and says it
/// in English (`AssetSummary.unavailable`); the surface says the same reason again with the same
/// wording (`SelectionLimits.reason`) through its table, so the page's script shows it as it comes.
enum UnavailableWording {
    static func page(_ page: ListAssetsResponse, of pick: OwnerFeed.PickView?, strings: SurfaceStrings) -> ListAssetsResponse {
        guard strings.language != .english, let pick, let limits = pick.configuration.limits else { return page }
        var page = page
        page.assets = page.assets.map { asset in
            guard let misfit = asset.unavailable else { return asset }
            var said = asset
            said.unavailable?.reason = limits.reason(for: misfit, of: asset, appName: pick.appName, wording: { strings($0, $1) })
            return said
        }
        return page
    }
}
