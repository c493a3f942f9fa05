import Foundation
import FuzzDriver
import Media

/// The input is a whole file for MediaFuzzEntry.Target.motion.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    MediaFuzzEntry.run(.motion, on: bytes.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

@_cdecl("FuzzMotion_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, testOneInput)
}
