import Foundation
import HTTPTypes
import Hummingbird
import LightboxClient

/// The surface's pages, written as HTML by hand: a layout, a few server-rendered views, and
/// placeholders the page's own scripts (Web/*.js) fill in. Every outside value is escaped.
enum Pages {
    enum Tab: String, CaseIterable {
        case picks = "Requests", library = "Library", privacy = "Privacy", activity = "Activity"

        var path: String {
            switch self {
            case .picks: "/"
            case .library: "/library"
            case .privacy: "/privacy"
            case .activity: "/activity"
            }
        }
    }

    /// A page in `strings`' language; the page scripts read the same table from the page.
    static func page(_ tab: Tab?, title: String, csrf: String, body: String, strings: SurfaceStrings = .english) -> Response {
        let navigation = Tab.allCases.map { item in
            "<a href=\"\(item.path)\"\(item == tab ? " aria-current=\"page\"" : "")>\(HTML.escape(strings(item.rawValue)))</a>"
        }.joined()
        let text = """
        <!doctype html>
        <html lang="\(strings.language.tag)">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="csrf-token" content="\(HTML.escape(csrf))">
        <title>\(HTML.escape(title)) — Lightbox</title>
        <link rel="stylesheet" href="/static/surface.css">
        <script type="application/json" id="surface-strings">\(strings.json)</script>
        <script type="module" src="/static/surface.js"></script>
        </head>
        <body data-page="\(tab.map { "\($0)" } ?? "other")">
        <header class="bar"><span class="brand">Lightbox</span><nav>\(navigation)</nav></header>
        <main>
        \(body)
        </main>
        <div id="overlay" class="overlay" hidden></div>
        <div id="layer" class="overlay layer" hidden></div>
        </body>
        </html>
        """
        return html(text)
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A page that says why a request was refused and what to do, in the browser's language.
    /// `message` is looked up in the table; its `{name}`s are filled from `values`, and from `code`
    /// as code (a command to type or a file's name, never translated).
    static func refusal(_ status: HTTPResponse.Status, title: String, message: String, values: [String: String] = [:],
                        code: [String: String] = [:], strings: SurfaceStrings = .english) -> Response {
        html(refusalPage(title: title, message: message, values: values, code: code, strings: strings), status: status)
    }

    static func refusalPage(title: String, message: String, values: [String: String] = [:], code: [String: String] = [:],
                            strings: SurfaceStrings = .english) -> String {
        // Code goes in after the sentence is escaped, through markers no table or value contains.
        var filled = values
        for (index, name) in code.keys.sorted().enumerated() { filled[name] = "\u{1}\(index)\u{1}" }
        var sentence = HTML.escape(strings(message, filled))
        for (index, name) in code.keys.sorted().enumerated() {
            sentence = sentence.replacingOccurrences(of: "\u{1}\(index)\u{1}", with: "<code>\(HTML.escape(code[name] ?? ""))</code>")
        }
        return """
        <!doctype html>
        <html lang="\(strings.language.tag)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>\(HTML.escape(strings(title))) — Lightbox</title>
        <link rel="stylesheet" href="/static/surface.css"></head>
        <body><main class="refusal"><h1>\(HTML.escape(strings(title)))</h1><p>\(sentence)</p></main></body></html>
        """
    }

    // MARK: Views

    static func requests(_ state: OwnerFeed.State, strings: SurfaceStrings = .english) -> String {
        """
        <h1>\(strings("Requests"))</h1>
        <p class="hint">\(strings("When an app asks for photos or for access, it appears here at once."))</p>
        <section id="queue" class="queue">\(queue(state, strings: strings))</section>
        """
    }

    /// The waiting picks and prompts (the script redraws the same markup on every change).
    static func queue(_ state: OwnerFeed.State, strings: SurfaceStrings = .english) -> String {
        if state.picks.isEmpty && state.prompts.isEmpty { return "<p class=\"empty\">\(strings("Nothing is waiting for you."))</p>" }
        let picks = state.picks.map {
            "<li class=\"request\" data-pick=\"\(HTML.escape($0.pick))\">\(HTML.escape($0.sentences[strings.language.tag] ?? $0.sentence))</li>"
        }
        let prompts = state.prompts.map {
            "<li class=\"request\" data-prompt=\"\(HTML.escape($0.prompt))\">\(HTML.escape(strings("{app} asks for access", ["app": $0.appName])))</li>"
        }
        return "<ul>" + (picks + prompts).joined() + "</ul>"
    }

