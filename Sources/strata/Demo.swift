import Foundation
import Strata

/// The demo's steps, on a persistent container: load in the background, import through
/// background contexts on the three-tier stack, read on the view context.
struct Demo: Sendable {
    /// `--store`, or `nil` for the default (`$STRATA_STORE`, else ``defaultStore``).
    let storeURL: String?
    let objects: Int
    /// The model: the Company example built into the tool, or the one `--model` names.
    let versioned: VersionedModel
    let deleteFirst: Bool

    /// The store when neither `--store` nor `STRATA_STORE` names one.
    static let defaultStore = "sqlite:strata-demo.sqlite"
    /// Employees per background context (and per save).
    static let batchSize = 10_000
    /// The options of a PostgreSQL URL that `psql` understands too (the others are the store's).
    static let psqlOptions: Set<String> = ["host", "hostaddr", "sslmode", "sslrootcert", "sslcert", "sslkey", "sslcrl"]
    static let departmentNames = ["Engineering", "研发部", "Отдел продаж", "Design", "Support", "Финансы"]

    func run() async throws {
        let model = versioned.current
        // An explicit --store wins; otherwise the container's environment rule applies (STRATA_STORE).
        let environment = storeURL == nil ? ProcessInfo.processInfo.environment : [:]
        let description = try StoreDescription.applyingEnvironment(
            environment, to: [StoreDescription(url: try StoreURL.parse(storeURL ?? Demo.defaultStore))])[0]
        let url = description.url
        let backend = try BuiltInBackends.registry.backend(for: url.scheme)
        print(
            "Strata demo: store \(url)\(storeURL == nil && environment[StoreDescription.environmentVariable] != nil ? " (from STRATA_STORE)" : ""), model \(versioned.name) \(model.versionIdentifier) (hash \(model.versionHash.prefix(12))...)"
        )
        if deleteFirst {
            try backend.destroyStore(at: url)
            print("deleted the existing store at \(url), as asked")
        }
        let existed = (try? backend.metadata(at: url)) != nil

        let container = PersistentContainer(
            name: "strata-demo", versionedModel: versioned, storeDescriptions: [description], stack: .threeTier,
            environment: [:])
        try await load(container, what: "loaded the \(existed ? "existing" : "new") store in the background")
        let identifier = container.loadedStores.first?.identifier ?? ""
        let view = container.viewContext
        let before = try await view.perform { try view.count(FetchRequest(entityName: "Employee")) }
        if before > 0 {
            print("the store already holds \(before.formatted()) employees; adding \(objects.formatted()) more")
        }

        try await timed(
            "imported \(objects.formatted()) employees in 2 companies and 6 departments (background contexts, \(Demo.batchSize.formatted()) per save, three tiers)"
        ) {
            try await importGraph(into: container)
        }
        let seen = try await timed("the view context sees them (merged from the writer)") {
            try await view.perform { try view.count(FetchRequest(entityName: "Employee")) }
        }
        print("  \(seen.formatted()) employees")
        let all = try await timed("fetched every employee on the view context") {
            try await view.perform { try view.fetch(FetchRequest(entityName: "Employee")).count }
        }
        print("  \(all.formatted()) employees")

        let tall = ObjectPredicate.comparison(.init(.keyPath("height"), .greater, .constant(1.9)))
        let count = try await timed("counted employees taller than 1.9 m") {
            try await view.perform { try view.count(FetchRequest(entityName: "Employee", predicate: tall)) }
        }
        print("  \(count.formatted()) of them")
        let aNames = ObjectPredicate.comparison(
            .init(.keyPath("name"), .beginsWith, .constant("а"), options: .caseInsensitive))
        let russian = try await timed("counted names beginning with Cyrillic 'а' (case-insensitive)") {
            try await view.perform { try view.count(FetchRequest(entityName: "Employee", predicate: aNames)) }
        }
        print("  \(russian.formatted()) of them")
        let engineering = ObjectPredicate.comparison(
            .init(.keyPath("department.name"), .equal, .constant("Engineering")))
        let tallest = try await timed(
            "found the 3 tallest in Engineering (key path through a relationship, sorted, limited)"
        ) {
            try await view.perform {
                try view.fetchDictionaries(
                    FetchRequest(
                        entityName: "Employee", predicate: engineering,
                        sorts: [Sort("height", ascending: false), Sort("name")], limit: 3,
                        resultType: .dictionaries, propertiesToFetch: ["name", "height", "department.name"]))
            }
        }
        for row in tallest { print("  \(row["name"] ?? nil) \(row["height"] ?? nil) m") }

        let promoted = try await timed(
            "promoted \((objects / 10).formatted()) employees in a background context (one save, optimistic locking)"
        ) {
            try await container.performBackgroundTask { context -> [ObjectID] in
                let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Employee", limit: objects / 10))
                for id in ids {
                    let employee = context.object(with: id)
                    if case .integer(let level) = employee["level"] { employee["level"] = .integer(min(level + 1, 10)) }
                }
                try context.save()
                return ids
            }
        }
        if let first = promoted.first { try await showConflict(on: first, in: container) }

        try container.closeStores()
        if url.scheme == "memory" && url.location.isEmpty {
            print("(a private memory: store is gone once closed; use memory:NAME to keep it for the process)")
            return
        }
        let reopened = PersistentContainer(
            name: "strata-demo", versionedModel: versioned, storeDescriptions: [description], stack: .threeTier,
            environment: [:])
        try await load(reopened, what: "closed and reopened the store (a new container)")
        let after = try await reopened.viewContext.perform {
            try reopened.viewContext.count(FetchRequest(entityName: "Employee"))
        }
        print(
            "  \(after.formatted()) employees, store identifier \(reopened.loadedStores.first?.identifier == identifier ? "unchanged" : "CHANGED")"
        )
        try reopened.closeStores()
        switch url.scheme {
        case "sqlite": print("done. Look inside with: sqlite3 \(url.location) .tables")
        case "lmdb": print("done. Look inside with: mdb_stat -a \(url.location)")
        case "xml": print("done. Look inside with: xmllint --noout \(url.location) && less \(url.location)")
        case "postgres", "postgresql":
            // psql takes the URL without the store's options and without the password (it reads
            // PGPASSWORD or ~/.pgpass, or asks).
            var server = url
            server.password = nil
            server.query = server.query.filter { Self.psqlOptions.contains($0.key) }
            let schema = (url.query["schema"] ?? "public").replacingOccurrences(of: "\"", with: "\"\"")
            print("done. Look inside with: psql '\(server)' -c '\\dt \"\(schema)\".*'")
        default: print("done.")
        }
    }

