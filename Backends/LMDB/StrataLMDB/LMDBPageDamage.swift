import StrataCore

/// Damage ``LMDBPageCheck`` found in a data file, before it becomes a
/// ``StrataError/Code/storeCorrupt`` naming the store.
struct LMDBPageDamage: Error, Equatable {
    /// The page holding the damaged field (for a sub-page or a node: the page containing it).
    var page: UInt64
    /// What the page is (`leaf page of database e:Employee`, `meta page`).
    var role: String
    /// The damaged field, named as in liblmdb's `mdb.c` (`mp_lower`, `mp_ptrs[3]`, `mn_ksize`).
    var field: String
    /// The field's value.
    var value: String
    /// Why the value cannot be right, in a sentence.
    var reason: String

    /// The error for the store in `directory`.
    func error(directory: String) -> StrataError {
        StrataError(
            .storeCorrupt,
            "LMDB store at \(directory): data.mdb is damaged: page \(page) (\(role)): \(reason)",
            location: [
                "path": directory,
                "file": LMDBDirectory.dataFile(directory),
                "page": String(page),
                "field": field,
                "value": value,
            ],
            underlying: "\(field) = \(value)")
    }
}
