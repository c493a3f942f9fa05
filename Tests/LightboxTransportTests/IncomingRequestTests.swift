import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Testing

@Suite struct IncomingRequestTests {
    /// A handler's logger names the request it logs for, whichever service logger it came from.
    @Test func theRequestsLoggerCarriesItsIdOperationAndCaller() throws {
        var service = Logger(label: "test")
        service[metadataKey: "service"] = "picker"
        let principal = try #require(Principal(userId: "app:viewer"))
        let request = IncomingRequest(principal: principal, id: "req-7", op: .fetchAssets, header: Data("{}".utf8), logger: service)
        let logger = request.logger
        #expect(logger[metadataKey: "request"] == "req-7")
        #expect(logger[metadataKey: "op"] == "\(OperationName.fetchAssets)")
        #expect(logger[metadataKey: "principal"] == "\(principal.userId)")
        #expect(logger[metadataKey: "service"] == "picker")
    }
}
