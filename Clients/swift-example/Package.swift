// swift-tools-version:6.0
// A complete small app on Lightbox: the README's Swift section. It depends on the repository by
// path; from elsewhere, point `path:` at your checkout of Lightbox.
import PackageDescription

let package = Package(
    name: "PickDemo",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Lightbox", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "PickDemo", dependencies: [.product(name: "LightboxClient", package: "Lightbox")]),
    ],
    swiftLanguageModes: [.v6]
)
