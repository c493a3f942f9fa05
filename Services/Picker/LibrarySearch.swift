import Foundation
import LightboxProtocol

/// What the owner typed in the pick sheet's search box, understood as its parts: a date ("2024",
/// "March 2024", "3 March 2024", "2024-03", "2024年3月"), kinds ("screenshots", "panorama", "live",
/// "视频") and the words left over, which name a place, a camera or a file (`LibrarySearch+SQL`).
/// Dates are days of the owner's calendar, so they are read in the owner's time zone.
struct LibrarySearch: Equatable, Sendable {
    /// The span of time the search names, if it names one.
    var dates: DateInterval?
    /// Kinds every result must be, in the order they were typed.
    var kinds: [PickerFilter] = []
    /// The words that are neither a date nor a kind, separated by single spaces.
    var words: String = ""

    /// The longest search read; the rest is ignored.
    static let maximumLength = 200

    var isEmpty: Bool { dates == nil && kinds.isEmpty && words.isEmpty }

    init(parsing typed: String, timeZone: TimeZone = .current) {
        var text = String(typed.prefix(Self.maximumLength)).lowercased()
        // Chinese dates first ("2024年3月5日", "2024年"), then ISO ones ("2024-03-05", "2024-03"):
        // each is taken out of the text as a whole, when it is a date of the calendar.
        if let match = text.firstMatch(of: /(\d{4})\s*年(?:\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?)?/),
           let interval = DateParts(year: Int(match.1), month: match.2.flatMap { Int($0) }, day: match.3.flatMap { Int($0) }).interval(in: timeZone) {
            dates = interval
            text.replaceSubrange(match.range, with: " ")
        } else if let match = text.firstMatch(of: /\b(\d{4})[-\/.](\d{1,2})(?:[-\/.](\d{1,2}))?\b/),
                  let interval = DateParts(year: Int(match.1), month: Int(match.2), day: match.3.flatMap { Int($0) }).interval(in: timeZone) {
            dates = interval
            text.replaceSubrange(match.range, with: " ")
        }
        for (word, kind) in Self.joinedKinds where text.contains(word) {
            text = text.replacingOccurrences(of: word, with: " ")
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        let tokens = text.split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == "的" }).map(String.init)
        // Which token is the year, the month and the day of an English date, if any.
        var date = DateParts(), year: Int?, month: Int?, day: Int?
        var used = Set<Int>()
        for (index, token) in tokens.enumerated() {
            if let kind = Self.kindWords[token] {
                if !kinds.contains(kind) { kinds.append(kind) }
                used.insert(index)
            } else if dates == nil, year == nil, token.count == 4, let number = Int(token), Self.years.contains(number) {
                (date.year, year) = (number, index)
            } else if dates == nil, month == nil, let number = Self.month(named: token) {
                (date.month, month) = (number, index)
            } else if dates == nil, day == nil, let number = Self.dayNumber(token), Self.isBesideMonth(index, tokens) {
                (date.day, day) = (number, index)
            }
        }
        // A month or a day without a year is a word after all ("may" in a file name, "3 march"),
        // and so is a day without its month.
        if date.month == nil { date.day = nil }
        if let interval = date.interval(in: timeZone) {
            dates = interval
            used.formUnion([year, date.month == nil ? nil : month, date.day == nil ? nil : day].compactMap { $0 })
        }
        words = tokens.indices.filter { !used.contains($0) }.map { tokens[$0] }.joined(separator: " ")
    }

    init(dates: DateInterval? = nil, kinds: [PickerFilter] = [], words: String = "") {
        self.dates = dates
        self.kinds = kinds
        self.words = words
    }

    /// A date as typed: a year, perhaps its month, perhaps the day.
    struct DateParts {
        var year: Int?
        var month: Int?
        var day: Int?

        /// The whole year, month or day in `timeZone`; nil when there is no year or the day is not in the month.
        func interval(in timeZone: TimeZone) -> DateInterval? {
            guard let year else { return nil }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let components = DateComponents(year: year, month: month ?? 1, day: day ?? 1)
            guard components.isValidDate(in: calendar), let start = calendar.date(from: components) else { return nil }
            let step: Calendar.Component = day != nil ? .day : month != nil ? .month : .year
            guard let end = calendar.date(byAdding: step, value: 1, to: start) else { return nil }
            return DateInterval(start: start, end: end)
        }
    }

    static let years = 1800...2200

    static func month(named word: String) -> Int? {
        let names = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
        if let index = names.firstIndex(of: word) { return index + 1 }
        if word == "sept" { return 9 }
        let trimmed = word.hasSuffix(".") ? String(word.dropLast()) : word
        if trimmed.count == 3, let index = names.firstIndex(where: { $0.hasPrefix(trimmed) }) { return index + 1 }
        return nil
    }

    /// "3", "03", "3rd", "21st": a day of a month.
    static func dayNumber(_ word: String) -> Int? {
        let digits = word.prefix { $0.isASCII && $0.isNumber }
        guard (1...2).contains(digits.count), ["", "st", "nd", "rd", "th"].contains(word.dropFirst(digits.count)),
              let day = Int(digits), (1...31).contains(day) else { return nil }
        return day
    }

    static func isBesideMonth(_ index: Int, _ tokens: [String]) -> Bool {
        [index - 1, index + 1].contains { tokens.indices.contains($0) && month(named: tokens[$0]) != nil }
    }

    /// Words of one kind (English and Chinese), each a whole token.
    static let kindWords: [String: PickerFilter] = [
        "screenshot": .screenshots, "screenshots": .screenshots,
        "panorama": .panoramas, "panoramas": .panoramas, "pano": .panoramas,
        "live": .livePhotos, "video": .videos, "videos": .videos, "movie": .videos, "movies": .videos,
        "photo": .images, "photos": .images, "picture": .images, "pictures": .images,
        "gif": .animatedImages, "gifs": .animatedImages, "animated": .animatedImages,
        "burst": .bursts, "bursts": .bursts, "slo-mo": .slomoVideos, "slomo": .slomoVideos,
        "time-lapse": .timelapseVideos, "timelapse": .timelapseVideos,
    ]

    /// Kinds written without spaces (Chinese), found anywhere in the text; longer words first.
    static let joinedKinds: [(String, PickerFilter)] = [
        ("实况照片", .livePhotos), ("屏幕快照", .screenshots), ("全景照片", .panoramas), ("延时摄影", .timelapseVideos),
        ("截屏", .screenshots), ("截图", .screenshots), ("全景", .panoramas), ("实况", .livePhotos), ("视频", .videos),
        ("照片", .images), ("图片", .images), ("动图", .animatedImages), ("连拍", .bursts), ("慢动作", .slomoVideos),
        ("live photos", .livePhotos), ("live photo", .livePhotos),
    ]
}
