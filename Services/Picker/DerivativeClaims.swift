/// How a derivative that no store holds yet is made once among the pickers that share the derived
/// files (`SharedDerivatives`): the making is claimed, and a picker that finds it claimed by another
/// waits for that one to finish, then fetches the result from the store. Within one picker
/// `DerivativeCache` already makes each derivative once; these claims are about other processes.
///
/// Two implementations: `InProcessDerivativeClaims` (SQLite, or derived files kept locally: nobody
/// else makes them) and `PostgresDerivativeClaims` (pickers on one PostgreSQL database and one store).
protocol DerivativeClaims: Sendable {
    /// Whether other pickers wait for what this one makes: a derivative made here is then uploaded
    /// before its claim is released, so that they find it in the store; otherwise it is uploaded
    /// later, in the background.
    var othersWait: Bool { get }

    /// The derivative `name`, made by `make` here unless another picker is making it: then waits
    /// for that picker and `fetch`es its result (nil: not in the store, so it is claimed again).
    /// Returns the derivative's size.
    func once(_ name: String, fetch: @escaping @Sendable () async throws -> Int64?,
              make: @escaping @Sendable () async throws -> Int64) async throws -> Int64
}

/// No other picker makes derivatives for this one's store: each is made here.
struct InProcessDerivativeClaims: DerivativeClaims {
    var othersWait: Bool { false }

    func once(_ name: String, fetch: @escaping @Sendable () async throws -> Int64?,
              make: @escaping @Sendable () async throws -> Int64) async throws -> Int64 {
        try await make()
    }
}
