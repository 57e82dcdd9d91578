import Foundation
import Strata
import StrataTestSupport
import Testing

/// A load cancelled while it migrates a Company v1 store to v3 (two steps) on a persistent
/// backend leaves the store at a whole model version (v1, v2 or v3) with every object and link
/// intact, and loading again completes.
///
/// The cancellation is made to arrive at the n-th time the migrator polls for it, for every n
/// until a load is no longer cancelled by it, so it lands between and inside every step.
@Suite struct CancelledLoadTests {
    static let departmentCount = 3, employeeCount = 12

    static let versions: VersionedModel = {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Examples/Models/Company.stratamodel")
        return try! VersionedModel(directory: directory)
    }()

    /// The built-in migrator, cancelling its container's load from inside the n-th poll of
    /// `isCancelled` (as a user's cancel arriving at that moment would).
    final class CancellingMigrator: StoreMigrating {
        let inner: StoreMigrator
        let cancelAtPoll: Int
        let polls = Locked(0)
        let container = Locked<PersistentContainer?>(nil)
        var currentModel: Model { inner.currentModel }

        init(cancelAtPoll: Int) throws {
            inner = try StoreMigrator(versions: CancelledLoadTests.versions, registry: BuiltInBackends.registry)
            self.cancelAtPoll = cancelAtPoll
        }

        func needsMigration(storeAt url: StoreURL) throws -> Bool { try inner.needsMigration(storeAt: url) }

        func migrateStore(
            at url: StoreURL, options: StoreOptions, progress: @escaping @Sendable (StoreProgress) -> Void,
            isCancelled: @escaping @Sendable () -> Bool
        ) throws {
            try inner.migrateStore(
                at: url, options: options, progress: progress,
                isCancelled: { [self] in
                    let poll = polls.withLock { count -> Int in
                        count += 1
                        return count
                    }
                    if poll == cancelAtPoll { container.withLock { $0 }?.cancelLoading() }
                    return isCancelled()
                })
        }
    }

    /// A Company v1 store of `scheme` in a new directory: 3 departments, 12 employees, employee
    /// `i` in department `i % 3`.
    private func seededV1Store(_ scheme: String) throws -> StoreURL {
        let name = ["sqlite": "company.sqlite", "lmdb": "company-lmdb", "xml": "company.xml"][scheme]!
        let url = try StoreURL.parse("\(scheme):\(TemporaryDirectory().url.appendingPathComponent(name).path)")
        let v1 = Self.versions.versions[0]
        let coordinator = StoreCoordinator(model: v1)
        let store = try BuiltInBackends.registry.open(url, model: v1)
        try coordinator.addStore(store)
        let context = ObjectContext(coordinator: coordinator)
        let departments = try (0..<Self.departmentCount).map { index in
            let department = try context.insert("Department")
            department["name"] = .string("department \(index)")
            return department
        }
        for index in 0..<Self.employeeCount {
            let employee = try context.insert("Employee")
            employee["name"] = .string("employee \(index)")
            try employee.setObject(departments[index % Self.departmentCount], for: "department")
        }
        try context.save()
        try store.close()
        return url
    }

    /// The model version the store's metadata names, and each employee's department, read with
    /// that version's model straight from the backend.
    private func storeContent(_ url: StoreURL) throws -> (version: String?, employees: [String: String]) {
        guard let metadata = try BuiltInBackends.registry.backend(for: url.scheme).metadata(at: url),
            let model = Self.versions.version(withHash: metadata.modelVersionHash)
        else { return (nil, [:]) }
        let coordinator = StoreCoordinator(model: model)
        let store = try BuiltInBackends.registry.open(url, model: model, options: StoreOptions(createsIfMissing: false))
        defer { try? store.close() }
        try coordinator.addStore(store)
        let context = ObjectContext(coordinator: coordinator)
        var employees: [String: String] = [:]
        for employee in try context.fetch(FetchRequest(entityName: "Employee")) {
            guard case .string(let name) = employee["name"] else { continue }
            let department = try employee.object(for: "department").flatMap { department -> String? in
                if case .string(let name) = department["name"] { name } else { nil }
            }
            employees[name] = department ?? "(none)"
        }
        #expect(try context.count(FetchRequest(entityName: "Department")) == Self.departmentCount)
        return (model.versionIdentifier, employees)
    }

    private var seeded: [String: String] {
        Dictionary(
            uniqueKeysWithValues: (0..<Self.employeeCount).map {
                ("employee \($0)", "department \($0 % Self.departmentCount)")
            })
    }

    @Test(arguments: ["sqlite", "lmdb", "xml"])
    func aLoadCancelledDuringMigrationLeavesTheStoreAtAWholeVersionAndLoadsAgain(scheme: String) async throws {
        var versionsSeen: [String: Int] = [:]
        var poll = 1
        while true {
            let url = try seededV1Store(scheme)
            let migrator = try CancellingMigrator(cancelAtPoll: poll)
            let container = PersistentContainer(
                name: "Company", versionedModel: Self.versions, storeDescriptions: [StoreDescription(url: url)],
                migrator: migrator, environment: [:])
            migrator.container.withLock { $0 = container }
            let error = await loadResult(container)
            let cancelled = migrator.polls.withLock { $0 } >= poll
            if cancelled {
                #expect(error?.code == .cancelled, "cancelled at poll \(poll)")
                let (version, employees) = try storeContent(url)
                #expect(version != nil, "cancelled at poll \(poll): the store names no known model version")
                #expect(
                    employees == seeded,
                    "cancelled at poll \(poll): the store at \(version ?? "?") lost objects or links")
                versionsSeen[version ?? "?", default: 0] += 1
                let files = try FileManager.default.contentsOfDirectory(
                    atPath: URL(fileURLWithPath: url.location).deletingLastPathComponent().path)
                #expect(
                    !files.contains { $0.contains("strata-migrating") },
                    "cancelled at poll \(poll): a staging store was left: \(files)")
                if let error { #expect(error.location["modelVersion"] == version, "\(error)") }
            } else {
                #expect(error == nil)
            }
            // Loading again (the same container) continues from where the cancel left the store.
            migrator.container.withLock { $0 = nil }
            if container.state != .ready { try await container.loadPersistentStores() }
            try container.closeStores()
            let (version, employees) = try storeContent(url)
            #expect(version == "v3" && employees == seeded, "after a second load (cancelled at poll \(poll))")
            if !cancelled { break }
            poll += 1
        }
        #expect(poll > 2, "the migrator polled for cancellation only \(poll - 1) time(s)")
        #expect(
            versionsSeen["v1", default: 0] > 0 && versionsSeen["v2", default: 0] > 0,
            "versions left by a cancel: \(versionsSeen)")
    }
}
