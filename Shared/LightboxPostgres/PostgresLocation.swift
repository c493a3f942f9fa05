import Foundation
import PostgresNIO

/// Where a service keeps its state on a PostgreSQL server, as `--database` takes it:
/// `postgres://USER@HOST:PORT/DATABASE`, or `postgres://USER@/DATABASE?host=/run/postgresql` for a
/// server's socket folder (as libpq reads it). A password comes from `PGPASSWORD`, never from the
/// command line, where other users' `ps` would see it.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public enum Server: Sendable, Equatable {
        case tcp(host: String, port: Int)
        /// The folder holding the server's socket (`.s.PGSQL.PORT`).
        case socketFolder(String, port: Int)
    }

    public let server: Server
    public let user: String
    public let database: String

    public init(server: Server, user: String, database: String) {
        self.server = server
        self.user = user
        self.database = database
    }

    /// Parses a `postgres://` or `postgresql://` URL; throws a sentence saying what is wrong.
    public init(url text: String) throws(PostgresStorageError) {
        let wrong = { (what: String) in
            PostgresStorageError(code: .badRequest, message: "The database URL \(text) \(what); write it as postgres://USER@HOST:PORT/DATABASE.")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "postgres" || scheme == "postgresql" else { throw wrong("is not a postgres:// URL") }
        guard components.password == nil else { throw wrong("holds a password (give it in PGPASSWORD instead)") }
        guard let user = components.user, !user.isEmpty else { throw wrong("names no user") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw wrong("names no database") }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw wrong("has a port out of range") }
        if let folder = components.queryItems?.first(where: { $0.name == "host" })?.value, folder.hasPrefix("/") {
            server = .socketFolder(folder, port: port)
        } else if let host = components.host, !host.isEmpty {
            server = .tcp(host: host, port: port)
        } else {
            throw wrong("names no server (a host, or ?host=/socket/folder)")
        }
        self.user = user
        self.database = database
    }

    /// The URL without any secret, for messages and logs.
    public var description: String {
        switch server {
        case .tcp(let host, let port): "postgres://\(user)@\(host):\(port)/\(database)"
        case .socketFolder(let folder, let port): "postgres://\(user)@/\(database)?host=\(folder)&port=\(port)"
        }
    }

    /// postgres-nio's configuration: no TLS on a socket or loopback, TLS preferred elsewhere.
    func clientConfiguration(password: String?) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        switch server {
        case .tcp(let host, let port):
            let local = host == "localhost" || host == "127.0.0.1" || host == "::1"
            configuration = PostgresClient.Configuration(
                host: host, port: port, username: user, password: password, database: database,
                tls: local ? .disable : .prefer(.makeClientConfiguration()))
        case .socketFolder(let folder, let port):
            configuration = PostgresClient.Configuration(
                unixSocketPath: "\(folder)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        }
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}
