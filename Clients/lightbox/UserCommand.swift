import ArgumentParser
import Foundation
import LightboxClient
import LightboxProtocol

/// The owner's terminal surface.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "The owner's surface: answer picks, revoke tokens, run a scripted owner.",
        subcommands: [Pending.self, Assets.self, Choose.self, Cancel.self, Revoke.self, Auto.self])

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
            for asset in try await services.pickerAsOwner().assets(for: pick) {
                let size = asset.pixelWidth.map { "\($0)x\(asset.pixelHeight ?? 0)" } ?? "-"
                print("\(asset.identifier)\t\(asset.fileName)\t\(asset.type)\t\(size)\t\(asset.creationDate.formatted(.iso8601))")
            }
        }
    }

    struct Choose: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Complete a pick with these assets, in this order.")
        @OptionGroup var services: ServiceOptions
        @Argument(help: "The pick id from `lightbox user pending`.") var pick: String
        @Argument(help: "Asset identifiers from `lightbox user assets`.") var assets: [String]

        func run() async throws {
            let delivered = try await services.pickerAsOwner().choose(assets, for: pick)
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

    struct Auto: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A scripted owner for tests and demos: answers every pick by a policy file.",
            discussion: """
            Policy (JSON): {"action":"choose","strategy":"newest","count":2} — strategies: newest, oldest, \
            named (with "files":["harbour.jpg"]); {"action":"cancel"}; per-app rules under "apps": \
            {"demo":{…}}. Runs until Ctrl-C, or until --max-picks picks are answered.
            """)
        @OptionGroup var services: ServiceOptions
        @Option(help: "The policy file.") var policy: String
        @Option(help: "Stop after answering this many picks (0 = run until stopped).") var maxPicks = 0

        func run() async throws {
            let policy = try OwnerPolicy.load(from: URL(fileURLWithPath: self.policy))
            let owner = try await services.pickerAsOwner()
            var answered = 0
            while maxPicks == 0 || answered < maxPicks {
                let picks: [PendingPick]
                do {
                    picks = try await owner.pendingPicks(waitingUpTo: .seconds(5))
                } catch let error as LightboxError where error.code == .timeout {
                    note("lightbox-picker did not answer; retrying")
                    continue
                }
                for pick in picks {
                    let decision = try await policy.decide(pick, candidates: owner.assets(for: pick.pick))
                    do {
                        switch decision {
                        case .cancel:
                            try await owner.cancel(pick.pick)
                            print("cancelled \(pick.pick) for \(pick.app)")
                        case .choose(let assets):
                            let delivered = try await owner.choose(assets, for: pick.pick)
                            print("chose \(delivered) for \(pick.pick) (\(pick.app))")
                        }
                    } catch let error as LightboxError where error.code == .notFound {
                        continue  // another surface answered it first
                    }
                    answered += 1
                    if maxPicks > 0, answered >= maxPicks { break }
                }
            }
        }
    }
}
