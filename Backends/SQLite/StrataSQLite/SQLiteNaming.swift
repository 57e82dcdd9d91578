import StrataCore

/// The SQL names of a model's entities and properties.
///
/// A table or column is named after its entity or property. SQLite compares identifiers without
/// regard to ASCII case, while model names are case-sensitive (`name` and `Name` may both exist),
/// so among names that differ only in case, the one that sorts first (by bytes) keeps its name and
/// the others become `_2_Name`, `_3_NAME`, ... (a leading underscore cannot start a model name, so
/// these never collide with one). Derived from the model alone: every process agrees.
struct SQLiteNaming: Sendable {
    private let tables: [String: String]
    private let columns: [String: [String: String]]
    private let indexes: [String: [String: String]]

    init(model: Model) {
        tables = Self.disambiguate(model.entities.map(\.name))
        var columns: [String: [String: String]] = [:]
        var indexes: [String: [String: String]] = [:]
        for entity in model.entities {
            columns[entity.name] = Self.disambiguate(entity.attributes.map(\.name) + entity.relationships.map(\.name))
            indexes[entity.name] = Self.disambiguate(entity.indexes.map(\.name))
        }
        self.columns = columns
        self.indexes = indexes
    }

    /// The table of `entity`.
    func table(_ entity: String) -> String { tables[entity] ?? entity }
    /// The column of `property` (attribute or relationship) of `entity`.
    func column(_ entity: String, _ property: String) -> String { columns[entity]?[property] ?? property }
    /// The SQL name part of model index `index` of `entity`.
    func index(_ entity: String, _ index: String) -> String { indexes[entity]?[index] ?? index }

    /// Each name mapped to itself, or to `_k_name` when a name that sorts before it differs from it
    /// only in ASCII case.
    static func disambiguate(_ names: [String]) -> [String: String] {
        var groups: [String: [String]] = [:]
        for name in names { groups[name.lowercased(), default: []].append(name) }
        var result: [String: String] = [:]
        for group in groups.values {
            for (k, name) in Set(group).sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
                .enumerated()
            {
                result[name] = k == 0 ? name : "_\(k + 1)_\(name)"
            }
        }
        return result
    }
}
