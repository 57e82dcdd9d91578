// strata-sqlite-only-example: an application that links the engine and the SQLite backend only
// (StrataEngine and StrataSQLite, never the umbrella Strata), so its binary needs libsqlite3 and
// neither liblmdb nor libxml2. Tests/StrataToolTests/LinkageTests.swift checks both and runs it.
//
//   strata-sqlite-only-example [PATH]
//       Registers SQLiteBackend in a registry of its own, opens sqlite:PATH (without PATH, a new
//       store in a temporary directory, removed at the end), inserts one Note through an
//       ObjectContext, saves, fetches the Notes back through a second context and prints
//       "sqlite-only example: saved and fetched a Note (N in the store)". Exits 1 with the error
//       otherwise.

import Foundation
import StrataEngine
import StrataSQLite

/// Saves one Note to the SQLite store at `path` and fetches it back; returns the line to print.
func saveAndFetchANote(at path: String) throws -> String {
    let registry = StoreRegistry()
    registry.register(SQLiteBackend())
    let model = try Model(
        versionIdentifier: "notes", entities: [Entity("Note", attributes: [Attribute("text", .string)])])
    let coordinator = StoreCoordinator(model: model)
    try coordinator.addStore(registry.open(StoreURL(scheme: "sqlite", location: path), model: model))
    defer { for store in coordinator.stores { try? store.close() } }

    let text: Value = .string("saved through StrataEngine and StrataSQLite")
    let writer = ObjectContext(coordinator: coordinator, name: "writer")
    try writer.insert("Note")["text"] = text
    try writer.save()

    let notes = try ObjectContext(coordinator: coordinator, name: "reader").fetch(FetchRequest(entityName: "Note"))
    guard notes.contains(where: { $0["text"] == text }) else {
        throw StrataError(
            .storeCorrupt, "the Note just saved to sqlite:\(path) was not fetched back",
            location: ["url": "sqlite:\(path)"])
    }
    return "sqlite-only example: saved and fetched a Note (\(notes.count) in the store)"
}

let arguments = CommandLine.arguments.dropFirst()
let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("strata-sqlite-only-\(UUID().uuidString)")
do {
    let path: String
    if let given = arguments.first {
        path = given
    } else {
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        path = temporary.appendingPathComponent("notes.sqlite").path
    }
    let line = try saveAndFetchANote(at: path)
    try? FileManager.default.removeItem(at: temporary)
    print(line)
} catch {
    try? FileManager.default.removeItem(at: temporary)
    FileHandle.standardError.write(Data("sqlite-only example: \(error)\n".utf8))
    exit(1)
}
