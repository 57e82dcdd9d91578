import Foundation
import StrataEngine
import StrataLMDB
import StrataSQLite

extension StoreDescription {
    /// SQLite's `synchronous` option (``StrataSQLite/SQLiteSynchronous``).
    public typealias SQLiteSynchronous = StrataSQLite.SQLiteSynchronous

    /// The smallest LMDB map size the LMDB store accepts, in bytes (1 MiB).
    public static var minimumLMDBMapSize: Int { LMDBBackend.minimumMapSize }

    /// SQLite's `synchronous` option (`options["synchronous"]`); `nil` leaves the store's default.
    /// A value other than the three known ones reads as `nil` and is rejected by the store.
    public var sqliteSynchronous: SQLiteSynchronous? {
        get { options["synchronous"].flatMap { SQLiteSynchronous(rawValue: $0.lowercased()) } }
        set { options["synchronous"] = newValue?.rawValue }
    }

    /// LMDB's initial map size in bytes (`options["mapSize"]`); `nil` leaves the store's default
    /// (64 MiB; the map grows by itself when full).
    public var lmdbMapSize: Int? {
        get { options["mapSize"].flatMap { Int($0) } }
        set { options["mapSize"] = newValue.map(String.init) }
    }

    /// The store descriptions of a JSON configuration file, their options checked against the
    /// backends of ``BuiltInBackends/registry``; otherwise
    /// ``StoreDescription/load(contentsOf:registry:)``.
    public static func load(contentsOf file: URL) throws -> [StoreDescription] {
        try load(contentsOf: file, registry: BuiltInBackends.registry)
    }

    /// ``StoreDescription/parse(_:file:registry:)`` with ``BuiltInBackends/registry``.
    public static func parse(_ data: Data, file: String) throws -> [StoreDescription] {
        try parse(data, file: file, registry: BuiltInBackends.registry)
    }
}
