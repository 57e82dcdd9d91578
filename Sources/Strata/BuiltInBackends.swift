import StrataInMemory
import StrataLMDB
import StrataPostgres
import StrataSQLite
import StrataXML

/// The backends that ship with Strata, registered so that their URLs work with no setup.
///
/// ```swift
/// let store = try BuiltInBackends.registry.open("sqlite:/var/data/app.sqlite", model: model)
/// ```
public enum BuiltInBackends {
    /// Every built-in backend: `memory`, `sqlite`, `lmdb`, `xml`, and `postgres` with its alias
    /// `postgresql`.
    public static var all: [any StoreBackend] {
        [
            InMemoryBackend(), SQLiteBackend(), LMDBBackend(), XMLBackend(), PostgresBackend(),
            PostgresBackend(scheme: PostgresBackend.aliasSchemeName),
        ]
    }

    /// ``StoreRegistry/shared`` with every built-in backend registered (third-party backends
    /// registered earlier under the same scheme are kept).
    public static var registry: StoreRegistry {
        _ = registration
        return .shared
    }

    private static let registration: Void = {
        for backend in all { StoreRegistry.shared.registerIfAbsent(backend) }
    }()
}
