import StrataCore
import StrataLMDB
import StrataSQLite
import StrataXML

/// Opens the persistent stores the torture runs use, by URL scheme.
public enum TortureStores {
    /// The persistent schemes: `sqlite`, `lmdb`, `xml`.
    public static let schemes = ["sqlite", "lmdb", "xml"]

    /// The backend for `scheme`.
    public static func backend(_ scheme: String) throws -> any StoreBackend {
        switch scheme {
        case "sqlite": return SQLiteBackend()
        case "lmdb": return LMDBBackend()
        case "xml": return XMLBackend()
        default: throw StrataError(.unknownStoreScheme, "the torture runs know sqlite, lmdb and xml, not \(scheme)", location: ["scheme": scheme])
        }
    }

    /// Options that let several processes wait for each other instead of failing at once.
    public static func patientOptions(_ scheme: String) -> StoreOptions {
        switch scheme {
        case "sqlite": return StoreOptions(options: ["busyTimeout": "30000"])
        case "xml": return StoreOptions(options: ["lockTimeout": "30000"])
        default: return StoreOptions()
        }
    }

    /// Opens (creating) the store at `url` with the torture model.
    public static func open(_ url: StoreURL, options: StoreOptions? = nil) throws -> any PersistentStore {
        try backend(url.scheme).open(url, model: TortureModel.model(), options: options ?? patientOptions(url.scheme))
    }
}
