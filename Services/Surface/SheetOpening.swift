/// When the surface asks the desktop to show the sheet: for a pick or prompt that arrives while no
/// page of the surface is open, once per pick or prompt, and at most once per `interval` (a window
/// that is still opening has not connected yet; more of them would not help).
struct SheetOpening {
    enum Decision: Equatable {
        /// Open the sheet now.
        case open
        /// Something new waits and a page seems open: write to the pages, so one that was closed is
        /// noticed (its connection fails) before `confirmation` has passed.
        case probePages
        case nothing
    }

    /// The least time between two opens.
    static let interval: Duration = .seconds(5)
    /// How long a page must stay open after something arrives for it to count as shown there. A page
    /// closed a moment ago still looks open until the next write to it fails.
    static let confirmation: Duration = .seconds(1)

    /// What is waiting that a page has shown or an open was made for; only waiting items are kept.
    private var announced: Set<String> = []
    /// New items first seen while a page looked open, and when.
    private var seenWithPage: [String: ContinuousClock.Instant] = [:]
    private var lastOpen: ContinuousClock.Instant?

    /// What to do for the items waiting (picks and prompts, by identifier), given whether a page
    /// follows the feed. Called after every poll, so a held-back open happens once it may.
    mutating func decide(waiting: Set<String>, pageOpen: Bool, now: ContinuousClock.Instant) -> Decision {
        announced.formIntersection(waiting)
        seenWithPage = seenWithPage.filter { waiting.contains($0.key) }
        let fresh = waiting.subtracting(announced)
        guard !fresh.isEmpty else { return .nothing }
        if pageOpen {
            for item in fresh where seenWithPage[item] == nil { seenWithPage[item] = now }
            let shown = fresh.filter { item in seenWithPage[item].map { now - $0 >= Self.confirmation } ?? false }
            announced.formUnion(shown)
            return shown.count == fresh.count ? .nothing : .probePages
        }
        if let lastOpen, now - lastOpen < Self.interval { return .nothing }
        announced = waiting
        seenWithPage = [:]
        lastOpen = now
        return .open
    }
}
