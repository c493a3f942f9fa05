import Foundation
import LightboxProtocol

/// The pickers of one library, in the order a client tries them, written as one comma-separated
/// list (`LIGHTBOX_PICKER_ENDPOINT`, `--picker-endpoint`): `tcp://a:7712,tcp://b:7712`. All of
/// them hold the same service key (an operator copies `keys/picker.key` and `keys/picker.pub` to
/// every picker's data folder), so a client checks each against one `keys/picker.pub`.
public enum PickerEndpoints {
    /// The endpoints in `list`, blanks around commas and empty entries dropped.
    public static func parse(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The endpoints written back as one list.
    public static func join(_ endpoints: [String]) -> String {
        endpoints.joined(separator: ",")
    }

    /// Requests a failover connection sends again at the next picker when the one it used stopped
    /// answering before any reply reached the app: reads, which change nothing but the audit log
    /// (a read sent twice may be audited twice). Everything else — a pick, a create, an album or
    /// edit change, a delete, a watch — may have been carried out by the picker that died, so it
    /// ends with `timeout` and a sentence saying so instead of possibly acting twice. Credit streams
    /// (`provider.load`) are restarted by `CreditStream`, which skips the bytes already delivered.
    public static let repeatableOperations: Set<OperationName> = [
        .ping, .whoami, .describe, .fetchAssets, .queryAssets, .albums, .albumAssets, .libraryChanges,
        .requestImage, .imageProperties, .editingInput,
        .pendingPicks, .listAssets, .outline, .thumbnail, .assetDetails, .mediaRange,
    ]
}
