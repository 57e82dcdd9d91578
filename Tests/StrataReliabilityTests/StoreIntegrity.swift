import CStrataSQLite
import Foundation
import StrataCore
import StrataTortureKit

/// The backend-level check after a crash: SQLite's own `PRAGMA integrity_check`; for every
/// backend, each entity's count (LMDB answers it from its database statistics) equals the
/// objects a scan returns, and index lookups (LMDB's `r:` and `i:` databases, SQLite's indexes)
/// agree with the records.
enum StoreIntegrity {
    /// Problems found (empty when the store is sound).
    static func check(_ url: StoreURL, store: any PersistentStore) throws -> [String] {
        var problems: [String] = []
        if url.scheme == "sqlite" {
            let result = sqliteIntegrityCheck(url.location)
            if result != "ok" { problems.append("PRAGMA integrity_check: \(result)") }
        }
        for entity in store.model.entities {
            let counted = try store.fetch(FetchRequest(entityName: entity.name, resultType: .count)).count()
            let scanned = try store.fetch(FetchRequest(entityName: entity.name)).snapshots().count
            if counted != scanned { problems.append("\(entity.name): count \(counted), scan \(scanned)") }
        }
        let items = try store.fetch(FetchRequest(entityName: "Item")).snapshots()
        for group in try store.fetch(FetchRequest(entityName: "Group")).snapshots() {
            let byIndex = try store.fetch(
                FetchRequest(
                    entityName: "Item",
                    predicate: ObjectPredicate(format: "group == %@", argumentArray: [group.objectID]))
            ).snapshots()
            let expected = items.filter { $0.relationships[0] == .toOne(group.objectID) }
            if Set(byIndex) != Set(expected) {
                problems.append("items of \(group.objectID) by index: \(byIndex.count), by scan \(expected.count)")
            }
        }
        for item in items {
            let bySlot = try store.fetch(
                FetchRequest(
                    entityName: "Item",
                    predicate: ObjectPredicate(format: "slot == %@", argumentArray: [item.attributes[0]]))
            ).snapshots()
            if bySlot != [item] { problems.append("item \(item.objectID) by slot index: \(bySlot.count) results") }
        }
        return problems
    }

    /// `PRAGMA integrity_check` on a connection of its own: "ok", or SQLite's report.
    static func sqliteIntegrityCheck(_ path: String) -> String {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            return "cannot open: " + String(cString: sqlite3_errmsg(db))
        }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK else {
            return "cannot prepare: " + String(cString: sqlite3_errmsg(db))
        }
        defer { sqlite3_finalize(statement) }
        var lines: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            lines.append(String(cString: sqlite3_column_text(statement, 0)))
        }
        return lines.joined(separator: "; ")
    }
}
