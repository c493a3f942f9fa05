import ArgumentParser
import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxProtocol

extension SetAccessRequest.ReadWrite: ExpressibleByArgument {}
extension SetAccessRequest.AddOnly: ExpressibleByArgument {}
extension PromptAnswer: ExpressibleByArgument {}
extension AccessLevel: ExpressibleByArgument {}
extension MediaType: ExpressibleByArgument {}
extension TimeSpan: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

/// The owner's terminal surface.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "The owner's surface: answer picks, revoke tokens, run a scripted owner.",
        subcommands: [
            Pending.self, Assets.self, Choose.self, Cancel.self, Revoke.self, Apps.self, Access.self, Prompts.self,
            Answer.self, Audit.self, Auto.self, Login.self, Albums.self,
        ])

    struct Pending: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List picks waiting for you.")
        @OptionGroup var services: ServiceOptions
        @Option(help: "Seconds to wait for a pick when none is pending.") var wait = 0

        func run() async throws {
            let picks = try await services.pickerAsOwner().pendingPicks(waitingUpTo: .seconds(wait))
            if picks.isEmpty { note("no pending picks") }
            for pick in picks {
                let configuration = pick.configuration
                let limit = configuration.selectionLimit == 0 ? "no limit" : "up to \(configuration.selectionLimit)"
                print("\(pick.pick)\t\(pick.appName ?? pick.app) (\(pick.app))\t\(limit)\tfilter: \(configuration.filter?.description ?? "none")")
            }
        }
    }

    struct Assets: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the library, or what a pending pick may offer.")
        @OptionGroup var services: ServiceOptions
        @Option(help: "Only what this pick's filter lets through.") var pick: String?

        func run() async throws {
            for asset in try await services.pickerAsOwner().assets(for: pick) { print(describe(asset)) }
        }
    }

    struct Choose: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Complete a pick with these assets, in this order.")
        @OptionGroup var services: ServiceOptions
        @Argument(help: "The pick id from `lightbox user pending`.") var pick: String
        @Argument(help: "Asset identifiers from `lightbox user assets`.") var assets: [String]
        @Option(help: "Remove metadata from what the app gets: location or all (at least what the app asked).")
        var strip: MetadataStripping?
        @Option(help: "Where the items were taken, when the app asks: none, approximate or precise (never more than it asks; default none).")
        var location: LocationAccess?

        func run() async throws {
            let delivered = try await services.pickerAsOwner().choose(assets, for: pick, stripMetadata: strip, location: location)
            print("delivered \(delivered) item(s) to the app")
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Dismiss a pick: the app gets no results.")
        @OptionGroup var services: ServiceOptions
        @Argument(help: "The pick id.") var pick: String

        func run() async throws {
            try await services.pickerAsOwner().cancel(pick)
            print("cancelled \(pick)")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke one item-provider token, or every token of an app.")
        @OptionGroup var services: ServiceOptions
        @Argument(help: "The token to revoke.") var token: String?
        @Option(help: "Revoke every token of this app instead.") var app: String?

        func validate() throws {
            guard (token == nil) != (app == nil) else { throw ValidationError("Give either a TOKEN or --app APP.") }
        }

        func run() async throws {
            let owner = try await services.pickerAsOwner()
            let count = if let token { try await owner.revoke(token: token) } else { try await owner.revokeAll(of: app!) }
            print("revoked \(count) token(s)")
        }
    }

    struct Apps: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List apps with their statuses and limited-selection sizes.")
        @OptionGroup var services: ServiceOptions

        func run() async throws {
            for app in try await services.settingsAsOwner().apps() {
                print("\(app.app)\t\(app.name)\treadWrite: \(app.readWrite)\taddOnly: \(app.addOnly)\tselection: \(app.selectionCount)")
            }
        }
    }

    struct Access: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an app's library access (the owner's settings).",
            discussion: "restricted is the owner's policy: no prompt can change it. --reset goes back to notDetermined.")
        @OptionGroup var services: ServiceOptions
        @Argument(help: "The app id.") var app: String
        @Option(help: "full, limited, none or restricted.") var readWrite: SetAccessRequest.ReadWrite?
        @Option(help: "allow, none or restricted.") var addOnly: SetAccessRequest.AddOnly?
        @Option(parsing: .upToNextOption, help: "The whole limited selection (asset identifiers).") var select: [String] = []
        @Option(parsing: .upToNextOption, help: "With limited: every album the selection follows, its photos added later too (ids from `user albums`).")
        var albums: [String] = []
        @Flag(help: "Back to notDetermined at both levels; the selection is cleared.") var reset = false
        @Option(name: .customLong("for"), help: ArgumentHelp("How long the access given lasts (1h, 1d, 7d…); without, until changed.", valueName: "span"))
        var term: TimeSpan?
        @Flag(help: "When the --for term ends, deny instead of letting the app ask again.") var thenDeny = false
        @Option(help: "Where photos were taken, with library reads: none, approximate or precise (at most what the app asked).")
        var location: LocationAccess?

        func validate() throws {
            guard reset || readWrite != nil || addOnly != nil || !select.isEmpty || !albums.isEmpty || location != nil else {
                throw ValidationError("Give --read-write, --add-only, --select, --albums, --location or --reset.")
            }
            if let term, term.duration == .zero { throw ValidationError("--for takes a span such as 1h or 7d; leave it out for until changed.") }
            if thenDeny, term == nil { throw ValidationError("--then-deny needs --for.") }
        }

        func run() async throws {
            let end = term.map { GrantTerm(until: Date().addingTimeInterval(TimeInterval($0.duration.components.seconds)),
                                           then: thenDeny ? .deny : nil) }
            let request = SetAccessRequest(app: app, readWrite: readWrite, addOnly: addOnly, selection: select.isEmpty ? nil : select,
                                           reset: reset ? true : nil, term: end, albums: albums.isEmpty ? nil : albums, location: location)
            let result = try await services.settingsAsOwner().setAccess(request)
            let access = result.access
            let until = [access.readWriteTerm, access.addOnlyTerm].compactMap { $0?.until }.min().map { "\tuntil \($0.formatted(.iso8601))" } ?? ""
            let followed = access.albums.map { "\talbums: \($0.joined(separator: " "))" } ?? ""
            print("\(access.app)\treadWrite: \(access.readWrite)\taddOnly: \(access.addOnly)\tselection: \(access.selectionCount)\(followed)\tlocation: \(access.location ?? LocationAccess.none)\tchange \(result.token)\(until)")
        }
    }

    struct Prompts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List prompts waiting for you (authorization, limited-library picker, deletions).")
        @OptionGroup var services: ServiceOptions
        @Option(help: "Seconds to wait for a prompt when none is open.") var wait = 0

        func run() async throws {
            let prompts = try await services.settingsAsOwner().prompts(waitingUpTo: .seconds(wait))
            if prompts.isEmpty { note("no open prompts") }
            for prompt in prompts {
                switch prompt.kind {
                case .authorization:
                    let choices = prompt.level == .addOnly ? "allow | deny" : "full | limited --select IDs… | deny"
                    let location = prompt.location.map { " and where your photos were taken (\($0); answer with --location)" } ?? ""
                    print("\(prompt.prompt)\t\(prompt.appName) asks for \(prompt.level?.rawValue ?? "?") access\(location): \"\(prompt.usageDescription ?? "")\"\tanswer: \(choices)")
                case .limitedLibrary:
                    print("\(prompt.prompt)\t\(prompt.appName) may see \(prompt.selection.count) asset(s); edit with: answer \(prompt.prompt) done --select IDs…")
                case .deleteAssets:
                    print("\(prompt.prompt)\t\(prompt.appName) asks to delete \(prompt.selection.count) asset(s): \(prompt.selection.joined(separator: " "))\tanswer: allow | deny")
                case .location:
                    print("\(prompt.prompt)\t\(prompt.appName) asks for where your photos were taken (\(prompt.location ?? LocationAccess.none))\tanswer: allow --location none|approximate|precise | deny")
                }
            }
        }
    }

    struct Answer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Answer a prompt: full, limited, deny, allow, or done (limited-library picker).")
        @OptionGroup var services: ServiceOptions
        @Argument(help: "The prompt id from `lightbox user prompts`.") var prompt: String
        @Argument(help: "full, limited, deny, allow or done.") var answer: PromptAnswer
        @Option(parsing: .upToNextOption, help: "With limited or done: the whole selection (asset identifiers).") var select: [String] = []
        @Option(parsing: .upToNextOption, help: "With limited or done: every album the selection follows (ids from `user albums`).")
        var albums: [String] = []

        @Option(help: "With a grant, to a prompt that asks for where photos were taken: none, approximate or precise (default none).")
        var location: LocationAccess?

        func run() async throws {
            try await services.settingsAsOwner().answer(prompt, answer, selection: select.isEmpty ? nil : select,
                                                        albums: albums.isEmpty ? nil : albums, location: location)
            print("answered \(prompt): \(answer)")
        }
    }

    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the audit trail, newest first: decisions, settings changes and every read apps made.",
            discussion: """
            Columns: id, time, app, operation, asset count, outcome, bytes, asset, times (identical entries \
            recorded together are one line: how many, from its time to the last). --operation takes a name or \
            its prefix (pick finds pick:opened and pick:answered). Times are ISO 8601 (2026-11-23T02:00:00Z) or \
            a day (2026-11-23). Without --all, shows one page and the --before value for the next.
            """)
        @OptionGroup var services: ServiceOptions
        @Argument(help: "Only this app.") var app: String?
        @Option(help: "Only this operation or prefix: load, describe, pick, fetch, query, image, video, settings …") var operation: String?
        @Option(help: "Entries at or after this time.") var since: String?
        @Option(help: "Entries before this time.") var until: String?
        @Option(help: "Only this day (UTC), as 2026-11-23.") var day: String?
        @Option(help: "Entries older than this id (the cursor a page ends with).") var before: Int64?
        @Option(help: "Entries per page.") var limit = 200
        @Flag(help: "Follow the pages to the oldest entry.") var all = false

        func validate() throws {
            guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
            if day != nil, since != nil || until != nil { throw ValidationError("--day cannot be combined with --since or --until") }
            for (name, value) in [("--since", since), ("--until", until)] {
                if let value, Self.date(value) == nil { throw ValidationError("\(name) takes a time such as 2026-11-23T02:00:00Z or a day such as 2026-11-23") }
            }
            if let day, Self.day(day) == nil { throw ValidationError("--day takes a day such as 2026-11-23") }
        }

        func run() async throws {
            let settings = try await services.settingsAsOwner()
            var request = AuditRequest(app: app, operation: operation, since: since.flatMap(Self.date), until: until.flatMap(Self.date),
                                       before: before, limit: limit)
            if let day, let start = Self.day(day) {
                request.since = start
                request.until = start.addingTimeInterval(86_400)
            }
            while true {
                let page = try await settings.audit(request)
                for entry in page.entries {
                    let columns = ["\(entry.id ?? 0)", entry.at.formatted(.iso8601), entry.app, entry.operation, "\(entry.assetCount)",
                                   entry.outcome, entry.bytes.map { "\($0)" } ?? "", entry.asset ?? "", "\(entry.times ?? 1)"]
                    print(columns.joined(separator: "\t"))
                }
                guard let next = page.next else { return }
                guard all else {
                    print("more: --before \(next)")
                    return
                }
                request.before = next
            }
        }

        static func date(_ text: String) -> Date? {
            if let date = try? Date(text, strategy: .iso8601) { return date }
            return day(text)
        }

        static func day(_ text: String) -> Date? {
            try? Date(text + "T00:00:00Z", strategy: .iso8601)
        }
    }

    struct Auto: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A scripted owner for tests and demos: answers picks and prompts by a policy file.",
            discussion: """
            Policy (JSON): {"action":"choose","strategy":"newest","count":2} — strategies: newest, oldest, \
            named (with "files":["harbour.jpg"]); {"action":"cancel"}; per-app rules under "apps": \
            {"demo":{…}}. Prompts: "prompts":{"readWrite":"full|limited|deny","addOnly":"allow|deny", \
            "selection":{"files":[…]},"expand":{"strategy":"newest","count":1}}. Runs until Ctrl-C, or \
            until the --max-picks and --max-prompts given are reached.
            """)
        @OptionGroup var services: ServiceOptions
        @Option(help: "The policy file.") var policy: String
        @Option(help: "Stop once this many picks are answered (and any --max-prompts reached).") var maxPicks: Int?
        @Option(help: "Stop once this many prompts are answered (and any --max-picks reached).") var maxPrompts: Int?

        func run() async throws {
            let policy = try OwnerPolicy.load(from: URL(fileURLWithPath: self.policy))
            let picker = try await services.pickerAsOwner()
            let settings = try await services.settingsAsOwner()
            let maxPicks = self.maxPicks
            let maxPrompts = self.maxPrompts
            try await withThrowingTaskGroup(of: Bool.self) { group in
                // A loop stopped because the other reached its limit ends quietly.
                group.addTask {
                    do { return try await answerPicks(policy, picker, limit: maxPicks) } catch where Task.isCancelled { return false }
                }
                if policy.prompts != nil || maxPrompts != nil {
                    group.addTask {
                        do { return try await answerPrompts(policy, settings, picker, limit: maxPrompts) } catch where Task.isCancelled { return false }
                    }
                }
                // Done when every loop that has a limit has reached it.
                var open = (maxPicks == nil ? 0 : 1) + (maxPrompts == nil ? 0 : 1)
                guard open > 0 else {
                    for try await _ in group {}
                    return
                }
                for try await reachedLimit in group where reachedLimit {
                    open -= 1
                    if open == 0 { group.cancelAll() }
                }
            }
        }

        /// Answers picks until `limit` are done (true), or forever.
        func answerPicks(_ policy: OwnerPolicy, _ owner: OwnerSurface, limit: Int?) async throws -> Bool {
            var answered = 0
            while !Task.isCancelled {
                if let limit, answered >= limit { return true }
                let picks: [PendingPick]
                do {
                    picks = try await owner.pendingPicks(waitingUpTo: .seconds(2))
                } catch let error as LightboxError where error.code == .timeout || error.code == .cancelled {
                    continue
                }
                for pick in picks {
                    do {
                        switch policy.decide(pick, candidates: try await owner.assets(for: pick.pick)) {
                        case .cancel:
                            try await owner.cancel(pick.pick)
                            print("cancelled \(pick.pick) for \(pick.app)")
                        case .choose(let assets):
                            let delivered = try await owner.choose(assets, for: pick.pick, location: policy.rule(for: pick.app).location)
                            print("chose \(delivered) for \(pick.pick) (\(pick.app))")
                        }
                    } catch let error as LightboxError where error.code == .notFound {
                        continue  // another surface answered it first
                    }
                    answered += 1
                }
            }
            return false
        }

        /// Answers prompts until `limit` are done (true), or forever.
        func answerPrompts(_ policy: OwnerPolicy, _ settings: OwnerSettings, _ picker: OwnerSurface, limit: Int?) async throws -> Bool {
            var answered = 0
            var seen = Set<String>()
            while !Task.isCancelled {
                if let limit, answered >= limit { return true }
                let prompts: [OwnerPrompt]
                do {
                    prompts = try await settings.prompts(waitingUpTo: .seconds(2))
                } catch let error as LightboxError where error.code == .timeout || error.code == .cancelled {
                    continue
                }
                for prompt in prompts where !seen.contains(prompt.prompt) {
                    guard let (answer, selection) = policy.rule(for: prompt.app).prompts?.answer(prompt, catalog: try await picker.assets()) else {
                        seen.insert(prompt.prompt)
                        continue
                    }
                    do {
                        try await settings.answer(prompt.prompt, answer, selection: selection,
                                                  location: policy.rule(for: prompt.app).prompts?.location)
                        print("answered \(prompt.kind) prompt of \(prompt.app): \(answer)\(selection.map { " (\($0.count) selected)" } ?? "")")
                    } catch let error as LightboxError where error.code == .notFound {
                        continue
                    }
                    seen.insert(prompt.prompt)
                    answered += 1
                }
                if prompts.allSatisfy({ seen.contains($0.prompt) }) && !prompts.isEmpty {
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
            return false
        }
    }
}
