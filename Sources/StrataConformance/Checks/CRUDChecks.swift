import StrataCore

extension ConformanceKit {
    static let crudChecks: [ConformanceCheck] = [
        ConformanceCheck("insertedObjectsAreFetchedBackAtVersionOne") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            for entity in ["Company", "Department", "Employee", "Project"] {
                let fetched = try run.all(store, entity)
                let expected = seeded.snapshots.values.filter { $0.objectID.entityName == entity }.sorted {
                    $0.objectID < $1.objectID
                }
                try run.expectEqual(fetched.count, expected.count, "\(entity) count")
                for (got, want) in zip(fetched, expected) {
                    try run.expectEqual(got, want, "\(entity) \(want.objectID)")
                }
            }
        },
        ConformanceCheck("permanentIDsAreUniqueAndOfTheStore") { run in
            let store = try run.open()
            var seen: Set<ObjectID> = []
            for count in [1, 5, 100, 0, 3] {
                for id in try store.obtainPermanentIDs(for: "Employee", count: count) {
                    try run.expect(!id.isTemporary, "\(id) is temporary")
                    try run.expectEqual(id.entityName, "Employee", "entity of a new ID")
                    try run.expectEqual(id.storeIdentifier, store.identifier, "store of a new ID")
                    try run.expect(seen.insert(id).inserted, "\(id) was handed out twice")
                }
            }
        },
        ConformanceCheck("updateIsStoredAtTheNextVersion") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            var alice = seeded.snapshots[seeded.employees["Alice"]!]!
            alice.attributes[run.entity("Employee").attributeIndex(named: "height")!] = .double(1.64)
            let result = try store.save(SaveRequest(updates: [.init(alice, expectedVersion: 1)]))
            try run.expectEqual(result.versions[alice.objectID], 2, "version reported by the save")
            let fetched = try run.one(store, alice.objectID)
            try run.expectEqual(fetched?.version, 2, "version after one update")
            try run.expectEqual(fetched.map { run.value($0, "height") }, .double(1.64), "height after update")
            alice.attributes[run.entity("Employee").attributeIndex(named: "level")!] = .integer(4)
            try store.save(SaveRequest(updates: [.init(alice, expectedVersion: 2)]))
            try run.expectEqual(try run.one(store, alice.objectID)?.version, 3, "version after two updates")
        },
        ConformanceCheck("deletedObjectsAreGone") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            let project = seeded.projects["空"]!
            try store.save(SaveRequest(deletes: [.init(project, expectedVersion: 1)]))
            try run.expect(try run.one(store, project) == nil, "a deleted object is still fetched by ID")
            try run.expectEqual(try run.all(store, "Project").count, 2, "projects after a delete")
        },
        ConformanceCheck("fetchByIDsSkipsForeignAndMissingOnes") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            let wanted = [seeded.employees["bob"]!, seeded.employees["lxz"]!]
            let foreign = ObjectID(
                entityName: "Employee", storeIdentifier: "another-store", primaryKey: wanted[0].primaryKey!)
            let missing = ObjectID(entityName: "Employee", storeIdentifier: store.identifier, primaryKey: 999_999)
            let otherEntity = seeded.companies["Acme"]!
            let fetched = try store.fetch(
                FetchRequest(entityName: "Employee", objectIDs: [wanted[0], foreign, missing, otherEntity, wanted[1]])
            ).objectIDs()
            try run.expectEqual(fetched, wanted.sorted(), "objects fetched by ID")
        },
        ConformanceCheck("theReadPrimitiveAgreesWithFetch") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            for entity in store.model.entities {
                let read = try store.snapshots(of: entity.name, among: nil)
                let fetched = try run.all(store, entity.name)
                try run.expectEqual(read, fetched, "snapshots(of: \(entity.name), among: nil) vs fetch")
                try run.expectEqual(read.map(\.objectID), read.map(\.objectID).sorted(), "\(entity.name) in key order")
            }
            let wanted = [seeded.employees["lxz"]!, seeded.employees["bob"]!]
            let foreign = ObjectID(
                entityName: "Employee", storeIdentifier: "another-store", primaryKey: wanted[0].primaryKey!)
            let missing = ObjectID(entityName: "Employee", storeIdentifier: store.identifier, primaryKey: 999_999)
            let among = [wanted[0], foreign, missing, seeded.companies["Acme"]!, wanted[1], wanted[0]]
            let read = try store.snapshots(of: "Employee", among: among)
            try run.expectEqual(read.map(\.objectID), wanted.sorted(), "stored IDs among others, once, in key order")
            let fetched = try store.fetch(FetchRequest(entityName: "Employee", objectIDs: among)).snapshots()
            try run.expectEqual(read, fetched, "read by ID vs fetch")
            try run.expectEqual(try store.snapshots(of: "Employee", among: []), [], "no IDs, no snapshots")
            try run.expectError(.unknownEntity, "reading an unknown entity") {
                _ = try store.snapshots(of: "Spaceship", among: nil)
            }
        },
    ]
}
