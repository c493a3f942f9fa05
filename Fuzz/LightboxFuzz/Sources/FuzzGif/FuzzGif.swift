import Foundation
import FuzzDriver
import Media

/// The input is a whole file for MediaFuzzEntry.Target.gif.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    MediaFuzzEntry.run(.gif, on: bytes.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

@_cdecl("FuzzGif_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, testOneInput)
}