    static func library(strings: SurfaceStrings = .english) -> String {
        """
        <h1>\(strings("Library"))</h1>
        <form id="import" class="import">
        <label>\(strings("Import a folder")) <input name="path" placeholder="/home/you/Pictures/new" required></label>
        <button type="submit">\(strings("Import"))</button>
        <progress id="import-progress" max="1" value="0" hidden></progress><span id="import-status" class="status"></span>
        </form>
        <div id="library-grid" class="grid" data-mode="browse"></div>
        """
    }

    static func asset(_ details: AssetDetails, strings: SurfaceStrings = .english) -> String {
        let summary = details.summary
        let tiff = details.properties["{TIFF}"]
        let gps = details.properties["{GPS}"]
        var rows: [(String, String)] = [
            ("File", summary.fileName), ("Type", summary.type.identifier), ("Kind", summary.mediaType.rawValue),
            ("Size", strings("{width} × {height} pixels, {bytes}", ["width": summary.pixelWidth.map(String.init) ?? "?",
                                                                   "height": summary.pixelHeight.map(String.init) ?? "?", "bytes": byteCount(summary.fileSize)])),
        ]
        if let duration = summary.duration { rows.append(("Duration", String(format: "%.1f s", duration))) }
        if !summary.subtypes.isEmpty { rows.append(("Subtypes", summary.subtypes.map(\.rawValue).joined(separator: ", "))) }
        let camera = [tiff?["Make"], tiff?["Model"]].compactMap { $0.flatMap(text) }.joined(separator: " ")
        if !camera.isEmpty { rows.append(("Camera", camera)) }
        if let latitude = gps?["Latitude"].flatMap(number), let longitude = gps?["Longitude"].flatMap(number) {
            let north = gps?["LatitudeRef"].flatMap(text) == "S" ? -latitude : latitude
            let east = gps?["LongitudeRef"].flatMap(text) == "W" ? -longitude : longitude
            rows.append(("Location", String(format: "%.5f, %.5f", north, east)))
        }
        rows.append(("Stored", strings(summary.isInCloud ? "in the cloud tier" : "on this machine")))
        func row(_ label: String, _ html: String) -> String { "<tr><th>\(HTML.escape(strings(label)))</th><td>\(html)</td></tr>" }
        let escaped = rows.map { row($0.0, HTML.escape($0.1)) }
        // Times are written for the page's script to show in the browser's time zone and language.
        let times = [row("Created", localTime(summary.creationDate)), row("Imported", localTime(details.importedAt))]
        let table = (escaped.prefix(4) + times + escaped.dropFirst(4)).joined()
        let identifier = HTML.escape(summary.identifier)
        let action = summary.isInCloud ? "restore" : "offload"
        // The thumbnail is of the current version; its address changes with it (browsers keep thumbnails a day).
        let version = details.edit.map { "&amp;version=\(Int($0.version.editedAt.timeIntervalSince1970))" } ?? ""
        return """
        <h1>\(HTML.escape(summary.fileName))</h1>
        <div class="details">
        <img class="preview" src="/thumb?asset=\(percent(summary.identifier))&amp;side=512\(version)" alt="\(HTML.escape(summary.fileName))">
        <table class="facts">\(table)<tr><th>\(strings("Identifier"))</th><td><code>\(identifier)</code></td></tr></table>
        </div>
        \(details.edit.map { editedBy($0, asset: identifier, strings: strings) } ?? "")
        <p><button class="action" data-asset-action="\(action)" data-asset="\(identifier)">\(strings(summary.isInCloud ? "Restore from the cloud" : "Offload to the cloud"))</button>
        <a href="/library">\(strings("Back to the library"))</a></p>
        """
    }

    /// "Edited by Darkroom" and the way back to the original, on an asset's page.
    static func editedBy(_ edit: OwnerAssetEdit, asset identifier: String, strings: SurfaceStrings) -> String {
        let version = edit.version
        let size = version.pixelWidth.flatMap { width in version.pixelHeight.map { "\(width) × \($0)" } }
        return """
        <p class="edited" data-edited-by="\(HTML.escape(edit.app))">\(HTML.escape(strings("Edited by {app}", ["app": edit.appName ?? edit.app])))
        <span class="count">\(localTime(version.editedAt))\(size.map { " · " + HTML.escape($0) } ?? "")</span>
        <button class="action" data-asset-action="revert" data-asset="\(identifier)">\(strings("Revert to original"))</button></p>
        """
    }

