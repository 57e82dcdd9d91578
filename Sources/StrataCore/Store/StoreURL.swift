/// Where a store lives: a scheme naming the backend, and a backend-specific location.
///
/// File and in-process backends take a path or a name after the scheme:
///
/// ```
/// memory:                  a private in-memory store
/// memory:NAME              a named in-memory store, shared within the process
/// sqlite:/var/data/app.sqlite
/// lmdb:/var/data/app.lmdb  (a directory, as LMDB wants)
/// xml:/var/data/app.xml
/// lmdb:/var/data/app.lmdb?durability=full   (query options are the backend's options)
/// ```
///
/// Network backends take an authority, a path and query options:
///
/// ```
/// postgres://app:secret@db.example.com:5432/app?sslmode=require
/// postgres://[::1]/app
/// ```
///
/// In the `scheme:location` form the location is taken as written up to a `?`, which starts the
/// query. In the `scheme://` form the
/// user, password, host, path and query are percent-decoded (`%20` is a space); an IPv6 host is
/// written in brackets; the port is from 1 to 65535. `scheme:///absolute/path` has no authority
/// and means `scheme:/absolute/path` (percent-decoded). Paths may be relative to the working
/// directory. Schemes are lowercase letters, digits, `+`, `-` and `.`, starting with a letter.
///
/// The password is never printed: ``description``, ``debugDescription`` and every error show it
/// as `***`, and the value of each query option whose name suggests a secret (it contains `pass`,
/// `pwd`, `secret`, `token`, `key`, `auth` or `credential`, in any case: `sslpassword`) too. Only
/// ``unredactedDescription`` spells them out, for handing the URL to code that connects.
public struct StoreURL: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    LosslessStringConvertible
{
    /// The backend's scheme (`"sqlite"`).
    public var scheme: String
    /// The backend-specific location: a path, a name, or empty. In the `scheme://` form, the
    /// percent-decoded path after the authority (`"/app"`).
    public var location: String
    /// The user of the authority (`app` in `postgres://app@db/app`), percent-decoded.
    public var user: String?
    /// The password of the authority, percent-decoded. Never printed: see ``description``.
    public var password: String?
    /// The host, percent-decoded, an IPv6 address without its brackets (`"::1"`); `nil` when
    /// the URL has no authority.
    public var host: String?
    /// The port, from 1 to 65535.
    public var port: Int?
    /// The query options (`?sslmode=require&connect_timeout=5`), percent-decoded.
    public var query: [String: String]

    /// Creates a URL from a scheme and a location, with no authority and no query.
    public init(scheme: String, location: String) {
        self.init(scheme: scheme, host: nil, location: location)
    }

    /// Creates a URL from its parts. `password` is ignored unless `user` is given.
    public init(
        scheme: String,
        user: String? = nil,
        password: String? = nil,
        host: String?,
        port: Int? = nil,
        location: String,
        query: [String: String] = [:]
    ) {
        self.scheme = scheme
        self.user = user
        self.password = user == nil ? nil : password
        self.host = host
        self.port = port
        self.location = location
        self.query = query
    }

    /// Parses `text` (see ``parse(_:)``); `nil` when the text is malformed.
    public init?(_ description: String) {
        guard let url = try? StoreURL.parse(description) else { return nil }
        self = url
    }

    /// Whether the URL has an authority (a host, and maybe a user and a port).
    public var hasAuthority: Bool { host != nil }

    /// Whether the URL is a plain location: no user, password, port or query, and no host other
    /// than `localhost` (the only host a `file:` URL may name). File backends accept only these.
    public var isPlainLocation: Bool {
        user == nil && password == nil && port == nil && query.isEmpty && (host == nil || host == "localhost")
    }

    /// Whether `scheme` is a valid scheme name.
    public static func isValidScheme(_ scheme: String) -> Bool {
        guard let first = scheme.utf8.first, first >= 0x61 && first <= 0x7A else { return false }
        return scheme.utf8.allSatisfy {
            ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E
        }
    }

    /// The URL as text with the password and the values of secret query options written `***`:
    /// `sqlite:/x`, `postgres://app:***@db:5432/app?sslmode=require&sslpassword=***`.
    public var description: String { text(revealingPassword: false) }

    /// The same as ``description``: the password is written `***`.
    public var debugDescription: String { description }

    /// The URL as text with its password and secret options: parsing it gives this URL back.
    /// Hand it only to code that connects; never print or log it.
    public var unredactedDescription: String { text(revealingPassword: true) }

    /// The text of the URL, with the password or `***`.
    private func text(revealingPassword: Bool) -> String {
        guard host != nil || !query.isEmpty else { return "\(scheme):\(location)" }
        guard host != nil || location.hasPrefix("/") else {
            // A relative location keeps the `scheme:location?query` form (`lmdb:data?durability=full`).
            return "\(scheme):\(location)?" + queryText(revealingSecrets: revealingPassword)
        }
        var text = scheme + "://"
        if let host {
            if let user {
                text += StoreURLPercent.encode(user, keeping: .userInfo)
                if let password {
                    text += ":" + (revealingPassword ? StoreURLPercent.encode(password, keeping: .userInfo) : "***")
                }
                text += "@"
            }
            text += host.contains(":") ? "[\(host)]" : StoreURLPercent.encode(host, keeping: .host)
            if let port { text += ":\(port)" }
        }
        text += StoreURLPercent.encode(location, keeping: .path)
        if !query.isEmpty { text += "?" + queryText(revealingSecrets: revealingPassword) }
        return text
    }

    /// The query options as text, sorted by name and percent-encoded: `durability=full&mapSize=1GB`;
    /// the values of options that name a secret are `***` unless `revealingSecrets`.
    private func queryText(revealingSecrets: Bool) -> String {
        query.sorted { $0.key < $1.key }.map { name, value in
            let shown = revealingSecrets || !Self.namesASecret(name) ? value : "***"
            return StoreURLPercent.encode(name, keeping: .query) + "=" + StoreURLPercent.encode(shown, keeping: .query)
        }.joined(separator: "&")
    }

    /// Whether the query option `name` holds a secret: its name contains `pass`, `pwd`, `secret`,
    /// `token`, `key`, `auth` or `credential`, in any case.
    static func namesASecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["pass", "pwd", "secret", "token", "key", "auth", "credential"].contains { lowered.contains($0) }
    }
}
