import Foundation

/// The way into the wire decoding for the fuzzers (Fuzz/) and for the replay of their findings in
/// the tests, so both run exactly the same code. Never throws: a fuzzer looks only for crashes.
///
/// The first byte of the input chooses what is decoded (one of `bodyDecoders`, or the text form of
/// a picker filter); the rest is a request's header frame, read as a service reads it: the
/// `RequestHead` (by JSONDecoder, by `RequestHeadScanner` and by `WireJSONDecoder`, which must all
/// agree), then the body as that type (by `WireJSONDecoder`, which must read it as JSONDecoder
/// does). A body that decodes must encode again and decode from its own encoding, else something
/// the services accept cannot be sent back.
public enum WireFuzzEntry {
    public static func decode(_ input: Data) {
        guard let selector = input.first else { return }
        let rest = input.dropFirst()
        let header = Data(rest)
        let decoded = try? WireCoding.makeDecoder().decode(RequestHead.self, from: header)
        // The services read heads with the scanner first: it must never read one JSONDecoder would not.
        if let scanned = RequestHeadScanner.scan(header) {
            precondition(scanned == decoded, "the head scanner read \(scanned), JSONDecoder \(String(describing: decoded))")
        }
        if let fast = WireJSONDecoder.fastDecode(RequestHead.self, from: header) {
            precondition(fast == decoded, "the wire decoder read \(fast), JSONDecoder \(String(describing: decoded))")
        }
        let choice = Int(selector) % (bodyDecoders.count + 1)
        if choice == bodyDecoders.count {
            _ = try? PickerFilter(parsing: String(decoding: rest, as: UTF8.self))
        } else {
            bodyDecoders[choice](header)
        }
    }

    /// One decoder per request body type a service or client decodes from a header frame.
    public static let bodyDecoders: [@Sendable (Data) -> Void] = [
        probe(Empty.self), probe(RegisterAppRequest.self), probe(IdentifyRequest.self),
        probe(StatusRequest.self), probe(StatusResponse.self), probe(AuthorizationRequest.self),
        probe(PromptShown.self), probe(LimitedLibraryPickerResponse.self), probe(AuthorizationChange.self),
        probe(ChangesRequest.self), probe(PromptsRequest.self), probe(AnswerPromptRequest.self),
        probe(SetAccessRequest.self), probe(AuditRequest.self), probe(AccessDetailRequest.self),
        probe(AppDecisionsRequest.self), probe(AssetCreatedRequest.self), probe(FetchAssetsRequest.self),
        probe(AssetQuery.self), probe(CreateAssetRequest.self), probe(CreateAssetResponse.self),
        probe(CreateAlbumRequest.self), probe(ImageRequest.self), probe(ImageResultInfo.self),
        probe(CancelImageRequest.self), probe(VideoRequest.self), probe(VideoResultInfo.self),
        probe(DownloadProgress.self), probe(AssetRequest.self), probe(PendingPicksRequest.self),
        probe(ListAssetsRequest.self), probe(ThumbnailRequest.self), probe(ThumbnailInfo.self),
        probe(ChooseRequest.self), probe(CancelPickRequest.self), probe(RevokeRequest.self),
        probe(ImportRequest.self), probe(ImportProgress.self), probe(ImportSummary.self),
        probe(PickRequest.self), probe(PickStarted.self), probe(PickResponse.self),
        probe(TokenRequest.self), probe(LoadRequest.self), probe(ChunkHeader.self),
        probe(StreamCredit.self), probe(StreamCancel.self), probe(StreamCompletion.self),
        probe(PickerFilter.self), probe(LightboxError.self),
        probe(LibraryChangesRequest.self), probe(AlbumMembershipRequest.self), probe(AlbumAssetsRequest.self),
        probe(DeleteAssetsRequest.self), probe(DeleteConfirmationRequest.self), probe(AuditRecordRequest.self),
        probe(AppDecisions.self), probe(DecisionsChanged.self), probe(DecisionsApplied.self), probe(AppLaunch.self),
    ]

    static func probe<Body: Codable & Sendable>(_ type: Body.Type) -> @Sendable (Data) -> Void {
        { header in
            checkFastDecoding(RequestEnvelope<Body>.BodyOnly.self, from: header)
            checkFastBodyDecoding(Body.self, from: header)
            guard let body = try? RequestEnvelope<Body>.decodeBody(from: header) else { return }
            let envelope = RequestEnvelope(id: "fuzz", op: .ping, body: body)
            do {
                let encoded = try WireCoding.encode(envelope)
                _ = try RequestEnvelope<Body>.decodeBody(from: encoded)
            } catch {
                fatalError("\(Body.self) decoded from a header but does not survive its own encoding: \(error)")
            }
        }
    }

    /// A body read straight from its member is the body JSONDecoder reads from the whole header.
    static func checkFastBodyDecoding<Body: Codable & Sendable>(_ type: Body.Type, from header: Data) {
        guard let fast = WireJSONDecoder.fastDecode(type, member: "body", from: header) else { return }
        guard let decoded = (try? WireCoding.makeDecoder().decode(RequestEnvelope<Body>.BodyOnly.self, from: header))?.body else {
            preconditionFailure("the wire decoder read the body \(fast) where JSONDecoder read none")
        }
        requireSameJSON(fast, decoded)
    }

    /// Whatever `WireJSONDecoder` reads itself, JSONDecoder reads too, to the same value.
    static func checkFastDecoding<T: Codable>(_ type: T.Type, from frame: Data) {
        guard let fast = WireJSONDecoder.fastDecode(type, from: frame) else { return }
        guard let decoded = try? WireCoding.makeDecoder().decode(type, from: frame) else {
            preconditionFailure("the wire decoder read \(fast) where JSONDecoder read nothing")
        }
        requireSameJSON(fast, decoded)
    }

    /// Compared by their JSON, keys sorted, as bodies need not be Equatable.
    private static func requireSameJSON<T: Encodable>(_ fast: T, _ decoded: T) {
        let encoder = WireCoding.makeEncoder(sortedKeys: true)
        precondition((try? encoder.encode(fast)) == (try? encoder.encode(decoded)), "the wire decoder read \(fast), JSONDecoder \(decoded)")
    }
}