    static func privacy(_ apps: [AppAccess], report: PrivacyReport? = nil, albums: [Album] = [], strings: SurfaceStrings = .english) -> String {
        guard !apps.isEmpty else {
            return "<h1>\(strings("Privacy"))</h1><p class=\"empty\">\(strings("No apps are registered yet ({command}).", ["command": "`lightbox app register`"]))</p>"
        }
        let rows = apps.map { app -> String in
            let id = HTML.escape(app.app)
            if app.portal == true { return desktopAppRow(app, strings: strings) }
            func options(_ choices: [(String, String)], current: String) -> String {
                choices.map { "<option value=\"\($0.0)\"\($0.0 == current ? " selected" : "")>\(strings($0.1))</option>" }.joined()
            }
            let readWrite = switch app.readWrite {
            case .authorized: "full"
            case .limited: "limited"
            case .restricted: "restricted"
            case .denied: "none"
            default: "notDetermined"
            }
            let addOnly = switch app.addOnly {
            case .authorized: "allow"
            case .restricted: "restricted"
            case .denied: "none"
            default: "notDetermined"
            }
            return """
            <tr data-app="\(id)">
            <td><strong>\(HTML.escape(app.name))</strong><br><code>\(id)</code>
            <span class="count access-words">\(strings("Photos: {status}", ["status": readWriteWords(app, strings: strings)]))\(termWords(app.readWriteTerm, strings: strings)) · \(strings("Add only: {status}", ["status": AuditWording.words(app.addOnly, strings: strings).lowercased()]))\(termWords(app.addOnlyTerm, strings: strings))\(locationSentence(app, strings: strings))</span>\(albumGrantWords(app, albums: albums, strings: strings))\(app.resetAsUnusedSince.map { "<span class=\"count reset-unused\">\(strings("Reset because unused since {time}", ["time": localTime($0)]))</span>" } ?? "")</td>
            <td data-label="\(strings("Photos"))"><select data-setting="readWrite" aria-label="\(HTML.escape(strings("Photos access of {app}", ["app": app.name])))">\(options([("notDetermined", "Not asked yet"), ("full", "Full Access"), ("limited", "Limited Access"), ("none", "None"), ("restricted", "Restricted")], current: readWrite))</select>
            </td>
            <td data-label="\(strings("Add only"))"><select data-setting="addOnly" aria-label="\(HTML.escape(strings("Add-only access of {app}", ["app": app.name])))">\(options([("notDetermined", "Not asked yet"), ("allow", "Allowed"), ("none", "None"), ("restricted", "Restricted")], current: addOnly))</select></td>
            <td data-label="\(strings("Location"))">\(locationCell(app, strings: strings))</td>
            <td data-label="\(strings("Access lasts"))"><select data-term aria-label="\(HTML.escape(strings("How long access given to {app} lasts", ["app": app.name])))"></select></td>
            <td class="actions"><button data-app-action="select"\(app.readWrite == .limited ? "" : " disabled")>\(strings("Edit selection"))</button>
            <button data-app-action="reset">\(strings("Reset"))</button> <button data-app-action="revoke">\(strings("Revoke items"))</button>
            <a href="/activity?app=\(percent(app.app))">\(strings("Activity"))</a></td>
            </tr>
            """
        }.joined()
        return """
        <h1>\(strings("Privacy"))</h1>
        <p class="hint">\(strings("What each app may see. Picks need no permission; library access is yours to give and take back."))</p>
        \(report?.html(strings: strings) ?? "")
        <h2>\(strings("Access"))</h2>
        <table class="apps"><thead><tr><th>\(strings("App"))</th><th>\(strings("Photos"))</th><th>\(strings("Add only"))</th><th>\(strings("Location"))</th><th>\(strings("Access lasts"))</th><th></th></tr></thead><tbody>\(rows)</tbody></table>
        <p id="privacy-status" class="status" role="status"></p>
        """
    }

    /// "Limited to 3 photos"; a selection of albums alone says so (the albums follow on their own lines).
    static func readWriteWords(_ app: AppAccess, strings: SurfaceStrings) -> String {
        if app.readWrite == .limited, app.selectionCount == 0, app.albums != nil { return strings("Limited to the albums below") }
        return AuditWording.words(app.readWrite, selectionCount: app.selectionCount, strings: strings)
    }

