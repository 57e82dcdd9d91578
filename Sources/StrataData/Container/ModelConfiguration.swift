import Foundation
import StrataCore

/// Where and how a container stores its models: SwiftData's `ModelConfiguration`.
///
/// The URL picks the backend:
///
/// | URL | backend |
/// |---|---|
/// | a file URL ending in `.sqlite`, `.store`, `.db` or any other extension | SQLite |
/// | a file URL ending in `.xml`, or `xml:/path/app.xml` | XML |
/// | a file URL ending in `.lmdb`, or `lmdb:/path/app.lmdb` (a directory) | LMDB |
/// | `memory:` (a private store), `memory:NAME` (shared within the process) | in memory |
/// | `sqlite:/path/app.sqlite` | SQLite |
/// | `postgres://USER@HOST/DATABASE?schema=NAME` (or `postgresql://`) | PostgreSQL |
///
/// A `scheme:` URL may end in the backend's options, as `strata` takes them:
/// `sqlite:/path/app.sqlite?history=off` (docs/SQLiteStore.md, docs/LMDBStore.md,
/// docs/XMLStore.md and docs/PostgreSQLStore.md list them).
///
/// `isStoredInMemoryOnly: true` uses a private in-memory store whatever the URL. Without a URL
/// the store is `default.store` (SQLite) in the user's application support directory
/// (`~/.local/share` on Linux), which is created if missing.
public struct ModelConfiguration: Sendable, Hashable, Identifiable {
    /// The configuration's name (its ``id``).
    public let name: String
    /// The models this configuration stores; `nil` for every model of the container's schema.
    public let schema: Schema?
    /// Where the store is.
    public let url: URL
    /// Whether the store lives in memory only.
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save to the store; a store that may not be saved to is opened
    /// read-only.
    public let allowsSave: Bool

    /// ``name``.
    public var id: String { name }

    /// A configuration of the store at `url`.
    public init(
        _ name: String? = nil, schema: Schema? = nil, url: URL, isStoredInMemoryOnly: Bool = false,
        allowsSave: Bool = true
    ) {
        self.name = name ?? Self.defaultName
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
    }

    /// A configuration of the default store, or of a private in-memory one.
    public init(
        _ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true
    ) {
        self.init(
            name, schema: schema, url: isStoredInMemoryOnly ? URL(string: "memory:")! : Self.defaultURL,
            isStoredInMemoryOnly: isStoredInMemoryOnly, allowsSave: allowsSave)
    }

    /// Two configurations are equal when their names, URLs and flags are.
    public static func == (lhs: ModelConfiguration, rhs: ModelConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
            && lhs.allowsSave == rhs.allowsSave && lhs.schema === rhs.schema
    }

    /// Hashes the name and URL.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
    }

    static let defaultName = "default"

    /// `default.store` in the application support directory.
    static var defaultURL: URL {
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        return base.appendingPathComponent("default.store")
    }

    /// The engine's URL of the store: see the table above.
    ///
    /// - Throws: ``StrataError/Code/invalidStoreURL`` for a URL of a scheme no backend has.
    var storeURL: StoreURL {
        get throws {
            if isStoredInMemoryOnly { return StoreURL(scheme: "memory", location: "") }
            if url.isFileURL {
                switch url.pathExtension.lowercased() {
                case "xml": return StoreURL(scheme: "xml", location: url.path)
                case "lmdb": return StoreURL(scheme: "lmdb", location: url.path)
                default: return StoreURL(scheme: "sqlite", location: url.path)
                }
            }
            let scheme = url.scheme?.lowercased() ?? ""
            guard ["memory", "sqlite", "lmdb", "xml", "postgres", "postgresql"].contains(scheme) else {
                // The URL as Strata prints URLs: never its password.
                let shown = (try? StoreURL.parse(url.absoluteString))?.description ?? scheme + ":..."
                throw StrataError(
                    .invalidStoreURL,
                    "the configuration '\(name)' has URL \(shown), whose scheme '\(scheme)' picks no backend; use a file URL or memory:, sqlite:, lmdb:, xml: or postgres:",
                    location: ["configuration": name, "url": shown])
            }
            // The query, if any, holds the backend's options (`?history=off`).
            return try StoreURL.parse(url.absoluteString)
        }
    }
}
