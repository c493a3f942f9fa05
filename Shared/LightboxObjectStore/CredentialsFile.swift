import Foundation
import LightboxProtocol

extension SigningCredentials {
    /// The credentials a service starts with: the file when one is named, else `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`) from the environment.
    public static func load(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ObjectStoreError) -> SigningCredentials
    {
        if let file { return try read(file: file) }
        guard let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty,
            let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
        else {
            throw ObjectStoreError(
                code: .badRequest,
                message: "No S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or name a file with --s3-credentials.")
        }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return SigningCredentials(accessKeyID: key, secretAccessKey: secret, sessionToken: token)
    }

    /// Reads an AWS-style credentials file (`aws_access_key_id = …`, `aws_secret_access_key = …`,
    /// optionally `aws_session_token = …`; the first profile, or `[default]`), which only its owner may read.
    public static func read(file: String) throws(ObjectStoreError) -> SigningCredentials {
        var status = stat()
        guard stat(file, &status) == 0 else {
            throw ObjectStoreError(code: .badRequest, message: "The S3 credentials file \(file) cannot be read.", cause: String(cString: strerror(errno)))
        }
        guard status.st_mode & 0o077 == 0 else {
            throw ObjectStoreError(
                code: .badRequest,
                message: "The S3 credentials file \(file) is readable by others (mode \(String(status.st_mode & 0o777, radix: 8))); run chmod 600 on it.")
        }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ObjectStoreError(code: .badRequest, message: "The S3 credentials file \(file) is not UTF-8 text.")
        }
        var values: [String: String] = [:]
        var profile: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                // Only the first profile counts (or `[default]` when it comes first): one file, one identity.
                if profile != nil { break }
                profile = line
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            values[name] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard let key = values["aws_access_key_id"], !key.isEmpty, let secret = values["aws_secret_access_key"], !secret.isEmpty else {
            throw ObjectStoreError(
                code: .badRequest,
                message: "The S3 credentials file \(file) needs aws_access_key_id = … and aws_secret_access_key = … lines.")
        }
        return SigningCredentials(accessKeyID: key, secretAccessKey: secret, sessionToken: values["aws_session_token"])
    }
}
