import StrataCore

/// Thrown by a check that applies only to stores with a capability the opened store lacks
/// (a protocol it does not adopt); ``ConformanceCheck/run(on:)`` then reports "did not apply".
struct ConformanceNotApplicable: Error {}

extension ConformanceRun {
    /// Opens the run's store as a ``KeyPreservingStore``, or ends the check as not applicable.
    func openKeyPreserving(options: StoreOptions? = nil) throws -> any KeyPreservingStore {
        try capability((any KeyPreservingStore).self, of: try open(options: options))
    }

    /// `store`'s `type` capability, or the end of the check as not applicable.
    func capability<C>(_ type: C.Type, of store: any PersistentStore) throws -> C {
        guard let found = store.capability(type) else { throw ConformanceNotApplicable() }
        return found
    }

    /// An employee under `key`, with `name`.
    func employee(_ store: any PersistentStore, key: Int64, _ name: String, department: ObjectID? = nil) throws
        -> Snapshot
    {
        try snapshot(
            ObjectID(entityName: "Employee", storeIdentifier: store.identifier, primaryKey: key),
            ["name": .string(name)], relationships: ["department": .toOne(department)])
    }
}

extension ConformanceKit {
    /// Checks for stores adopting ``KeyPreservingStore``; they do not apply to other stores.
    static let keyPreservingChecks: [ConformanceCheck] = [
        ConformanceCheck("reservedKeysCanBeInsertedWithTheirRelationships") { run in
            let store = try run.openKeyPreserving()
            try store.reserveKeys(through: 100, for: "Employee")
            try store.reserveKeys(through: 40, for: "Department")
            let department = try run.snapshot(
                ObjectID(entityName: "Department", storeIdentifier: store.identifier, primaryKey: 40),
                ["name": .string("Research")])
            let a = try run.employee(store, key: 7, "Ада", department: department.objectID)
            let b = try run.employee(store, key: 100, "Zoë", department: department.objectID)
            var withEmployees = department
            withEmployees.relationships[run.entity("Department").relationshipIndex(named: "employees")!] = .toMany([
                a.objectID, b.objectID,
            ])
            try store.save(SaveRequest(inserts: [withEmployees, b, a]))
            let employees = try run.all(store, "Employee")
            try run.expectEqual(
                employees.map(\.objectID.primaryKey), [7, 100], "keys of the employees inserted under reserved keys")
            try run.expectEqual(
                employees.map { run.value($0, "name") }, [.string("Ада"), .string("Zoë")], "names of the employees")
            try run.expectEqual(
                employees.map { run.relationship($0, "department") },
                [.toOne(department.objectID), .toOne(department.objectID)],
                "departments of the employees")
            let stored = try run.one(store, department.objectID)
            try run.expect(stored != nil, "the department inserted under reserved key 40 is missing")
            try run.expectEqual(
                Set(run.relationship(stored!, "employees")?.targets ?? []), [a.objectID, b.objectID],
                "the department's employees")
        },
        ConformanceCheck("obtainPermanentIDsHandsOutKeysAboveReservations") { run in
            let store = try run.openKeyPreserving()
            let early = try run.ids(store, "Employee", 2).compactMap(\.primaryKey)
            try store.reserveKeys(through: 500, for: "Employee")
            try store.reserveKeys(through: 20, for: "Employee")
            try store.reserveKeys(through: early.max()!, for: "Employee")
            let fresh = try run.ids(store, "Employee", 3).compactMap(\.primaryKey)
            try run.expect(
                fresh.allSatisfy { $0 > 500 },
                "after reserving keys through 500 (then 20), obtainPermanentIDs handed out \(fresh)")
            try run.expectEqual(Set(fresh).count, 3, "distinct fresh keys")
            let other = try run.ids(store, "Department", 1).compactMap(\.primaryKey)
            try run.expect(
                other.allSatisfy { $0 <= 500 },
                "a reservation for Employee must not move Department's keys: got \(other)")
        },
        ConformanceCheck("reservationsHoldAfterReopening", requires: .persistent) { run in
            let store = try run.openKeyPreserving()
            try store.reserveKeys(through: 1_000, for: "Employee")
            try store.reserveKeys(through: 300, for: "Project")
            try store.save(
                SaveRequest(inserts: [
                    try run.employee(store, key: 1_000, "last"), try run.employee(store, key: 3, "first"),
                ]))
            try store.close()
            let reopened = try run.openKeyPreserving()
            try run.expectEqual(
                try run.all(reopened, "Employee").map(\.objectID.primaryKey), [3, 1_000], "employees after reopening")
            let employees = try run.ids(reopened, "Employee", 2).compactMap(\.primaryKey)
            try run.expect(
                employees.allSatisfy { $0 > 1_000 },
                "after reopening, Employee keys reserved through 1000 were handed out again: \(employees)")
            let projects = try run.ids(reopened, "Project", 2).compactMap(\.primaryKey)
            try run.expect(
                projects.allSatisfy { $0 > 300 },
                "after a save and reopening, Project keys reserved through 300 were handed out again: \(projects)")
        },
        ConformanceCheck("reserveKeysRejectsBadInput") { run in
            let store = try run.openKeyPreserving()
            try run.expectError(.unknownEntity, "reserving keys of an unknown entity") {
                try store.reserveKeys(through: 5, for: "Nobody")
            }
            try run.expectError(.invalidRequest, "reserving keys through 0") {
                try store.reserveKeys(through: 0, for: "Employee")
            }
            try run.expectError(.invalidRequest, "reserving keys through -7") {
                try store.reserveKeys(through: -7, for: "Employee")
            }
            let fresh = try run.ids(store, "Employee", 1).compactMap(\.primaryKey)
            try run.expectEqual(fresh, [1], "the first key after refused reservations")
        },
        ConformanceCheck("readOnlyStoreRefusesReservations", requires: [.persistent, .readOnly]) { run in
            try run.openKeyPreserving().close()
            var options = run.subject.options
            options.isReadOnly = true
            let readOnly = try run.openKeyPreserving(options: options)
            try run.expectError(.readOnly, "reserving keys in a read-only store") {
                try readOnly.reserveKeys(through: 10, for: "Employee")
            }
        },
    ]
}
