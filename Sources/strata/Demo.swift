import Foundation
import Strata

/// The demo's steps, on the store protocol.
struct Demo {
    let storeURL: String
    let objects: Int
    let modelDirectory: String
    let deleteFirst: Bool

    func run() throws {
        let versioned = try VersionedModel(directory: URL(fileURLWithPath: modelDirectory))
        let model = versioned.current
        let url = try StoreURL.parse(storeURL)
        let registry = BuiltInBackends.registry
        let backend = try registry.backend(for: url.scheme)
        print("Strata demo: store \(url), model \(versioned.name) \(model.versionIdentifier) (hash \(model.versionHash.prefix(12))...)")
        if deleteFirst {
            try backend.destroyStore(at: url)
            print("deleted the existing store at \(url), as asked")
        }
        let existed = try backend.metadata(at: url) != nil
        var store: any PersistentStore = try timed("opened the \(existed ? "existing" : "new") store") { try backend.open(url, model: model, options: StoreOptions()) }
        let before = try store.fetch(FetchRequest(entityName: "Employee", resultType: .count)).count()
        if before > 0 { print("the store already holds \(before.formatted()) employees; adding \(objects.formatted()) more") }

        let (departments, employeeIDs) = try timed("inserted \(objects.formatted()) employees in 2 companies and 6 departments") { try insertGraph(into: store, model: model) }
        _ = departments
        let all = try timed("fetched every employee as snapshots") { try store.fetch(FetchRequest(entityName: "Employee")).snapshots() }
        print("  \(all.count.formatted()) employees in the store")

        let tall = ObjectPredicate.comparison(.init(.keyPath("height"), .greater, .constant(1.9)))
        let count = try timed("counted employees taller than 1.9 m") { try store.fetch(FetchRequest(entityName: "Employee", predicate: tall, resultType: .count)).count() }
        print("  \(count.formatted()) of them")
        let aNames = ObjectPredicate.comparison(.init(.keyPath("name"), .beginsWith, .constant("а"), options: .caseInsensitive))
        let russian = try timed("fetched names beginning with Cyrillic 'а' (case-insensitive)") { try store.fetch(FetchRequest(entityName: "Employee", predicate: aNames, resultType: .count)).count() }
        print("  \(russian.formatted()) of them")
        let engineering = ObjectPredicate.comparison(.init(.keyPath("department.name"), .equal, .constant("Engineering")))
        let tallest = try timed("found the 3 tallest in Engineering (key path through a relationship, sorted, limited)") {
            try store.fetch(FetchRequest(entityName: "Employee", predicate: engineering, sorts: [Sort("height", ascending: false), Sort("name")], limit: 3,
                                         resultType: .dictionaries, propertiesToFetch: ["name", "height", "department.name"])).dictionaries()
        }
        for row in tallest { print("  \(row["name"] ?? nil) \(row["height"] ?? nil) m") }

        let updated = Array(employeeIDs.prefix(objects / 10))
        try timed("promoted \(updated.count.formatted()) employees (one save, optimistic locking)") {
            let snapshots = try store.fetch(FetchRequest(entityName: "Employee", objectIDs: updated)).snapshots()
            let level = model.entity(named: "Employee")!.attributeIndex(named: "level")!
            try store.save(SaveRequest(updates: snapshots.map { snapshot in
                var next = snapshot
                if case .integer(let l) = snapshot.attributes[level] { next.attributes[level] = .integer(min(l + 1, 10)) }
                return .init(next, expectedVersion: snapshot.version)
            }))
        }
        if let first = updated.first {
            let stale = try store.fetch(FetchRequest(entityName: "Employee", objectIDs: [first])).snapshots()[0]
            do {
                try store.save(SaveRequest(updates: [.init(stale, expectedVersion: stale.version - 1)]))
                print("unexpected: a stale save was accepted")
            } catch let error as StrataError where error.code == .conflict {
                print("a save based on an old version was refused, as it must be:\n  \(error.conflicts[0])")
            }
        }

        let identifier = store.identifier
        try store.close()
        if url.scheme == "memory" && url.location.isEmpty {
            print("(a private memory: store is gone once closed; use memory:NAME to keep it for the process)")
            return
        }
        store = try timed("closed and reopened the store") { try backend.open(url, model: model, options: StoreOptions()) }
        let after = try store.fetch(FetchRequest(entityName: "Employee", resultType: .count)).count()
        print("  \(after.formatted()) employees, store identifier \(store.identifier == identifier ? "unchanged" : "CHANGED")")
        try store.close()
        switch url.scheme {
        case "sqlite": print("done. Look inside with: sqlite3 \(url.location) .tables")
        case "lmdb": print("done. Look inside with: mdb_stat -a \(url.location)")
        case "xml": print("done. Look inside with: xmllint --noout \(url.location) && less \(url.location)")
        default: print("done.")
        }
    }

