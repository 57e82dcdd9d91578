import StrataCore

/// The line a probe prints for an error it stops on: `error CODE MESSAGE` (the message on one
/// line) for a ``StrataError``, `error untyped DESCRIPTION` for any other, which the tests
/// count as a failure.
package func probeErrorLine(_ error: any Error) -> String {
    guard let error = error as? StrataError else { return "error untyped \(error)" }
    return "error \(error.code) \(error.description.replacingOccurrences(of: "\n", with: " "))"
}
