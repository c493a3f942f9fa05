// swift-tools-version:6.0
// libFuzzer targets for the wire decoding and the media readers. Not part of the normal build: the
// entry points only link with -sanitize=fuzzer. Built and run by `make fuzz` (Fuzz/run.sh).
import PackageDescription

/// The root package's identity is the name of the folder it is cloned into.
let root = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "lightbox").lowercased()

/// (product name, target name) of each media target; each calls MediaFuzzEntry with its own reader.
let mediaTargets: [(String, String)] = [
    ("fuzz-jpeg", "FuzzJpeg"), ("fuzz-png", "FuzzPng"), ("fuzz-webp", "FuzzWebp"), ("fuzz-gif", "FuzzGif"),
    ("fuzz-heif", "FuzzHeif"), ("fuzz-movie", "FuzzMovie"), ("fuzz-exif", "FuzzExif"), ("fuzz-strip", "FuzzStrip"),
    ("fuzz-motion", "FuzzMotion"),
]

var products: [Product] = [.executable(name: "fuzz-wire", targets: ["FuzzWire"]), .executable(name: "fuzz-zmtp", targets: ["FuzzZMTP"]),
                           .executable(name: "fuzz-connection", targets: ["FuzzConnection"])]
var targets: [Target] = [
    .target(name: "FuzzDriver", path: "Sources/FuzzDriver"),
    .executableTarget(
        name: "FuzzWire",
        dependencies: ["FuzzDriver", .product(name: "LightboxProtocol", package: root)],
        path: "Sources/FuzzWire"
    ),
    .executableTarget(
        name: "FuzzZMTP",
        dependencies: ["FuzzDriver", .product(name: "LightboxTransport", package: root)],
        path: "Sources/FuzzZMTP"
    ),
    .executableTarget(
        name: "FuzzConnection",
        dependencies: ["FuzzDriver", .product(name: "LightboxTransport", package: root)],
        path: "Sources/FuzzConnection"
    ),
]
for (product, target) in mediaTargets {
    products.append(.executable(name: product, targets: [target]))
    targets.append(.executableTarget(
        name: target,
        dependencies: ["FuzzDriver", .product(name: "Media", package: root)],
        path: "Sources/\(target)"
    ))
}

let package = Package(
    name: "LightboxFuzz",
    platforms: [.macOS(.v14)],
    products: products,
    dependencies: [.package(path: "../..")],
    targets: targets,
    swiftLanguageModes: [.v6]
)
