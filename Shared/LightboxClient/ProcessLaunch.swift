import Foundation

/// This process's launch id: made at first use and the same for every connection the process opens
/// to the services, which it says on each (`service.hello`). The services show a limited app's
/// "Select More Photos…" alert once per launch, so two connections of one run of an app give one
/// alert and the next run another. Who the app is still comes from its key alone.
public enum ProcessLaunch {
    public static let id: String = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
}
