import Foundation
import LightboxClient

/// The Privacy page's report, one card per app, in sentences: "Postcard Maker opened 3 picks and
/// received 4 photos this week", thumbnails of what it read, its access in words, its last access,
/// and its recent lines as a timeline the page's script groups by day in the browser's time zone.
/// The numbers come from lightbox-auth (`owner.audit.summary`); the raw trail is one click away.
struct PrivacyReport: Sendable {
    /// The period the sentence speaks of.
    static let period: TimeInterval = 7 * 86_400
    /// Lines shown in each app's timeline, and thumbnails of what it read.
    static let timelineLength = 20
    static let thumbnails = 8

    struct Card: Sendable {
        var access: AppAccess
        var summary: AuditSummary
        var recent: [AuditEntry]
    }

    let cards: [Card]

    /// Each app's summary for the last week and its newest lines: two bounded queries per app.
    static func load(_ apps: [AppAccess], settings: OwnerSettings, now: Date = Date()) async throws -> PrivacyReport {
        var cards: [Card] = []
        for app in apps {
            let summary = try await settings.auditSummary(of: app.app, since: now.addingTimeInterval(-period), recentLimit: thumbnails)
            let recent = try await settings.audit(AuditRequest(app: app.app, limit: timelineLength)).entries
            cards.append(Card(access: app, summary: summary, recent: recent))
        }
        return PrivacyReport(cards: cards)
    }

    func html(strings: SurfaceStrings) -> String {
        guard !cards.isEmpty else { return "" }
        return "<section class=\"reports\" aria-labelledby=\"report-title\"><h2 id=\"report-title\">\(strings("This week"))</h2>"
            + cards.map { Self.card($0, strings: strings) }.joined() + "</section>"
    }

    static func card(_ card: Card, strings: SurfaceStrings) -> String {
        let app = card.access, summary = card.summary
        let name = HTML.escape(app.name), id = HTML.escape(app.app)
        let thumbnails = summary.recentAssets.prefix(Self.thumbnails).map {
            "<li><img src=\"/thumb?asset=\(Pages.percent($0))&amp;side=128\" alt=\"\"></li>"
        }.joined()
        let read = thumbnails.isEmpty ? "" : "<ul class=\"strip read\" aria-label=\"\(HTML.escape(strings("What “{app}” read", ["app": app.name])))\">\(thumbnails)</ul>"
        let last = summary.lastAccess.map { strings("Last access: {time}", ["time": Pages.localTime($0)]) } ?? strings("No access recorded")
        let timeline = card.recent.map { entry in
            let times = entry.times.map { " <span class=\"times\">×\($0)</span>" } ?? ""
            return "<li data-at=\"\(HTML.escape(Pages.isoText(entry.at)))\">\(Pages.localTime(entry.at)) "
                + "<span>\(HTML.escape(AuditWording.sentence(entry, strings: strings)))\(times)</span></li>"
        }.joined()
        let history = timeline.isEmpty ? "" : """
            <details class="timeline"><summary>\(strings("Timeline"))</summary><ol data-timeline>\(timeline)</ol></details>
            """
        return """
            <article class="report" data-report="\(id)">
            <h3>\(name)</h3>
            <p class="sentence">\(HTML.escape(sentence(summary, name: app.name, strings: strings)))</p>
            <p class="access-words">\(HTML.escape(access(app, strings: strings)))</p>
            <p class="last">\(last)</p>
            \(read)\(history)
            <p><a href="/activity?app=\(Pages.percent(app.app))&amp;raw=1">\(strings("The raw trail of “{app}”", ["app": app.name]))</a></p>
            </article>
            """
    }

    /// "Postcard Maker opened 3 picks and received 4 photos this week." (and what else it read).
    static func sentence(_ summary: AuditSummary, name: String, strings: SurfaceStrings) -> String {
        var text: String
        if summary.picksOpened == 0 && summary.itemsReceived == 0 {
            text = strings("{app} opened no picks this week.", ["app": name])
        } else {
            text = strings("{app} opened {picks} and received {photos} this week.", [
                "app": name,
                "picks": strings.count(summary.picksOpened, one: "1 pick", many: "{count} picks"),
                "photos": strings.count(summary.itemsReceived, one: "1 photo", many: "{count} photos"),
            ])
        }
        if summary.reads > 0 {
            text += strings(" ") + strings.count(summary.reads, one: "It read photo or video content once.",
                                                  many: "It read photo or video content {count} times.")
        }
        return text
    }

    /// "Limited to 12 photos · Add only: not asked yet"; a desktop app only picks.
    static func access(_ app: AppAccess, strings: SurfaceStrings) -> String {
        if app.portal == true { return strings("Picks only, through the desktop's file chooser") }
        let photos: String = switch app.readWrite {
        case .limited:
            if let albums = app.albums {
                // A selection that follows albums: how many photos chosen, how many albums followed.
                strings("Limited to {photos} and {albums}", ["photos": strings.count(app.selectionCount, one: "1 photo", many: "{count} photos"),
                                                             "albums": strings.count(albums.count, one: "1 album", many: "{count} albums")])
            } else {
                strings.count(app.selectionCount, one: "Limited to 1 photo", many: "Limited to {count} photos")
            }
        case .authorized: strings("Full access to your photos")
        case .denied: strings("No access to your photos")
        case .restricted: strings("Photos: restricted")
        case .notDetermined: strings("Photos: not asked yet")
        }
        return photos + strings(" · ") + strings("Add only: {status}", ["status": AuditWording.words(app.addOnly, strings: strings).lowercased()])
    }
}