    /// Starts the load from the main queue, as an app would, prints its progress, and reports how
    /// long the main queue was blocked: by the call itself, and at most between two ticks of a
    /// 1 ms main-queue ticker while the load ran.
    private func load(_ container: PersistentContainer, what: String) async throws {
        let updates = container.loadProgressUpdates()
        let printer = Task {
            var last: LoadProgress.Phase?
            for await step in updates
            where step.phase != last || (step.phase == .migrating && step.total > 0 && step.completed == step.total) {
                print("  \(step)")
                last = step.phase
            }
        }
        let ticker = DemoTicker()
        let start = DispatchTime.now().uptimeNanoseconds
        let blocked = Locked<UInt64>(0)
        let error: StrataError? = await withCheckedContinuation { continuation in
            DispatchQueue.main.async {
                ticker.start()
                let callStart = DispatchTime.now().uptimeNanoseconds
                container.loadPersistentStores { error in continuation.resume(returning: error) }
                blocked.withLock { $0 = DispatchTime.now().uptimeNanoseconds - callStart }
            }
        }
        let (ticks, longestGap) = ticker.stop()
        // The main-queue block that started the load has finished (and noted its time) once a
        // block enqueued after it runs.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async { continuation.resume() }
        }
        await printer.value
        if let error { throw error }
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        print("\(what): \(Demo.format(ms)) ms; state \(container.state)")
        print(
            "  the main queue was blocked \(Demo.format(Double(blocked.withLock { $0 }) / 1e3)) µs by the call, and kept ticking meanwhile (\(ticks) ticks, longest gap \(Demo.format(longestGap)) ms)"
        )
    }

    /// Two companies, six departments and `objects` employees, through background contexts: one
    /// per batch, each saving into the writer, which saves to the store.
    private func importGraph(into container: PersistentContainer) async throws {
        let existing = try await container.performBackgroundTask { context in
            try context.count(FetchRequest(entityName: "Department"))
        }
        if existing == 0 {
            try await container.performBackgroundTask { context in
                let companies = try ["Acme", "Глобус"].map { name throws -> ManagedObject in
                    let company = try context.insert("Company")
                    company["name"] = .string(name)
                    return company
                }
                for (d, name) in Demo.departmentNames.enumerated() {
                    let department = try context.insert("Department")
                    department["name"] = .string(name)
                    try department.setObject(companies[d % 2], for: "company")
                }
                try context.save()
            }
        }
        let given = ["Анна", "lxz", "Alice", "张伟", "Борис", "Émilie", "bob", "李娜", "Ольга", "Zoë"]
        let family = ["Smith", "Иванова", "王", "Müller", "Petrov", "García"]
        for start in stride(from: 0, to: objects, by: Demo.batchSize) {
            let end = min(start + Demo.batchSize, objects)
            try await container.performBackgroundTask { context in
                var departments: [String: ManagedObject] = [:]
                for department in try context.fetch(FetchRequest(entityName: "Department")) {
                    if case .string(let name) = department["name"], departments[name] == nil {
                        departments[name] = department
                    }
                }
                var random = SystemRandomNumberGenerator()
                for i in start..<end {
                    let employee = try context.insert("Employee")
                    employee["name"] = .string(
                        "\(given[i % given.count]) \(family[(i / given.count) % family.count]) \(i)")
                    employee["height"] = .double(1.5 + Double(Int.random(in: 0..<50, using: &random)) / 100)
                    employee["level"] = .integer(Int64(1 + i % 10))
                    employee["dateOfBirth"] =
                        i % 7 == 0 ? .null : .date(Date(timeIntervalSince1970: -1_000_000_000 + Double(i) * 10_000))
                    // Setting the to-one adds the employee to the department's to-many at once
                    // (in place, O(log n)), as a Core Data user would write it.
                    if let department = departments[Demo.departmentNames[i % 6]] {
                        try employee.setObject(department, for: "department")
                    }
                }
                try context.save()
            }
        }
    }

    /// Shows optimistic locking: another context changes an employee without saving, a
    /// background task changes and saves the same employee, so the other context's save is
    /// refused and names the conflict.
    private func showConflict(on id: ObjectID, in container: PersistentContainer) async throws {
        let other = ObjectContext(coordinator: container.coordinator, name: "another editor")
        // An unsaved change keeps the object (and the version it was read at) in the context.
        try await other.perform { try other.existingObject(with: id)["height"] = .double(1.55) }
        try await container.performBackgroundTask { context in
            try context.existingObject(with: id)["height"] = .double(2.01)
            try context.save()
        }
        do {
            try await other.perform { try other.save() }
            print("unexpected: a save based on an old version was accepted")
        } catch let error as StrataError where error.code == .conflict {
            print(
                "a save based on an old version was refused, as it must be:\n  \(error.conflicts.first.map(String.init(describing:)) ?? error.message)"
            )
        }
    }

    @discardableResult
    private func timed<T: Sendable>(_ what: String, _ body: () async throws -> T) async rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try await body()
        print("\(what): \(Demo.format(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)) ms")
        return result
    }

    static func format(_ value: Double) -> String { value.formatted(.number.precision(.fractionLength(1))) }
}
