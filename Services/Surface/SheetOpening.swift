/// When the surface asks the desktop to show the sheet: for a pick or prompt that arrives while no
/// page of the surface is open, once per pick or prompt, and at most once per `interval` (a window
/// that is still opening has not connected yet; more of them would not help).
struct SheetOpening {
    /// The least time between two opens.
    static let interval: Duration = .seconds(5)

    /// What is waiting that a page has shown or an open was made for; only waiting items are kept.
    private var announced: Set<String> = []
    private var lastOpen: ContinuousClock.Instant?

    /// Whether to open the sheet now, for the items waiting (picks and prompts, by identifier) and
    /// whether a page is following the feed.
    mutating func shouldOpen(waiting: Set<String>, pageOpen: Bool, now: ContinuousClock.Instant) -> Bool {
        announced.formIntersection(waiting)
        guard !waiting.isSubset(of: announced) else { return false }
        if pageOpen {
            announced = waiting
            return false
        }
        if let lastOpen, now - lastOpen < Self.interval { return false }
        announced = waiting
        lastOpen = now
        return true
    }
}
