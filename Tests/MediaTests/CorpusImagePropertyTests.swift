import Foundation
import LightboxProtocol
import Media
import Testing

/// ColorModel, Depth, ProfileName, PNG density and the EXIF digitized date and zone offsets of every
/// corpus image, against what `exiftool -json` reads from the same files. Skips, and says so, when
/// the corpus or exiftool (Debian's libimage-exiftool-perl, installed by deploy/install-deps.sh) is
/// missing.
@Suite(.serialized) struct CorpusImagePropertyTests {
    /// Share of exiftool's values the readers must reproduce; set just below what they achieve (see
    /// the printout), so that a regression fails while a documented disagreement does not.
    static let requiredMatchRate = 0.95

    static let exiftool = ["/usr/bin/exiftool", "/usr/local/bin/exiftool"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static var canRun: Bool { MediaCorpus.isPresent && exiftool != nil }

    @Test func skippingIsReported() {
        if !Self.canRun {
            print("CorpusImagePropertyTests: corpus present: \(MediaCorpus.isPresent), exiftool: \(Self.exiftool ?? "missing"); skipping.")
        }
    }

    @Test(.enabled(if: CorpusImagePropertyTests.canRun, "needs the shared media corpus and exiftool"))
    func imagePropertiesMatchExiftool() throws {
        let tags = ["-File:ColorComponents", "-File:BitsPerSample", "-PNG:ColorType", "-PNG:BitDepth",
                    "-PNG:PixelsPerUnitX", "-PNG:PixelsPerUnitY", "-PNG:PixelUnits", "-ICC_Profile:ProfileDescription",
                    "-EXIF:CreateDate", "-EXIF:OffsetTime", "-EXIF:OffsetTimeOriginal", "-EXIF:OffsetTimeDigitized"]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.exiftool!)
        process.arguments = ["-json", "-n", "-G", "-q", "-q", "-r", "-ext", "jpg", "-ext", "jpeg", "-ext", "png", "-ext", "gif",
                             "-ext", "webp", "-ext", "heic"] + tags + [MediaCorpus.folder.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let files = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(!files.isEmpty)

        var checked: [String: Int] = [:]
        var matched: [String: Int] = [:]
        var mismatches: [String] = []
        for file in files {
            guard let path = file["SourceFile"] as? String,
                  case .read(let metadata) = BoundedRead.metadata(of: URL(fileURLWithPath: path)) else { continue }
            let properties = metadata.imageProperties
            func check(_ key: String, expected: Any?, actual: JSONValue?) {
                guard let expected = Self.text(expected) else { return }
                checked[key, default: 0] += 1
                let found = actual.flatMap { Self.text($0) }
                if found == expected {
                    matched[key, default: 0] += 1
                } else {
                    mismatches.append("\(URL(fileURLWithPath: path).lastPathComponent) \(key): exiftool \(expected), Lightbox \(found ?? "none")")
                }
            }
            if let components = file["File:ColorComponents"] as? Int {
                check("ColorModel", expected: [1: "Gray", 3: "RGB", 4: "CMYK"][components], actual: properties["ColorModel"])
                check("Depth", expected: file["File:BitsPerSample"], actual: properties["Depth"])
            }
            if let colorType = file["PNG:ColorType"] as? Int {
                check("ColorModel", expected: colorType == 0 || colorType == 4 ? "Gray" : "RGB", actual: properties["ColorModel"])
                check("Depth", expected: colorType == 3 ? 8 : file["PNG:BitDepth"], actual: properties["Depth"])
                if file["PNG:PixelUnits"] as? Int == 1, let x = file["PNG:PixelsPerUnitX"] as? Double ?? (file["PNG:PixelsPerUnitX"] as? Int).map(Double.init) {
                    check("DPIWidth", expected: (x * 0.0254).rounded(), actual: properties["DPIWidth"])
                }
            }
            check("ProfileName", expected: file["ICC_Profile:ProfileDescription"], actual: properties["ProfileName"])
            let exif = properties["{Exif}"]
            check("DateTimeDigitized", expected: file["EXIF:CreateDate"], actual: exif?["DateTimeDigitized"])
            for key in ["OffsetTime", "OffsetTimeOriginal", "OffsetTimeDigitized"] {
                check(key, expected: file["EXIF:\(key)"], actual: exif?[key])
            }
        }
        let total = checked.values.reduce(0, +)
        let rate = total == 0 ? 0 : Double(matched.values.reduce(0, +)) / Double(total)
        print("CorpusImagePropertyTests: \(files.count) images, \(total) values, match rate \(rate)")
        for key in checked.keys.sorted() { print("  \(key): \(matched[key, default: 0])/\(checked[key]!)") }
        for line in mismatches.prefix(30) { print("  mismatch: \(line)") }
        #expect(total > 0)
        #expect(rate >= Self.requiredMatchRate, "match rate \(rate) is below \(Self.requiredMatchRate)")
    }

    /// A value as text for comparison: numbers without a trailing `.0`, strings trimmed.
    static func text(_ value: Any?) -> String? {
        switch value {
        case let string as String:
            let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        case let number as Int: return String(number)
        case let number as Double: return number == number.rounded() ? String(Int(number)) : String(number)
        case let json as JSONValue:
            switch json {
            case .string(let string): return text(string)
            case .number(let number): return text(number)
            default: return nil
            }
        default: return nil
        }
    }
}
