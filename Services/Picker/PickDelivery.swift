import Crypto
import Foundation
import LightboxProtocol
import LightboxTransport

/// Gives a waiting app its pick's answer, however and wherever the pick was answered: the chosen
/// items (their tokens issued by the picker that took the owner's choice), no results, or an error.
struct PickDelivery: Sendable {
    /// How long a pick waits for the owner, for the app's `timeout` sentence.
    let pickTimeout: Duration

    /// Delivers `answer`; chosen results are opened with the holder's `key`.
    func deliver(_ answer: PickAnswer, of session: PickSessionRecord, to reply: LaterReply<PickResponse>, key: Curve25519.KeyAgreement.PrivateKey) {
        switch answer {
        case .chosen(let sealed):
            do {
                let results = try sealed.open(with: key, pick: session.id)
                reply.succeed(PickResponse(pick: session.id, results: results), audit: PickFeature.pickAnswered(.delivered, count: results.count))
            } catch {
                reply.fail(error, audit: PickFeature.pickAnswered(.failed))
            }
        case .cancelled:
            reply.succeed(PickResponse(pick: session.id, results: []), audit: PickFeature.pickAnswered(.cancelled))
        case .timedOut:
            reply.fail(LightboxError(.timeout, "The owner did not finish the pick within \(pickTimeout); ask again."),
                       audit: PickFeature.pickAnswered(.timeout))
        case .shuttingDown:
            reply.fail(LightboxError(.cancelled, "lightbox-picker is shutting down; try the pick again when it is back."),
                       audit: PickFeature.pickAnswered(.cancelled))
        }
    }
}
