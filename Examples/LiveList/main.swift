// A list that keeps itself up to date while a background import runs, end to end (the case
// docs/LiveQueries.md walks through):
//
//   swift run live-list [STORE] [COUNT]
//
// STORE is a store URL (default: a new SQLite store in a temporary directory, removed after); COUNT the
// employees to import, in chunks of 5,000 (default 20,000). The view context's live list
// starts empty and applies each diff it is given; the program ends when the list equals a
// fresh fetch with every employee, and prints what it saw.

import Foundation
import Strata

let model = try Model(
    versionIdentifier: "live-list",
    entities: [Entity("Employee", attributes: [Attribute("firstName", .string), Attribute("lastName", .string)])])
let arguments = CommandLine.arguments.dropFirst()
let temporary = NSTemporaryDirectory() + "live-list-\(getpid())"
let store = arguments.first ?? "sqlite:\(temporary)/company.sqlite"
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 20_000

/// Lists the employees live while `count` of them are imported into `store`.
func run() async throws {
    let container = PersistentContainer(name: "Company", model: model, storeDescriptions: [try StoreDescription(store)])
    try await container.loadPersistentStores()
    let viewContext = container.viewContext

    // The list: every employee by last name, then first name. Ask for it on the view context's
    // queue (the main queue); the results and their diffs can go anywhere.
    let request = FetchRequest(entityName: "Employee", sorts: [.ascending("lastName"), .ascending("firstName")])
    let live = try await viewContext.perform { try viewContext.liveResults(for: request) }

    // The import, in the background, a save every 5,000 employees. The container merges each
    // save into the view context, whose live list hears of it.
    let importer = container.newBackgroundContext()
    let importing = Task.detached {
        try await importer.perform {
            for start in stride(from: 0, to: count, by: 5_000) {
                for index in start..<min(start + 5_000, count) {
                    let employee = try importer.insert("Employee")
                    employee["firstName"] = .string("Ann \(index)")
                    // Names that sort in another order than they arrive: each chunk lands all over the list.
                    employee["lastName"] = .string("Lee \((index * 7_919) % count)")
                }
                try importer.save()
            }
        }
    }

    // The view: one batch of changes per element (a table view would apply `result.diff` in one
    // `performBatchUpdates`); here the rows are kept by applying it to the previous ones.
    let listing = Task { () -> (rows: [ObjectID], elements: Int, inserted: Int) in
        var rows: [ObjectID] = []
        var elements = 0
        var inserted = 0
        for try await result in live {
            rows = result.diff.applied(to: rows)
            elements += 1
            inserted += result.diff.inserted.count
            print(
                "\(rows.count) rows: \(result.diff.inserted.count) inserted, \(result.diff.deleted.count) deleted, "
                    + "\(result.diff.moved.count) moved, \(result.diff.updated.count) updated")
            guard rows.count == count else { continue }
            // Every employee is listed: done once the list is what a fetch finds now.
            let fetched = try await viewContext.perform { try viewContext.fetchObjectIDs(request) }
            if rows == fetched { break }
        }
        return (rows, elements, inserted)
    }
    do {
        try await importing.value
    } catch {
        listing.cancel() // ends the live sequence
        throw error
    }
    let (rows, elements, inserted) = try await listing.value
    let refetches = try await viewContext.perform { () -> Int in viewContext.liveQueryStatistics.refetches }
    print(
        "live-list: \(rows.count) rows equal a fetch after \(elements) results (\(inserted) rows inserted, \(refetches) refetches)"
    )
    try container.closeStores()
}

do {
    if arguments.isEmpty {
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
    }
    defer { if arguments.isEmpty { try? FileManager.default.removeItem(atPath: temporary) } }
    try await run()
} catch {
    FileHandle.standardError.write(Data("live-list: \(error)\n".utf8))
    exit(1)
}
