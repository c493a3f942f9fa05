import Foundation
import LightboxProtocol

/// How the scripted owner answers picks and prompts (a JSON file; see `lightbox user auto --help`).
struct OwnerPolicy: Codable, Sendable {
    enum Action: String, Codable, Sendable { case choose, cancel }

    var action: Action
    var strategy: AssetChoice.Strategy?
    /// How many to choose; by default the pick's limit (all candidates when it has none).
    var count: Int?
    /// File names to choose with the `named` strategy, in this order.
    var files: [String]?
    /// Rules for particular apps, by app id.
    var apps: [String: OwnerPolicy]?
    /// How to answer authorization prompts and the limited-library picker; absent = leave them open.
    var prompts: PromptPolicy?
    /// The location a chosen pick gives the app when it asks for one (never more than asked); absent: none.
    var location: LocationAccess?

    enum Decision: Equatable { case choose([String]), cancel }

    static func load(from url: URL) throws -> OwnerPolicy {
        do {
            return try JSONDecoder().decode(OwnerPolicy.self, from: Data(contentsOf: url))
        } catch {
            throw LightboxError(.badRequest, "Cannot read the policy \(url.path): \(error). Example: {\"action\":\"choose\",\"strategy\":\"newest\",\"count\":1}")
        }
    }

    func rule(for app: String) -> OwnerPolicy { apps?[app] ?? self }

    /// Candidates come in library order (newest first) and already pass the pick's filter; those
    /// the pick's limits leave out are never chosen, as the sheet never lets the owner.
    func decide(_ pick: PendingPick, candidates: [AssetSummary]) -> Decision {
        let rule = rule(for: pick.app)
        guard rule.action == .choose else { return .cancel }
        let limit = pick.configuration.selectionLimit
        let choice = AssetChoice(strategy: rule.strategy, count: rule.count ?? (limit == 0 ? nil : limit), files: rule.files)
        let chosen = Array(choice.resolve(candidates.filter { $0.unavailable == nil }).prefix(limit == 0 ? Int.max : limit))
        return chosen.isEmpty ? .cancel : .choose(chosen)
    }
}

/// Answers for prompts: `{"readWrite":"limited","addOnly":"allow","selection":{"files":["harbour.jpg"]},"expand":{"strategy":"newest","count":1},"delete":"deny"}`.
struct PromptPolicy: Codable, Sendable {
    /// full, limited or deny.
    var readWrite: PromptAnswer?
    /// allow or deny.
    var addOnly: PromptAnswer?
    /// The selection given with `limited`.
    var selection: AssetChoice?
    /// What the limited-library picker adds to the current selection.
    var expand: AssetChoice?
    /// allow or deny an app's request to delete assets (left open when absent).
    var delete: PromptAnswer?
    /// The location given to prompts that ask for one (with readWrite, or alone, answered allow);
    /// absent: none, and a location prompt is left open.
    var location: LocationAccess?

    /// The answer and selection for a prompt, or nil to leave it open.
    func answer(_ prompt: OwnerPrompt, catalog: [AssetSummary]) -> (PromptAnswer, [String]?)? {
        switch prompt.kind {
        case .authorization:
            guard let answer = prompt.level == .addOnly ? addOnly : readWrite else { return nil }
            return (answer, answer == .limited ? (selection ?? AssetChoice()).resolve(catalog) : nil)
        case .limitedLibrary:
            guard let expand else { return nil }
            let current = Set(prompt.selection)
            return (.done, prompt.selection + expand.resolve(catalog.filter { !current.contains($0.identifier) }))
        case .deleteAssets:
            return delete.map { ($0, nil) }
        case .location:
            return location.map { _ in (.allow, nil) }
        }
    }
}

/// Which assets to choose from a list in library order (newest first).
struct AssetChoice: Codable, Sendable {
    enum Strategy: String, Codable, Sendable { case newest, oldest, named }

    var strategy: Strategy?
    /// How many (default: one; all of `files` with `named`).
    var count: Int?
    var files: [String]?

    init(strategy: Strategy? = nil, count: Int? = nil, files: [String]? = nil) {
        self.strategy = strategy
        self.count = count
        self.files = files
    }

    func resolve(_ candidates: [AssetSummary]) -> [String] {
        let strategy = self.strategy ?? (files == nil ? .newest : .named)
        switch strategy {
        case .newest: return candidates.prefix(count ?? 1).map(\.identifier)
        case .oldest: return candidates.reversed().prefix(count ?? 1).map(\.identifier)
        case .named:
            let byName = Dictionary(candidates.map { ($0.fileName, $0) }, uniquingKeysWith: { first, _ in first })
            return (files ?? []).compactMap { byName[$0]?.identifier }.prefix(count ?? Int.max).map { $0 }
        }
    }
}
