import LightboxProtocol
import Testing
@testable import Auth

/// A launch is a process when the client said it, else a connection; remembered per app, bounded.
@Suite struct LaunchTrackerTests {
    @Test func connectionsOfOneLaunchAreOneLaunch() async {
        let tracker = LaunchTracker()
        #expect(await tracker.isFirstAccess(AppLaunch(app: "editor", connection: "c1", launch: "p1")))
        #expect(await !tracker.isFirstAccess(AppLaunch(app: "editor", connection: "c2", launch: "p1")))
        #expect(await tracker.isFirstAccess(AppLaunch(app: "editor", connection: "c3", launch: "p2")))
        // Another app's launch with the same id is its own.
        #expect(await tracker.isFirstAccess(AppLaunch(app: "other", connection: "c4", launch: "p1")))
        // Without a launch, each connection is one, and a connection id never meets a launch id.
        #expect(await tracker.isFirstAccess(AppLaunch(app: "editor", connection: "c5")))
        #expect(await !tracker.isFirstAccess(AppLaunch(app: "editor", connection: "c5")))
        #expect(await tracker.isFirstAccess(AppLaunch(app: "editor", connection: "p1")))
    }

    @Test func anAppThatInventsLaunchesIsBounded() async {
        let tracker = LaunchTracker()
        for index in 0..<(LaunchTracker.launchesPerApp * 3) {
            #expect(await tracker.isFirstAccess(AppLaunch(app: "flood", connection: "c\(index)", launch: "l\(index)")))
        }
        #expect(await tracker.remembered(of: "flood") == LaunchTracker.launchesPerApp)
        // The newest are remembered, the oldest forgotten.
        #expect(await !tracker.isFirstAccess(AppLaunch(app: "flood", connection: "x", launch: "l\(LaunchTracker.launchesPerApp * 3 - 1)")))
        #expect(await tracker.isFirstAccess(AppLaunch(app: "flood", connection: "x", launch: "l0")))
    }
}
