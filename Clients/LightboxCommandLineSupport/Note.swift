import Foundation

/// Prints a line on standard error (progress and notes stay out of piped output).
public func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
