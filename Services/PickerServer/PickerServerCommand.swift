import ArgumentParser
import Foundation
import LightboxObjectStore
import LightboxPostgres
import LightboxServiceRuntime
import LightboxTransport
import Logging
import Picker
import Places
import ServiceLifecycle

/// `lightbox-picker`: the picker service (the media plane).
@main
struct PickerServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lightbox-picker",
        abstract: "Lightbox's picker service: the catalog, pick sessions, item-provider tokens and media loads.",
        discussion: """
        Binds one CURVE-secured ZeroMQ ROUTER endpoint and asks lightbox-auth (same data directory for \
        its public key) who each connecting key is. Stops cleanly on Ctrl-C or SIGTERM: waiting picks are \
        cancelled, running requests and loads get a few seconds to finish. Under systemd (Type=notify) it \
        reports READY=1 once the endpoint is bound.
        """)

    @Option(help: "Data directory (keys, picker/catalog.sqlite, picker/originals). Env: LIGHTBOX_DATA.")
    var data = ProcessInfo.processInfo.environment["LIGHTBOX_DATA"] ?? "var"

    @Option(name: .customLong("database"), help: ArgumentHelp("""
        Keep the catalog (assets, albums, edits, the change log, selections, provider tokens, watched \
        files) in a PostgreSQL database instead of DATA/picker/catalog.sqlite: postgres://USER@HOST:PORT/DB, \
        or postgres://USER@/DB?host=/run/postgresql for a local socket; the password comes from PGPASSWORD. \
        The picker makes its tables on first start. Env: LIGHTBOX_PICKER_DATABASE.
        """, valueName: "postgres://user@host:port/db"))
    var databaseOption: String?
    /// `--database`, else `LIGHTBOX_PICKER_DATABASE`.
    var database: String? { databaseOption ?? ProcessInfo.processInfo.environment["LIGHTBOX_PICKER_DATABASE"] }

    @Option(help: ArgumentHelp("""
        Endpoint to bind. Env: LIGHTBOX_PICKER_BIND, or else LIGHTBOX_PICKER_ENDPOINT (which clients read, \
        and which may list several pickers: then each picker needs LIGHTBOX_PICKER_BIND or --endpoint).
        """, valueName: "endpoint"))
    var endpoint = ProcessInfo.processInfo.environment["LIGHTBOX_PICKER_BIND"]
        ?? ProcessInfo.processInfo.environment["LIGHTBOX_PICKER_ENDPOINT"] ?? "tcp://127.0.0.1:7712"

    @Option(help: "lightbox-auth's endpoint. Env: LIGHTBOX_AUTH_ENDPOINT.")
    var authEndpoint = ProcessInfo.processInfo.environment["LIGHTBOX_AUTH_ENDPOINT"] ?? "tcp://127.0.0.1:7711"

    @Option(help: "Seconds an item-provider token stays valid.")
    var tokenLifetime = 3600

    @Option(help: "Seconds a pick waits for the owner before the app gets a timeout.")
    var pickTimeout = 600

    @Option(name: .customLong("import"), help: "A folder to import before serving (repeatable; re-imports change nothing).")
    var importFolders: [String] = []

    @Option(name: .customLong("watch"), help: ArgumentHelp("""
        A folder the library follows (repeatable): what is in it is imported in the background, then new, \
        changed, moved and deleted files are followed live, and a restart catches up with what changed \
        meanwhile. Env: LIGHTBOX_PICKER_WATCH (folders separated by colons).
        """, valueName: "folder"))
    var watchFolders: [String] = ProcessInfo.processInfo.environment["LIGHTBOX_PICKER_WATCH"]
        .map { $0.split(separator: ":").map(String.init) } ?? []

    @Option(help: """
        Seconds between rescans of the watched folders when they cannot be followed live (no inotify, or \
        past the system's limit of inotify watches, fs.inotify.max_user_watches).
        """)
    var watchRescanInterval = 30

    @Option(help: "The cloud tier's folder, where offloaded originals live (default DATA/picker/cloud).")
    var cloudFolder: String?

    @Option(help: "Bytes per second read from the cloud tier's folder, so downloads can be watched (0 = unthrottled).")
    var cloudBandwidth = 0

    @Option(name: .customLong("cloud"), help: ArgumentHelp("""
        Keep the cloud tier in an S3-compatible object store (s3://BUCKET/PREFIX, not where --originals are) \
        instead of a folder: offloading moves originals there and downloads bring them back over the network; \
        needs --s3-endpoint and the same credentials as --originals. Env: LIGHTBOX_PICKER_CLOUD.
        """, valueName: "s3://bucket/prefix"))
    var cloudOption: String?
    /// `--cloud`, else `LIGHTBOX_PICKER_CLOUD`.
    var cloud: String? { cloudOption ?? ProcessInfo.processInfo.environment["LIGHTBOX_PICKER_CLOUD"] }

    @Option(help: """
        Seconds between sweeps of the stored files no asset uses (an upload an import left before it \
        committed, an object a removal could not delete while the store was down); 0 = never.
        """)
    var sweepInterval = 24 * 3600

    @Option(help: "Seconds a stored file must have existed before a sweep may remove it (an import or a move may be using it).")
    var sweepGrace = 3600

    @Option(help: "Megabytes the derived files (thumbnails, transcodes) may take; the least recently used are removed first.")
    var derivedQuotaMb = 1024

    @Option(name: .customLong("originals"), help: ArgumentHelp("""
        Keep originals in an S3-compatible object store (s3://BUCKET/PREFIX) instead of DATA/picker/originals; \
        needs --s3-endpoint, and credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or --s3-credentials. \
        Env: LIGHTBOX_PICKER_ORIGINALS.
        """, valueName: "s3://bucket/prefix"))
    var originalsOption: String?
    /// `--originals`, else `LIGHTBOX_PICKER_ORIGINALS`.
    var originals: String? { originalsOption ?? ProcessInfo.processInfo.environment["LIGHTBOX_PICKER_ORIGINALS"] }

    @Option(name: .customLong("s3-endpoint"), help: "The object store's URL (http://HOST:PORT or https://HOST), addressed path-style. Env: LIGHTBOX_S3_ENDPOINT.")
    var s3EndpointOption: String?
    /// `--s3-endpoint`, else `LIGHTBOX_S3_ENDPOINT`.
    var s3Endpoint: String? { s3EndpointOption ?? ProcessInfo.processInfo.environment["LIGHTBOX_S3_ENDPOINT"] }

    @Option(help: "An AWS-style credentials file (aws_access_key_id = …, aws_secret_access_key = …), mode 0600.")
    var s3Credentials: String?

    @Option(help: "The region requests to the object store are signed for.")
    var s3Region = "us-east-1"

    @Option(help: "Seconds the object store may stay silent before the app gets a timeout.")
    var s3Timeout = 30

    @Option(help: ArgumentHelp("""
        The local cache in front of the object store: originals in DIR/originals (default \
        DATA/picker/originals-cache/originals), derived files in DIR/derived (default DATA/picker/derived).
        """, valueName: "dir"))
    var cache: String?

    @Option(name: .customLong("derived"), help: ArgumentHelp("""
        Where derived files (thumbnails, renditions, compatible JPEGs, transcodes) are shared by every \
        picker: s3://BUCKET/PREFIX in the object store (default with --originals s3://BUCKET/PATH: \
        derived/ beside PATH, e.g. s3://photos/library -> s3://photos/derived), or `local` to keep them \
        in the local derived folder only. Env: LIGHTBOX_PICKER_DERIVED.
        """, valueName: "s3://bucket/prefix|local"))
    var derivedOption: String?
    /// `--derived`, else `LIGHTBOX_PICKER_DERIVED`.
    var derived: String? { derivedOption ?? ProcessInfo.processInfo.environment["LIGHTBOX_PICKER_DERIVED"] }

    @Option(help: "Megabytes the cache of originals may hold; the least recently used are removed first.")
    var cacheMb = 4096

    @Option(help: "Originals the cache may hold.")
    var cacheFiles = 10_000

    @Option(help: "Renderings and transcodes run at once (default: one per core, at most 8).")
    var renderThreads: Int?

    @Option(help: "Seconds one rendering or transcode may take before it is stopped and the app gets a timeout.")
    var renderTimeLimit = 20

    @Option(help: ArgumentHelp("""
        Seconds a picker's claim on making a derived file lasts unless renewed, with --database postgres://… and \
        derived files in the object store: other pickers wait for the maker, and take the making over this long \
        after it stopped renewing (it died).
        """, valueName: "seconds"))
    var derivativeLease = 30

    @Option(name: .customLong("places"), help: ArgumentHelp("""
        The offline place table that names each photo's city and country at import (default: \
        \(PlaceTable.defaultLocations.joined(separator: " or ")), which `make deps` writes from GeoNames). \
        Without one the picker runs without place search and says so in its log. Env: LIGHTBOX_PLACES.
        """, valueName: "file"))
    var placesOption: String?
    /// `--places`, else `LIGHTBOX_PLACES`.
    var places: String? { placesOption ?? ProcessInfo.processInfo.environment["LIGHTBOX_PLACES"] }

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel = "info"

    @Option(name: .customLong("metrics"), help: "Serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9712). Env: LIGHTBOX_PICKER_METRICS.")
    var metricsOption: String?
    /// `--metrics`, else `LIGHTBOX_PICKER_METRICS`.
    var metrics: String? { metricsOption ?? ProcessInfo.processInfo.environment["LIGHTBOX_PICKER_METRICS"] }

    @Option(help: "Connections one app may hold to this service at once; one more is refused in its handshake.")
    var maxConnectionsPerApp = 16

    @Option(help: "Seconds running requests and loads get to finish at shutdown before they are cancelled.")
    var shutdownGrace = 5

    func validate() throws {
        guard !endpoint.contains(",") else {
            throw ValidationError("""
                the endpoint to bind, \(endpoint), lists several pickers (LIGHTBOX_PICKER_ENDPOINT is for clients); \
                give this picker its own with --endpoint or LIGHTBOX_PICKER_BIND
                """)
        }
        guard tokenLifetime > 0 else { throw ValidationError("--token-lifetime must be at least 1 second") }
        guard pickTimeout > 0 else { throw ValidationError("--pick-timeout must be at least 1 second") }
        guard cloudBandwidth >= 0 else { throw ValidationError("--cloud-bandwidth must be 0 or more bytes per second") }
        guard watchRescanInterval >= 1 else { throw ValidationError("--watch-rescan-interval must be at least 1 second") }
        guard derivedQuotaMb >= 1 else { throw ValidationError("--derived-quota-mb must be at least 1") }
        guard (renderThreads ?? 1) >= 1 else { throw ValidationError("--render-threads must be at least 1") }
        guard derivativeLease >= 1 else { throw ValidationError("--derivative-lease must be at least 1 second") }
        guard renderTimeLimit >= 1 else { throw ValidationError("--render-time-limit must be at least 1 second") }
        if let originals {
            guard S3Location(url: originals) != nil else { throw ValidationError("--originals must look like s3://BUCKET/PREFIX") }
            guard s3Endpoint != nil else { throw ValidationError("--originals needs --s3-endpoint URL (the object store, e.g. http://127.0.0.1:8333)") }
        }
        if let cloud {
            guard let location = S3Location(url: cloud) else { throw ValidationError("--cloud must look like s3://BUCKET/PREFIX") }
            guard s3Endpoint != nil else { throw ValidationError("--cloud needs --s3-endpoint URL (the object store, e.g. http://127.0.0.1:8333)") }
            guard cloudFolder == nil else { throw ValidationError("--cloud and --cloud-folder both name the cloud tier; give one") }
            if let originals = originals.flatMap(S3Location.init(url:)), originals.bucket == location.bucket,
               originals.prefix.hasPrefix(location.prefix) || location.prefix.hasPrefix(originals.prefix) {
                throw ValidationError("--cloud \(location) and --originals \(originals) overlap; give the cloud tier its own bucket or prefix")
            }
        }
        try validateDerived()
        guard sweepInterval >= 0, sweepGrace >= 0 else { throw ValidationError("--sweep-interval and --sweep-grace must be 0 or more seconds") }
        guard s3Timeout >= 1 else { throw ValidationError("--s3-timeout must be at least 1 second") }
        guard cacheMb >= 1, cacheFiles >= 1 else { throw ValidationError("--cache-mb and --cache-files must be at least 1") }
    }

    /// How the object store is reached; nil without --s3-endpoint.
    func objectStoreConnection() throws -> ObjectStoreConnection? {
        guard let s3Endpoint else { return nil }
        let credentials: SigningCredentials
        do throws(ObjectStoreError) {
            credentials = try SigningCredentials.load(file: s3Credentials)
        } catch {
            throw ValidationError(error.message)
        }
        var connection = ObjectStoreConnection(endpoint: s3Endpoint, credentials: credentials)
        connection.region = s3Region
        connection.timeouts = S3Timeouts(connect: .seconds(5), idle: .seconds(Int64(s3Timeout)))
        return connection
    }

    /// Where and how the originals are kept in an object store; nil for the local folder.
    func objectStore() throws -> ObjectStoreOriginals? {
        guard let originals, let location = S3Location(url: originals), let connection = try objectStoreConnection() else { return nil }
        var store = ObjectStoreOriginals(location: location, connection: connection)
        store.cacheFolder = cache.map { URL(fileURLWithPath: $0).standardizedFileURL }
        store.cacheBytes = Int64(cacheMb) << 20
        store.cacheFiles = cacheFiles
        return store
    }

    /// The cloud tier in an object store; nil for its folder.
    func cloudObjectStore() throws -> ObjectStoreCloudTier? {
        guard let cloud, let location = S3Location(url: cloud), let connection = try objectStoreConnection() else { return nil }
        return ObjectStoreCloudTier(location: location, connection: connection)
    }

    func run() async throws {
        ServiceLogging.bootstrap(level: Logger.Level(name: logLevel) ?? .info)
        let logger = Logger(label: "lightbox.picker")
        var tightened = try PrivateDataFolder.secure(URL(fileURLWithPath: data))
        if let cloudFolder { tightened += try PrivateDataFolder.secure(URL(fileURLWithPath: cloudFolder)) }
        if let cache { tightened += try PrivateDataFolder.secure(URL(fileURLWithPath: cache)) }
        if tightened > 0 { logger.notice("made the data folder private", metadata: ["modesChanged": "\(tightened)"]) }
        var services: [any Service] = []
        if let metrics {
            services.append(try MetricsEndpoint(listen: metrics, registry: ServiceMetrics.bootstrap(), logger: logger))
        }
        var configuration = PickerService.Configuration(
            dataDirectory: URL(fileURLWithPath: data), endpoint: endpoint, authEndpoint: authEndpoint)
        configuration.tokenLifetime = .seconds(tokenLifetime)
        configuration.pickTimeout = .seconds(pickTimeout)
        configuration.importOnStart = importFolders.map { URL(fileURLWithPath: $0).standardizedFileURL }
        configuration.watchFolders = watchFolders.map { URL(fileURLWithPath: $0).standardizedFileURL }
        configuration.watchRescanInterval = .seconds(watchRescanInterval)
        configuration.cloudFolder = cloudFolder.map { URL(fileURLWithPath: $0).standardizedFileURL }
        configuration.cloudBandwidth = cloudBandwidth
        configuration.derivedQuota = Int64(derivedQuotaMb) << 20
        configuration.derivedFolder = cache.map { URL(fileURLWithPath: $0).standardizedFileURL.appendingPathComponent("derived") }
        configuration.derivedObjectStore = try derivedObjectStore()
        if let renderThreads { configuration.renderThreads = renderThreads }
        configuration.renderTimeLimit = .seconds(renderTimeLimit)
        configuration.derivativeLease = .seconds(derivativeLease)
        configuration.objectStore = try objectStore()
        configuration.cloudObjectStore = try cloudObjectStore()
        configuration.sweepInterval = .seconds(sweepInterval)
        configuration.sweepGrace = .seconds(sweepGrace)
        configuration.placeTable = places.map { URL(fileURLWithPath: $0) }
        configuration.database = try database.map { text throws(PostgresStorageError) in try PostgresLocation(url: text) }
        configuration.shutdownGracePeriod = .seconds(max(shutdownGrace, 0))
        configuration.maximumConnectionsPerApp = max(1, maxConnectionsPerApp)
        configuration.onServing = { [endpoint] in SystemdNotification.ready(status: "serving on \(endpoint)") }
        services.append(try PickerService(configuration, logger: logger))
        try await ServiceRunner.run(services, gracePeriod: .seconds(max(shutdownGrace, 0) + 10), logger: logger)
    }
}