    /// The albums a limited app's selection follows, "Family — 214 photos, follows new ones", each
    /// on its own line; nothing for none, nor for an album the library no longer has.
    static func albumGrantWords(_ app: AppAccess, albums: [Album], strings: SurfaceStrings) -> String {
        guard app.readWrite == .limited, let followed = app.albums else { return "" }
        let byIdentifier = Dictionary(albums.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        return followed.compactMap { byIdentifier[$0] }.map { album in
            let count = album.assetCount ?? 0
            let words = strings(count == 1 ? "{title} — 1 photo, follows new ones" : "{title} — {count} photos, follows new ones",
                                ["title": album.title, "count": "\(count)"])
            return "<span class=\"count album-grants\">\(HTML.escape(words))</span>"
        }.joined()
    }

    /// Where an app's photos were taken, as its library reads deliver it: a choice up to what the app
    /// asked for, or words when it never asked (the owner cannot give what was not asked).
    static func locationCell(_ app: AppAccess, strings: SurfaceStrings) -> String {
        let asked = app.locationRequested ?? LocationAccess.none
        guard asked != .none else { return "<span class=\"count\" data-location-not-asked>\(strings("Not asked"))</span>" }
        let choices = LocationAccess.allCases.filter { $0 <= asked }.reversed().map { choice in
            "<option value=\"\(choice.rawValue)\"\(choice == (app.location ?? LocationAccess.none) ? " selected" : "")>\(strings(locationWords[choice]!))</option>"
        }.joined()
        return "<select data-setting=\"location\" aria-label=\"\(HTML.escape(strings("Where {app} learns photos were taken", ["app": app.name])))\">\(choices)</select>"
    }

    /// " · Location: approximate" after the levels' words when the app's reads deliver a location.
    static func locationSentence(_ app: AppAccess, strings: SurfaceStrings) -> String {
        guard let location = app.location, location != .none else { return "" }
        return " · " + strings("Location: {location}", ["location": strings(locationWords[location]!).lowercased()])
    }

    /// The owner's words for each location an app may receive.
    static let locationWords: [LocationAccess: String] = [.precise: "Precise", .approximate: "Approximate", .none: "None"]

    /// " until <time>" after a level's words when its grant ends; nothing when it lasts until changed.
    static func termWords(_ term: GrantTerm?, strings: SurfaceStrings) -> String {
        guard let term else { return "" }
        let text = term.afterwards == .deny ? "until {time}, then denied" : "until {time}, then asked again"
        return " " + strings(text, ["time": localTime(term.until, short: true)])
    }

    /// A desktop app that picks through lightbox-portal: no library access to set, only its items to revoke.
    static func desktopAppRow(_ app: AppAccess, strings: SurfaceStrings) -> String {
        let id = HTML.escape(app.app)
        return """
            <tr data-app="\(id)" data-portal="true">
            <td><strong>\(HTML.escape(app.name))</strong><br><code>\(id)</code></td>
            <td colspan="2" class="hint">\(strings("Picks only, through the desktop's file chooser"))</td>
            <td class="actions"><button data-app-action="revoke">\(strings("Revoke items"))</button>
            <a href="/activity?app=\(percent(app.app))">\(strings("Activity"))</a></td>
            </tr>
            """
    }

    static func activity(_ entries: [AuditEntry], apps: [AppAccess], app: String?, day: String?, next: Int64?, showsRaw: Bool = false,
                         today: Date = Date(), strings: SurfaceStrings = .english) -> String {
        let choices = (["<option value=\"\">\(strings("All apps"))</option>"] + apps.map {
            "<option value=\"\(HTML.escape($0.app))\"\($0.app == app ? " selected" : "")>\(HTML.escape($0.name))</option>"
        }).joined()
        // Apps by the names the owner knows them by (a desktop app's from its desktop file).
        let names = Dictionary(apps.map { ($0.app, $0.name) }, uniquingKeysWith: { first, _ in first })
        let rows = entries.map { entry in
            let who = names[entry.app].map { "<span title=\"\(HTML.escape(entry.app))\">\(HTML.escape($0))</span>" } ?? HTML.escape(entry.app)
            // A line that stands for repeats says how many, and until when.
            let times = entry.times.map {
                " <span class=\"times\">\(strings("({count} times, the last at {time})", ["count": "\($0)", "time": localTime(entry.lastAt ?? entry.at)]))</span>"
            } ?? ""
            let size = entry.bytes.map { " <span class=\"times\">· \(byteCount($0))</span>" } ?? ""
            return "<tr><td>\(localTime(entry.at))</td><td>\(who)</td><td>\(HTML.escape(AuditWording.sentence(entry, strings: strings)))\(times)\(size)</td></tr>"
        }.joined()
        // The trail as recorded, codes and all, one click away.
        let raw = entries.map { entry in
            let detail = [entry.bytes.map { byteCount($0) }, entry.asset].compactMap { $0 }.joined(separator: " · ")
            let what = HTML.escape(entry.operation) + (entry.times.map { " <span class=\"repeats\">×\($0)</span>" } ?? "")
            return "<tr><td>\(HTML.escape(dateText(entry.at)))</td><td><code>\(HTML.escape(entry.app))</code></td><td>\(what)</td>"
                + "<td class=\"number\">\(entry.assetCount)</td><td>\(HTML.escape(entry.outcome))</td><td>\(HTML.escape(detail))</td></tr>"
        }.joined()
        var older = ""
        if let next {
            var query = ["before=\(next)"]
            if let app { query.append("app=\(percent(app))") }
            if let day { query.append("day=\(percent(day))") }
            older = "<p><a href=\"/activity?\(query.joined(separator: "&amp;"))\">\(strings("Older entries"))</a></p>"
        }
        return """
        <h1>\(strings("Activity"))</h1>
        <p class="hint">\(strings("Every pick, load, fetch, image and video request and every decision, newest first."))</p>
        <form class="filters" method="get" action="/activity">
        <label>\(strings("App")) <select name="app">\(choices)</select></label>
        <label>\(strings("Day")) <select name="day" data-days>\(dayChoices(selected: day, today: today, strings: strings))</select></label>
        <button type="submit">\(strings("Show"))</button>
        </form>
        \(entries.isEmpty ? "<p class=\"empty\">\(strings("Nothing recorded for this choice."))</p>" : """
        <table class="activity"><thead><tr><th>\(strings("When"))</th><th>\(strings("App"))</th><th>\(strings("What happened"))</th></tr></thead><tbody>\(rows)</tbody></table>
        <details class="raw"\(showsRaw ? " open" : "")><summary>\(strings("Raw trail (the codes as recorded)"))</summary>
        <div class="wide-table"><table class="raw-trail"><thead><tr><th>\(strings("Time (UTC)"))</th><th>\(strings("App id"))</th><th>\(strings("Operation"))</th><th>\(strings("Count"))</th><th>\(strings("Outcome"))</th><th>\(strings("Detail"))</th></tr></thead><tbody>\(raw)</tbody></table></div>
        </details>
        """)
        \(older)
        """
    }

    /// The last 30 days (UTC, as the `day` filter reads them), newest first, and the chosen one if
    /// older. Labelled by their numbers; the page's script writes them in the browser's language.
    static func dayChoices(selected: String?, today: Date, strings: SurfaceStrings) -> String {
        var days = (0..<30).map { dayText(today.addingTimeInterval(-Double($0) * 86_400)) }
        if let selected, !days.contains(selected) { days.append(selected) }
        return "<option value=\"\">\(strings("Any day"))</option>" + days.map { day in
            "<option value=\"\(HTML.escape(day))\"\(day == selected ? " selected" : "")>\(HTML.escape(day))</option>"
        }.joined()
    }

    // MARK: Formatting

    static func dayText(_ date: Date) -> String { utcText(date, format: "yyyy-MM-dd") }

    static func dateText(_ date: Date) -> String { utcText(date, format: "yyyy-MM-dd HH:mm:ss 'UTC'") }

    /// A date in UTC in a fixed form, the same in every language.
    static func utcText(_ date: Date, format: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter.string(from: date)
    }

    /// A time the page's script rewrites in the browser's time zone and language; UTC until it does.
    static func localTime(_ date: Date, short: Bool = false) -> String {
        "<time datetime=\"\(HTML.escape(isoText(date)))\"\(short ? " data-short" : "")>\(HTML.escape(dateText(date)))</time>"
    }

    static func isoText(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    static func byteCount(_ bytes: Int64) -> String {
        bytes < 1024 ? "\(bytes) B" : bytes < 1 << 20 ? String(format: "%.1f KB", Double(bytes) / 1024)
            : String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }

    static func percent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }

    static func text(_ value: JSONValue) -> String? {
        if case .string(let string) = value { return string }
        return nil
    }

    static func number(_ value: JSONValue) -> Double? {
        if case .number(let number) = value { return number }
        return nil
    }
}
