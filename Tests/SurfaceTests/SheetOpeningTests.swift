import LightboxClient
import LightboxProtocol
import Testing
@testable import Surface

/// When the surface asks the desktop to show the sheet, and with what command line.
@Suite struct SheetOpeningTests {
    let start = ContinuousClock.now

    /// `decide`, outside the #expect macro (which cannot call a mutating method).
    func ask(_ opening: inout SheetOpening, _ waiting: Set<String>, pageOpen: Bool, after seconds: Double) -> SheetOpening.Decision {
        opening.decide(waiting: waiting, pageOpen: pageOpen, now: start + .milliseconds(Int(seconds * 1000)))
    }

    @Test func opensOncePerArrivalAndNeverWhileAPageIsOpen() {
        var opening = SheetOpening()
        #expect(ask(&opening, [], pageOpen: false, after: 0) == .nothing)
        #expect(ask(&opening, ["pick:a"], pageOpen: false, after: 0) == .open)
        #expect(ask(&opening, ["pick:a"], pageOpen: false, after: 60) == .nothing, "one open per pick")
        // A page is open and stays open: what arrives is shown there.
        #expect(ask(&opening, ["pick:a", "prompt:b"], pageOpen: true, after: 61) == .probePages)
        #expect(ask(&opening, ["pick:a", "prompt:b"], pageOpen: true, after: 62) == .nothing)
        #expect(ask(&opening, ["pick:a", "prompt:b"], pageOpen: false, after: 63) == .nothing)
        #expect(ask(&opening, ["pick:a", "prompt:b", "pick:c"], pageOpen: false, after: 64) == .open)
    }

    @Test func aPageThatTurnsOutClosedDoesNotCountAsShowingIt() {
        var opening = SheetOpening()
        // The page was closed just before the pick came; it looks open until a write to it fails.
        #expect(ask(&opening, ["pick:a"], pageOpen: true, after: 0) == .probePages)
        #expect(ask(&opening, ["pick:a"], pageOpen: false, after: 0.2) == .open)
    }

    @Test func opensAtMostOncePerInterval() {
        var opening = SheetOpening()
        let interval = Double(SheetOpening.interval.components.seconds)
        #expect(ask(&opening, ["pick:a"], pageOpen: false, after: 0) == .open)
        #expect(ask(&opening, ["pick:a", "pick:b"], pageOpen: false, after: interval / 2) == .nothing)
        // Held back, not forgotten: once the interval has passed the next poll opens for it.
        #expect(ask(&opening, ["pick:a", "pick:b"], pageOpen: false, after: interval) == .open)
    }

    @Test func aPickThatLeavesAndComesBackIsNew() {
        var opening = SheetOpening()
        #expect(ask(&opening, ["pick:a"], pageOpen: false, after: 0) == .open)
        #expect(ask(&opening, [], pageOpen: false, after: 10) == .nothing)
        #expect(ask(&opening, ["pick:a"], pageOpen: false, after: 20) == .open)
    }

    @Test func theAddressIsOneArgumentAddedLastOrInPlaceOfPercentU() throws {
        let address = "http://127.0.0.1:7710/login?secret=abc;rm -rf ~&x=$(id)"
        let plain = try #require(try DesktopOpenCommand.parse("xdg-open"))
        #expect(plain.words == ["xdg-open"] && plain.arguments(opening: address) == [address])
        let app = try #require(try DesktopOpenCommand.parse(#"  "/opt/My Browser/browser" --new-window 'x y' --app=%u "#))
        #expect(app.words == ["/opt/My Browser/browser", "--new-window", "x y", "--app=%u"])
        #expect(app.arguments(opening: address) == ["--new-window", "x y", "--app=" + address])
        #expect(try DesktopOpenCommand.parse("none") == nil)
        #expect(try DesktopOpenCommand.configured(nil, environment: [:]) == DesktopOpenCommand.parse("xdg-open"))
        #expect(try DesktopOpenCommand.configured(nil, environment: [DesktopOpenCommand.environment: "none"]) == nil)
        for bad in ["", "   ", "chromium 'unclosed", "\"\""] {
            #expect(throws: LightboxError.self, "\(bad)") { try DesktopOpenCommand.parse(bad) }
        }
    }
}
