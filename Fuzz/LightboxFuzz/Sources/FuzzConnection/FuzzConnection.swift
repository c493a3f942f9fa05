import Foundation
import FuzzDriver
import LightboxTransport

/// Bytes into a real connection of a real server, raw or past a completed handshake (see ZMTPConnectionFuzzEntry).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    ZMTPConnectionFuzzEntry.run(bytes.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

@_cdecl("FuzzConnection_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    ZMTPConnectionFuzzEntry.prepare()
    return runFuzzer(argc, argv, testOneInput)
}