    /// Two companies, six departments, and `objects` employees spread over them; one save per
    /// 10,000 objects. Returns the department and employee IDs.
    private func insertGraph(into store: any PersistentStore, model: Model) throws -> ([ObjectID], [ObjectID]) {
        let company = model.entity(named: "Company")!, department = model.entity(named: "Department")!, employee = model.entity(named: "Employee")!
        let companyIDs = try store.obtainPermanentIDs(for: "Company", count: 2)
        let departmentIDs = try store.obtainPermanentIDs(for: "Department", count: 6)
        let employeeIDs = try store.obtainPermanentIDs(for: "Employee", count: objects)
        let departmentNames = ["Engineering", "研发部", "Отдел продаж", "Design", "Support", "Финансы"]
        var members = Array(repeating: [ObjectID](), count: 6)
        for (i, id) in employeeIDs.enumerated() { members[i % 6].append(id) }

        var graph: [Snapshot] = []
        for (c, id) in companyIDs.enumerated() {
            var s = Snapshot(objectID: id, entity: company)
            s.attributes[0] = .string(c == 0 ? "Acme" : "Глобус")
            s.relationships[0] = .toMany(departmentIDs.enumerated().filter { $0.offset % 2 == c }.map(\.element))
            graph.append(s)
        }
        for (d, id) in departmentIDs.enumerated() {
            var s = Snapshot(objectID: id, entity: department)
            s.attributes[0] = .string(departmentNames[d])
            s.relationships[0] = .toOne(companyIDs[d % 2])
            graph.append(s)
        }
        try store.save(SaveRequest(inserts: graph))

        let given = ["Анна", "lxz", "Alice", "张伟", "Борис", "Émilie", "bob", "李娜", "Ольга", "Zoë"]
        let family = ["Smith", "Иванова", "王", "Müller", "Petrov", "García"]
        let (nameIndex, heightIndex, levelIndex, birthIndex) = (employee.attributeIndex(named: "name")!, employee.attributeIndex(named: "height")!,
                                                                employee.attributeIndex(named: "level")!, employee.attributeIndex(named: "dateOfBirth")!)
        var random = SystemRandomNumberGenerator()
        for start in stride(from: 0, to: employeeIDs.count, by: 10_000) {
            let batch = employeeIDs[start..<min(start + 10_000, employeeIDs.count)]
            try store.save(SaveRequest(inserts: batch.enumerated().map { offset, id in
                let i = start + offset
                var s = Snapshot(objectID: id, entity: employee)
                s.attributes[nameIndex] = .string("\(given[i % given.count]) \(family[(i / given.count) % family.count]) \(i)")
                s.attributes[heightIndex] = .double(1.5 + Double(Int.random(in: 0..<50, using: &random)) / 100)
                s.attributes[levelIndex] = .integer(Int64(1 + i % 10))
                s.attributes[birthIndex] = i % 7 == 0 ? .null : .date(Date(timeIntervalSince1970: -1_000_000_000 + Double(i) * 10_000))
                s.relationships[0] = .toOne(departmentIDs[i % 6])
                return s
            }))
        }
        // Every save is inverse-consistent: the departments learn their members last, in one update.
        let departments = try store.fetch(FetchRequest(entityName: "Department", objectIDs: departmentIDs)).snapshots()
        try store.save(SaveRequest(updates: departments.map { snapshot in
            var s = snapshot
            let d = departmentIDs.firstIndex(of: snapshot.objectID)!
            s.relationships[1] = .toMany(members[d].sorted())
            return .init(s, expectedVersion: snapshot.version)
        }))
        return (departmentIDs, employeeIDs)
    }

    @discardableResult
    private func timed<T>(_ what: String, _ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try body()
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        print("\(what): \(ms.formatted(.number.precision(.fractionLength(1)))) ms")
        return result
    }
}
