import Foundation
import LightboxProtocol

/// How the scripted owner answers picks (a JSON file; see `lightbox user auto --help`).
struct OwnerPolicy: Codable, Sendable {
    enum Action: String, Codable, Sendable { case choose, cancel }
    enum Strategy: String, Codable, Sendable { case newest, oldest, named }

    var action: Action
    var strategy: Strategy?
    /// How many to choose; by default the pick's limit (all candidates when it has none).
    var count: Int?
    /// File names to choose with the `named` strategy, in this order.
    var files: [String]?
    /// Rules for particular apps, by app id.
    var apps: [String: OwnerPolicy]?

    enum Decision: Equatable { case choose([String]), cancel }

    static func load(from url: URL) throws -> OwnerPolicy {
        do {
            return try JSONDecoder().decode(OwnerPolicy.self, from: Data(contentsOf: url))
        } catch {
            throw LightboxError(.badRequest, "Cannot read the policy \(url.path): \(error). Example: {\"action\":\"choose\",\"strategy\":\"newest\",\"count\":1}")
        }
    }

    /// Candidates come in library order (newest first) and already pass the pick's filter.
    func decide(_ pick: PendingPick, candidates: [AssetSummary]) -> Decision {
        if let rule = apps?[pick.app] { return rule.decide(pick, candidates: candidates) }
        guard action == .choose else { return .cancel }
        let limit = pick.configuration.selectionLimit
        let wanted = min(count ?? (limit == 0 ? candidates.count : limit), limit == 0 ? Int.max : limit)
        let chosen: [AssetSummary]
        switch strategy ?? .newest {
        case .newest: chosen = Array(candidates.prefix(wanted))
        case .oldest: chosen = Array(candidates.reversed().prefix(wanted))
        case .named:
            let byName = Dictionary(candidates.map { ($0.fileName, $0) }, uniquingKeysWith: { first, _ in first })
            chosen = Array((files ?? []).compactMap { byName[$0] }.prefix(wanted))
        }
        return chosen.isEmpty ? .cancel : .choose(chosen.map(\.identifier))
    }
}
