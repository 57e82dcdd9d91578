/// What one run of a program printed, and how it ended.
package struct ProgramOutput: Sendable {
    /// The exit status (or the signal that ended it).
    package var status: Int32
    /// Its standard output.
    package var output: String
    /// Its standard error.
    package var errors: String

    package init(status: Int32, output: String, errors: String) {
        self.status = status
        self.output = output
        self.errors = errors
    }

    /// The error code the `strata` tool printed (`strata: CODE: ...`), if any.
    package var errorCode: String? {
        guard let line = errors.split(separator: "\n").first(where: { $0.hasPrefix("strata: ") }) else { return nil }
        return line.dropFirst("strata: ".count).split(separator: ":").first.map(String.init)
    }
}
