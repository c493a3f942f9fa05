// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Lightbox",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "lightbox", targets: ["LightboxCLI"]),
        .executable(name: "lightbox-auth", targets: ["AuthServer"]),
        .executable(name: "lightbox-picker", targets: ["PickerServer"]),
        .executable(name: "lightbox-surface", targets: ["SurfaceServer"]),
        .executable(name: "lightbox-portal", targets: ["PortalServer"]),
        // Not installed: `make bench` builds it and `lightbox bench …` runs it.
        .executable(name: "lightbox-bench", targets: ["LightboxBench"]),
        .library(name: "LightboxClient", targets: ["LightboxClient"]),
        // For the fuzz package (Fuzz/), which builds the wire decoding, ZMTP reading and the media readers instrumented.
        .library(name: "LightboxProtocol", targets: ["LightboxProtocol"]),
        .library(name: "LightboxTransport", targets: ["LightboxTransport"]),
        .library(name: "Media", targets: ["Media"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // System libraries. libzmq is linked directly: its pkg-config file drags a krb5 flag SwiftPM rejects.
        .systemLibrary(name: "CZeroMQ", path: "Shared/CZeroMQ"),
        .systemLibrary(name: "CSodium", path: "Shared/CSodium"),
        .systemLibrary(name: "CLinux", path: "Shared/CLinux"),
        .systemLibrary(name: "CExif", path: "Shared/CExif"),
        .systemLibrary(name: "CWebP", path: "Shared/CWebP"),
        .systemLibrary(name: "CHeif", path: "Shared/CHeif"),
        .systemLibrary(name: "CAVFormat", path: "Shared/CAVFormat"),
        .systemLibrary(name: "CVips", path: "Shared/CVips", pkgConfig: "gobject-2.0"),
        // GDBus for lightbox-portal; gio-2.0's pkg-config file adds -pthread, which SwiftPM rejects.
        .systemLibrary(name: "CGio", path: "Shared/CGio", pkgConfig: "gobject-2.0"),

        .target(name: "LightboxProtocol", path: "Shared/LightboxProtocol"),
        .target(
            name: "LightboxTransport",
            dependencies: [
                "CZeroMQ", "CSodium", "CLinux", "LightboxProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            path: "Shared/LightboxTransport"
        ),
        // What every service executable shares: the ServiceGroup run, /metrics, systemd readiness.
        .target(
            name: "LightboxServiceRuntime",
            dependencies: [
                "LightboxTransport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/LightboxServiceRuntime"
        ),
        .target(
            name: "LightboxClient",
            dependencies: ["LightboxProtocol", "LightboxTransport"],
            path: "Shared/LightboxClient"
        ),

        .target(
            name: "LightboxStorage",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")],
            path: "Shared/LightboxStorage"
        ),

        // Originals on an S3-compatible store: AWS Signature V4 and a streaming S3 client over async-http-client.
        // PostgreSQL for the services' state when they outgrow one machine (`--database postgres://…`).
        .target(
            name: "LightboxPostgres",
            dependencies: [
                "LightboxProtocol",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/LightboxPostgres"
        ),
        .target(
            name: "LightboxObjectStore",
            dependencies: [
                "LightboxProtocol",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            path: "Shared/LightboxObjectStore"
        ),

        // The offline reverse geocoder: a photo's GPS position to its city and country, from GeoNames' table.
        .target(name: "Places", path: "Services/Places"),
        .target(name: "Media", dependencies: ["CLinux", "CExif", "CWebP", "CHeif", "CAVFormat", "CVips", "LightboxProtocol"], path: "Services/Media"),
        .target(
            name: "Auth",
            dependencies: [
                "LightboxProtocol", "LightboxTransport", "LightboxStorage", "LightboxPostgres",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Services/Auth"
        ),
        .executableTarget(
            name: "AuthServer",
            dependencies: ["Auth", "LightboxPostgres", "LightboxServiceRuntime", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/AuthServer"
        ),
        .target(
            name: "Picker",
            dependencies: [
                "CLinux", "LightboxProtocol", "LightboxTransport", "LightboxClient", "LightboxStorage", "LightboxObjectStore", "Media", "Places",
                "LightboxPostgres",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Services/Picker"
        ),
        .executableTarget(
            name: "PickerServer",
            dependencies: ["Picker", "LightboxObjectStore", "Places", "LightboxServiceRuntime", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/PickerServer"
        ),
        .target(
            name: "Surface",
            dependencies: [
                "LightboxClient", "LightboxProtocol", "LightboxTransport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Surface",
            resources: [.copy("Web"), .copy("Strings")]
        ),
        .executableTarget(
            name: "SurfaceServer",
            dependencies: ["Surface", "LightboxServiceRuntime", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/SurfaceServer"
        ),
        .target(
            name: "Portal",
            dependencies: [
                "CGio", "LightboxClient", "LightboxProtocol", "LightboxTransport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Portal"
        ),
        .executableTarget(
            name: "PortalServer",
            dependencies: ["Portal", "LightboxClient", "LightboxServiceRuntime", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/PortalServer"
        ),
        // What `lightbox` and `lightbox-bench` share: the services as child processes, progress on stderr.
        .target(
            name: "LightboxCommandLineSupport",
            dependencies: ["LightboxClient", "LightboxTransport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Clients/LightboxCommandLineSupport"
        ),
        .executableTarget(
            name: "LightboxCLI",
            dependencies: [
                "LightboxClient", "LightboxCommandLineSupport", "LightboxTransport", "Media",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Clients/lightbox"
        ),
        // The benchmarks and their bare ZeroMQ baselines (Bench/Baselines), apart from what ships.
        .executableTarget(
            name: "LightboxBench",
            dependencies: [
                "CZeroMQ", "LightboxClient", "LightboxCommandLineSupport", "LightboxObjectStore", "LightboxProtocol", "LightboxTransport", "Media",
                // The throwaway PostgreSQL and SeaweedFS of `bench scale --database postgres --originals s3`.
                "TestServers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Bench"
        ),

        .testTarget(name: "LightboxProtocolTests", dependencies: ["LightboxProtocol"], path: "Tests/LightboxProtocolTests"),
        .testTarget(name: "LightboxTransportTests", dependencies: ["LightboxTransport", .product(name: "NIOCore", package: "swift-nio")], path: "Tests/LightboxTransportTests"),
        .testTarget(
            name: "ObjectStoreTests",
            dependencies: [
                "LightboxObjectStore", "LightboxProtocol", "TestServers",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/ObjectStoreTests"
        ),
        // Starts the servers tests need for real: SeaweedFS (`weed mini`, an S3-compatible store) and PostgreSQL.
        .target(
            name: "TestServers",
            dependencies: [
                "LightboxObjectStore", .product(name: "NIOCore", package: "swift-nio"), .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/TestServers"
        ),
        .testTarget(
            name: "PostgresStorageTests",
            dependencies: ["LightboxPostgres", "LightboxProtocol", "TestServers", .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Tests/PostgresStorageTests"
        ),
        .testTarget(name: "MediaTests", dependencies: ["Media"], path: "Tests/MediaTests"),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "LightboxPostgres", "TestServers"], path: "Tests/AuthTests"),
        .testTarget(name: "PickerTests", dependencies: ["Picker", "Places", "TestServers", "LightboxPostgres"], path: "Tests/PickerTests"),
        .testTarget(name: "PlacesTests", dependencies: ["Places"], path: "Tests/PlacesTests"),
        .testTarget(name: "SurfaceTests", dependencies: ["Surface"], path: "Tests/SurfaceTests"),
        .testTarget(name: "PortalTests", dependencies: ["Portal", "LightboxProtocol"], path: "Tests/PortalTests"),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "LightboxClient", "LightboxProtocol", "LightboxTransport", "Media", "Auth", "Picker", "LightboxServiceRuntime", "TestServers",
            ],
            path: "Tests/EndToEndTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
