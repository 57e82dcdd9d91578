import StrataCore

extension ConformanceKit {
    static let lockingChecks: [ConformanceCheck] = [
        ConformanceCheck("staleVersionIsRejectedAndNothingIsWritten") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            let heightIndex = run.entity("Employee").attributeIndex(named: "height")!
            var alice = seeded.snapshots[seeded.employees["Alice"]!]!
            alice.attributes[heightIndex] = .double(1.63)
            try store.save(SaveRequest(updates: [.init(alice, expectedVersion: 1)]))
            var stale = alice
            stale.attributes[heightIndex] = .double(1.99)
            let newcomer = try run.snapshot(try run.ids(store, "Employee", 1)[0], ["name": "newcomer"])
            var lxz = seeded.snapshots[seeded.employees["lxz"]!]!
            lxz.attributes[heightIndex] = .double(2.5)
            let error = try run.expectError(.conflict, "an update at a stale version") {
                try store.save(
                    SaveRequest(
                        inserts: [newcomer],
                        updates: [.init(lxz, expectedVersion: 1), .init(stale, expectedVersion: 1)]))
            }
            try run.expectEqual(error.conflicts.map(\.objectID), [alice.objectID], "objects listed in the conflict")
            try run.expectEqual(error.conflicts.first?.expectedVersion, 1, "expected version in the conflict")
            try run.expectEqual(error.conflicts.first?.storedSnapshot?.version, 2, "stored version in the conflict")
            try run.expectEqual(
                error.conflicts.first?.storedSnapshot.map { run.value($0, "height") }, .double(1.63),
                "stored value in the conflict")
            try run.expect(try run.one(store, newcomer.objectID) == nil, "the insert of a rejected save was written")
            try run.expectEqual(
                try run.one(store, lxz.objectID).map { run.value($0, "height") }, .double(1.7),
                "the valid update of a rejected save was written")
            try run.expectEqual(
                try run.one(store, alice.objectID).map { run.value($0, "height") }, .double(1.63),
                "the stale update was written")
        },
        ConformanceCheck("everyConflictIsListed") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            let a = seeded.snapshots[seeded.employees["Alice"]!]!
            let b = seeded.snapshots[seeded.employees["bob"]!]!
            try store.save(SaveRequest(updates: [.init(a, expectedVersion: 1), .init(b, expectedVersion: 1)]))
            let error = try run.expectError(.conflict, "two stale updates") {
                try store.save(SaveRequest(updates: [.init(a, expectedVersion: 1), .init(b, expectedVersion: 1)]))
            }
            try run.expectEqual(Set(error.conflicts.map(\.objectID)), [a.objectID, b.objectID], "conflicting objects")
        },
        ConformanceCheck("staleOrRepeatedDeleteIsAConflict") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            let project = seeded.snapshots[seeded.projects["空"]!]!
            try store.save(SaveRequest(updates: [.init(project, expectedVersion: 1)]))
            try run.expectError(.conflict, "deleting at a stale version") {
                try store.save(SaveRequest(deletes: [.init(project.objectID, expectedVersion: 1)]))
            }
            try run.expect(
                try run.one(store, project.objectID) != nil, "a delete at a stale version removed the object")
            try store.save(SaveRequest(deletes: [.init(project.objectID, expectedVersion: 2)]))
            let error = try run.expectError(.conflict, "deleting an object that is already gone") {
                try store.save(SaveRequest(deletes: [.init(project.objectID, expectedVersion: 2)]))
            }
            try run.expect(
                error.conflicts.first?.storedSnapshot == nil,
                "the conflict of a vanished object must have no stored snapshot")
        },
        ConformanceCheck("updateOfADeletedObjectIsAConflict") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            let project = seeded.snapshots[seeded.projects["空"]!]!
            try store.save(SaveRequest(deletes: [.init(project.objectID, expectedVersion: 1)]))
            let error = try run.expectError(.conflict, "updating a deleted object") {
                try store.save(SaveRequest(updates: [.init(project, expectedVersion: 1)]))
            }
            try run.expectEqual(error.conflicts.map(\.objectID), [project.objectID], "conflicting object")
            try run.expect(try run.one(store, project.objectID) == nil, "the update brought a deleted object back")
        },
        ConformanceCheck("uniqueConstraintViolationIsRejected") { run in
            let store = try run.open()
            _ = try run.seed(store)
            let ids = try run.ids(store, "Project", 2)
            try run.expectError(.uniqueConstraint, "a second project titled Apollo") {
                try store.save(
                    SaveRequest(inserts: [
                        try run.snapshot(ids[0], ["title": "Gemini"]), try run.snapshot(ids[1], ["title": "Apollo"]),
                    ]))
            }
            try run.expectEqual(try run.all(store, "Project").count, 3, "projects after a rejected save")
            try store.save(SaveRequest(inserts: [try run.snapshot(ids[0], ["title": "Gemini"])]))
            try run.expectEqual(try run.all(store, "Project").count, 4, "projects after a valid save")
        },
    ]
}
