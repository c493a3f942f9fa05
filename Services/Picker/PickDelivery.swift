import Foundation
import LightboxProtocol
import LightboxTransport

/// Gives a waiting app its pick's answer, however and wherever the pick was answered: the chosen
/// items (their tokens issued by the picker that took the owner's choice), no results, or an error.
struct PickDelivery: Sendable {
    /// How long a pick waits for the owner, for the app's `timeout` sentence.
    let pickTimeout: Duration

    func deliver(_ answer: PickAnswer, of session: PickSessionRecord, to reply: LaterReply<PickResponse>) {
        switch answer {
        case .chosen(let results):
            reply.succeed(PickResponse(pick: session.id, results: results), audit: PickFeature.pickAnswered(.delivered, count: results.count))
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
