import Foundation
import Media
import Testing

/// Every file of the shared corpus against its MANIFEST row. Skips (and says so) when the corpus is
/// not beside the repository.
@Suite(.serialized) struct CorpusTests {
    /// The overall share of MANIFEST values the readers must reproduce. Set just below what they
    /// achieve (see `corpusMatchesTheManifest`'s printout) so a regression in any reader fails the
    /// run, while the few documented disagreements between reference tools do not.
    static let requiredMatchRate = 0.995

    @Test func corpusPresenceIsReported() {
        if !MediaCorpus.isPresent {
            print("CorpusTests: no media corpus at \(MediaCorpus.folder.path); skipping the corpus tests.")
        }
    }

    @Test(.enabled(if: MediaCorpus.isPresent, "the shared media corpus is not beside the repository"))
    func corpusMatchesTheManifest() throws {
        let rows = try MediaCorpus.rows()
        #expect(!rows.isEmpty)
        var tally = MatchTally()
        let started = Date()
        for row in rows {
            let url = MediaCorpus.folder.appendingPathComponent(row.path)
            switch BoundedRead.metadata(of: url) {
            case .timedOut:
                Issue.record("\(row.path): reading its metadata did not finish in time (a hang)")
                tally.recordFailure(of: row)
            case .failed(let error as MediaError):
                #expect(!error.message.isEmpty, "\(row.path): a MediaError without a message")
                if !row.mustFail { tally.recordFailure(of: row, reason: error.message) }
            case .failed(let error):
                Issue.record("\(row.path): failed with \(error), not a MediaError")
                tally.recordFailure(of: row)
            case .read(let metadata):
                if row.mustFail {
                    Issue.record("\(row.path) is malformed and unreadable by the reference tools, yet read as \(metadata)")
                } else {
                    tally.compare(row, with: metadata)
                }
            }
        }
        print(tally.report(seconds: Date().timeIntervalSince(started)))
        #expect(tally.overallRate >= Self.requiredMatchRate,
                "overall match rate \(tally.overallRate) is below \(Self.requiredMatchRate)")
    }
}

/// Per-field counts of MANIFEST values checked and matched, and what did not match.
struct MatchTally {
    /// The MANIFEST columns checked, in report order.
    static let fields = ["width", "height", "orientation", "DateTimeOriginal", "Make", "Model", "gps",
                         "has_alpha", "animated", "frames", "duration_s"]

    var checked: [String: Int] = [:]
    var matched: [String: Int] = [:]
    var mismatches: [String] = []

    var overallRate: Double {
        let total = checked.values.reduce(0, +)
        return total == 0 ? 1 : Double(matched.values.reduce(0, +)) / Double(total)
    }

    /// Every value the row states counts as missed.
    mutating func recordFailure(of row: MediaCorpus.Row, reason: String = "no metadata") {
        for field in Self.fields where expected(field, in: row) != nil {
            checked[field, default: 0] += 1
        }
        mismatches.append("\(row.path): not read (\(reason))")
    }

    mutating func compare(_ row: MediaCorpus.Row, with metadata: MediaMetadata) {
        // Rows whose notes say a GPS IFD is present but empty: reporting a place there would be wrong.
        if row["notes"]?.contains("expect no GPS") == true {
            checked["gps", default: 0] += 1
            if metadata.location == nil {
                matched["gps", default: 0] += 1
            } else {
                mismatches.append("\(row.path): gps expected none, read \(Self.actual("gps", of: metadata) ?? "")")
            }
        }
        for field in Self.fields {
            guard let expected = expected(field, in: row) else { continue }
            checked[field, default: 0] += 1
            let actual = Self.actual(field, of: metadata)
            if Self.matches(field, expected: expected, actual: actual) {
                matched[field, default: 0] += 1
            } else {
                mismatches.append("\(row.path): \(field) expected \(expected), read \(actual ?? "nothing")")
            }
        }
    }

    func expected(_ field: String, in row: MediaCorpus.Row) -> String? {
        guard field == "gps" else { return row[field] }
        guard let latitude = row["gps_lat"], let longitude = row["gps_lon"] else { return nil }
        return "\(latitude),\(longitude)"
    }

    static func actual(_ field: String, of metadata: MediaMetadata) -> String? {
        func flag(_ value: Bool?) -> String? { value.map { $0 ? "1" : "0" } }
        switch field {
        case "width": return metadata.pixelWidth.map(String.init)
        case "height": return metadata.pixelHeight.map(String.init)
        case "orientation": return metadata.orientation.map(String.init)
        case "DateTimeOriginal": return metadata.dateTimeOriginal
        case "Make": return metadata.cameraMake
        case "Model": return metadata.cameraModel
        case "gps": return metadata.location.map { "\($0.latitude),\($0.longitude)" }
        case "has_alpha": return flag(metadata.hasAlpha)
        case "animated": return flag(metadata.isAnimated)
        case "frames": return metadata.frameCount.map(String.init)
        case "duration_s": return metadata.duration.map { String($0) }
        default: return nil
        }
    }

    static func matches(_ field: String, expected: String, actual: String?) -> Bool {
        guard let actual else { return false }
        switch field {
        case "gps":
            let want = expected.split(separator: ",").compactMap { Double($0) }
            let got = actual.split(separator: ",").compactMap { Double($0) }
            return want.count == 2 && got.count == 2 && abs(want[0] - got[0]) <= 1e-4 && abs(want[1] - got[1]) <= 1e-4
        case "duration_s":
            guard let want = Double(expected), let got = Double(actual) else { return false }
            return abs(want - got) <= 0.05
        case "width", "height", "orientation", "frames", "has_alpha", "animated":
            return Int(expected) == Int(actual)
        default:
            return expected.trimmingCharacters(in: .whitespaces) == actual.trimmingCharacters(in: .whitespaces)
        }
    }

    func report(seconds: Double) -> String {
        var lines = ["Media corpus match rates (MANIFEST values reproduced):"]
        for field in Self.fields {
            let total = checked[field] ?? 0
            let hits = matched[field] ?? 0
            let rate = total == 0 ? 100 : Double(hits) / Double(total) * 100
            lines.append("  \(field.padding(toLength: 17, withPad: " ", startingAt: 0)) \(hits)/\(total)  \(String(format: "%.1f", rate))%")
        }
        let total = checked.values.reduce(0, +)
        let hits = matched.values.reduce(0, +)
        lines.append("  overall           \(hits)/\(total)  \(String(format: "%.2f", overallRate * 100))%  (\(String(format: "%.2f", seconds)) s)")
        if !mismatches.isEmpty {
            lines.append("Mismatches:")
            lines += mismatches.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
