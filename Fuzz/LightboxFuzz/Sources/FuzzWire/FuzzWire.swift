import Foundation
import FuzzDriver
import LightboxProtocol

/// The first byte chooses the body type, the rest is a request header frame (see WireFuzzEntry).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    WireFuzzEntry.decode(bytes.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

@_cdecl("FuzzWire_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, testOneInput)
}
