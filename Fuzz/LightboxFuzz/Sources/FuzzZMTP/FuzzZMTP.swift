import Foundation
import FuzzDriver
import LightboxTransport

/// A client's first bytes on a service's endpoint: greeting, frames, HELLO and INITIATE (see ZMTPFuzzEntry).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    ZMTPFuzzEntry.read(bytes.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

@_cdecl("FuzzZMTP_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, testOneInput)
}
