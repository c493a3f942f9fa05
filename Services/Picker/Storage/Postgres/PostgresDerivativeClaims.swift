import Foundation
import LightboxPostgres
import Logging
import Metrics

/// Derivatives made once among the pickers on one PostgreSQL database and one store of derived
/// files: making one claims a job row keyed by its name (`PostgresWorkClaims`, `FOR UPDATE SKIP
/// LOCKED`), renewed every third of the lease while it is made; the result is uploaded and only then
/// the claim released, whose wake-up sends the pickers waiting for it to the store.
///
/// A waiter is bounded twice: a maker that died stops renewing, so after at most a lease its claim
/// is taken over and the derivative made by the waiter; and a waiter that has waited `longestWait`
/// (a making's time limit and a lease) makes it itself. A database that cannot be reached costs
/// nothing but the claim: the derivative is made here, as on a single picker.
struct PostgresDerivativeClaims: DerivativeClaims {
    /// Made by the catalog's schema (`PostgresCatalogSchema`).
    static let table = "derivative_work"

    let claims: PostgresWorkClaims
    let wakeups: PostgresWakeups
    let longestWait: Duration
    let logger: Logger

    private static let waited = Counter(label: "lightbox_derivatives_waited_total")
    private static let takenOver = Counter(label: "lightbox_derivatives_taken_over_total")

    /// `wakeups` listens on `PostgresWorkClaims.releaseChannel`, run by the catalog's storage.
    init(postgres: PostgresStorage, wakeups: PostgresWakeups, lease: Duration, longestWait: Duration, logger: Logger) {
        claims = PostgresWorkClaims(storage: postgres, table: Self.table, lease: lease)
        self.wakeups = wakeups
        self.longestWait = longestWait
        self.logger = logger
    }

    var othersWait: Bool { true }

    func once(_ name: String, fetch: @escaping @Sendable () async throws -> Int64?,
              make: @escaping @Sendable () async throws -> Int64) async throws -> Int64 {
        let giveUp = ContinuousClock.now + longestWait
        var waitedFor: String?
        while true {
            // Subscribed before claiming: a release right after a `busy` answer is not missed.
            let releases = wakeups.wakeups(on: [PostgresWorkClaims.releaseChannel], announcingListening: false)
            let claim: PostgresWorkClaims.Claim
            do {
                claim = try await claims.claim(name)
            } catch {
                logger.warning("could not claim the making of a derivative; making it here", metadata: [
                    "derivative": "\(name)", "reason": "\(error.message)",
                ])
                return try await make()
            }
            switch claim {
            case .yours:
                if let waitedFor {
                    Self.takenOver.increment()
                    logger.notice("took over the making of a derivative whose maker stopped renewing its claim",
                                  metadata: ["derivative": "\(name)", "maker": "\(waitedFor)"])
                }
                return try await makeClaimed(name, make)
            case .busy(let worker):
                if waitedFor == nil { Self.waited.increment() }
                waitedFor = worker ?? waitedFor ?? "another picker"
                let left = giveUp - .now
                guard left > .zero else {
                    logger.warning("waited too long for another picker's derivative; making it here", metadata: [
                        "derivative": "\(name)", "maker": "\(waitedFor ?? "?")",
                    ])
                    return try await make()
                }
                await PostgresWorkClaims.waitForRelease(of: name, in: releases, upTo: min(claims.lease, left))
                try Task.checkCancellation()
                if let size = try await fetch() { return size }
            }
        }
    }

    /// Makes the claimed derivative `name`, renewing the claim meanwhile, then releases it (made and
    /// uploaded, or failed: then the waiters make it themselves).
    private func makeClaimed(_ name: String, _ make: @escaping @Sendable () async throws -> Int64) async throws -> Int64 {
        let (claims, logger) = (claims, logger)
        let made: Result<Int64, any Error> = await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: claims.lease / 3)
                    guard !Task.isCancelled else { return }
                    do throws(PostgresStorageError) {
                        if try await !claims.renew(name) {
                            logger.warning("the claim on a derivative being made ran out and another picker took it over", metadata: ["derivative": "\(name)"])
                            return
                        }
                    } catch {
                        logger.warning("could not renew the claim on a derivative being made", metadata: [
                            "derivative": "\(name)", "reason": "\(error.message)",
                        ])
                    }
                }
            }
            defer { group.cancelAll() }
            do {
                return .success(try await make())
            } catch {
                return .failure(error)
            }
        }
        do {
            try await claims.release(name)
        } catch {
            // Its lease runs out instead, and the waiters then claim it.
            logger.warning("could not release the claim on a derivative", metadata: ["derivative": "\(name)", "reason": "\(error.message)"])
        }
        return try made.get()
    }
}
