import LightboxClient
import LightboxProtocol
import Testing
@testable import Surface

/// When the surface asks the desktop to show the sheet, and with what command line.
@Suite struct SheetOpeningTests {
    let start = ContinuousClock.now

    /// `shouldOpen`, outside the #expect macro (which cannot call a mutating method).
    func ask(_ opening: inout SheetOpening, waiting: Set<String>, pageOpen: Bool, now: ContinuousClock.Instant) -> Bool {
        opening.shouldOpen(waiting: waiting, pageOpen: pageOpen, now: now)
    }

    @Test func opensOncePerArrivalAndNeverWhileAPageIsOpen() {
        var opening = SheetOpening()
        #expect(!ask(&opening, waiting: [], pageOpen: false, now: start))
        #expect(ask(&opening, waiting: ["pick:a"], pageOpen: false, now: start))
        #expect(!ask(&opening, waiting: ["pick:a"], pageOpen: false, now: start + .seconds(60)), "one open per pick")
        // A page is open: what arrives is shown there, and counts as announced.
        #expect(!ask(&opening, waiting: ["pick:a", "prompt:b"], pageOpen: true, now: start + .seconds(61)))
        #expect(!ask(&opening, waiting: ["pick:a", "prompt:b"], pageOpen: false, now: start + .seconds(62)))
        #expect(ask(&opening, waiting: ["pick:a", "prompt:b", "pick:c"], pageOpen: false, now: start + .seconds(63)))
    }

    @Test func opensAtMostOncePerInterval() {
        var opening = SheetOpening()
        #expect(ask(&opening, waiting: ["pick:a"], pageOpen: false, now: start))
        let soon = start + SheetOpening.interval / 2
        #expect(!ask(&opening, waiting: ["pick:a", "pick:b"], pageOpen: false, now: soon))
        // Held back, not forgotten: once the interval has passed the next poll opens for it.
        #expect(ask(&opening, waiting: ["pick:a", "pick:b"], pageOpen: false, now: start + SheetOpening.interval))
    }

    @Test func aPickThatLeavesAndComesBackIsNew() {
        var opening = SheetOpening()
        #expect(ask(&opening, waiting: ["pick:a"], pageOpen: false, now: start))
        #expect(!ask(&opening, waiting: [], pageOpen: false, now: start + .seconds(10)))
        #expect(ask(&opening, waiting: ["pick:a"], pageOpen: false, now: start + .seconds(20)))
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
