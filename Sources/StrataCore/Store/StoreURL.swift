/// Where a store lives: a scheme naming the backend, and a backend-specific location.
///
/// ```
/// memory:                  a private in-memory store
/// memory:NAME              a named in-memory store, shared within the process
/// sqlite:/var/data/app.sqlite
/// lmdb:/var/data/app.lmdb  (a directory, as LMDB wants)
/// xml:/var/data/app.xml
/// ```
///
/// `scheme:///absolute/path` is accepted too and means `scheme:/absolute/path`. Paths may be
/// relative to the working directory. Schemes are lowercase letters, digits, `+`, `-` and `.`,
/// starting with a letter.
public struct StoreURL: Sendable, Hashable, CustomStringConvertible, LosslessStringConvertible {
    /// The backend's scheme (`"sqlite"`).
    public var scheme: String
    /// The backend-specific location: a path, a name, or empty.
    public var location: String

    /// Creates a URL from its parts.
    public init(scheme: String, location: String) {
        self.scheme = scheme
        self.location = location
    }

    /// Parses `scheme:location`; `nil` when the text is malformed (use ``parse(_:)`` for the reason).
    public init?(_ description: String) {
        guard let url = try? StoreURL.parse(description) else { return nil }
        self = url
    }

    /// Parses `scheme:location`.
    ///
    /// - Throws: ``StrataError/Code/invalidStoreURL`` naming the text and what is wrong.
    public static func parse(_ text: String) throws -> StoreURL {
        func fail(_ why: String) -> StrataError {
            StrataError(.invalidStoreURL, "'\(text)' is not a store URL: \(why); write SCHEME:LOCATION, for example sqlite:/var/data/app.sqlite", location: ["url": text])
        }
        guard let colon = text.firstIndex(of: ":") else { throw fail("there is no scheme") }
        let scheme = String(text[..<colon])
        guard isValidScheme(scheme) else { throw fail("'\(scheme)' is not a valid scheme") }
        var location = String(text[text.index(after: colon)...])
        if location.hasPrefix("///") { location.removeFirst(2) }
        else if location.hasPrefix("//") { throw fail("a host (//HOST/...) is not supported") }
        guard !location.utf8.contains(0) else { throw fail("the location contains a NUL byte") }
        return StoreURL(scheme: scheme, location: location)
    }

    /// Whether `scheme` is a valid scheme name.
    public static func isValidScheme(_ scheme: String) -> Bool {
        guard let first = scheme.utf8.first, first >= 0x61 && first <= 0x7A else { return false }
        return scheme.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
    }

    /// `scheme:location`.
    public var description: String { "\(scheme):\(location)" }
}
