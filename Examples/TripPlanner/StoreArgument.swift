import StrataData

/// The store the planner works on, from its command-line argument: `sqlite:PATH`, `lmdb:PATH`,
/// `xml:PATH`, `memory:` or `memory:NAME`, `postgres://USER@HOST/DATABASE?schema=NAME`, or a file
/// path (whose extension picks the backend).
struct StoreArgument {
    /// The configuration both releases of the app open the store with.
    let configuration: ModelConfiguration
    /// The store as the output names it.
    let description: String

    /// Reads `text`; throws a message for the user when it names no new store.
    init(_ text: String) throws {
        guard !text.isEmpty else { throw UsageError("give the store's URL, such as sqlite:/tmp/trips.sqlite") }
        let url: URL
        if text == "memory:" {
            // A private in-memory store lives as long as its container; the two releases share
            // a named one instead, so that the second finds what the first saved.
            url = URL(string: "memory:TripPlanner")!
        } else if let parsed = URL(string: text), let scheme = parsed.scheme, scheme.count > 1 {
            url = parsed
        } else {
            url = URL(fileURLWithPath: text)
        }
        if url.scheme != "memory" {
            let path = url.isFileURL ? url.path : String(text.drop(while: { $0 != ":" }).dropFirst())
            guard !FileManager.default.fileExists(atPath: path) else {
                throw UsageError("\(path) exists; TripPlanner makes its store from scratch, so name a new one")
            }
        }
        configuration = ModelConfiguration(url: url)
        // A server's URL may hold a password, which the planner never prints.
        var shown = URLComponents(url: url, resolvingAgainstBaseURL: false)
        if shown?.password != nil { shown?.password = "***" }
        description = url.isFileURL ? url.path : shown?.string ?? url.scheme ?? ""
    }
}

/// A mistake in the command line: the message says what to give instead.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
