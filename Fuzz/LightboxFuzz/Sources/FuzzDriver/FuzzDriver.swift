/// The input callback libFuzzer calls for every input.
public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// libFuzzer's own driver (in the runtime `-sanitize=fuzzer` links).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: FuzzCallback
) -> CInt

/// Runs libFuzzer with the command line and `callback`. SwiftPM links an executable's `main` to
/// `<module>_main`, which each target defines (with `@_cdecl`) to call this: libFuzzer's own
/// `main` is never used, so the executables link the same way on every SwiftPM.
public func runFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ callback: FuzzCallback) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, callback)
}
