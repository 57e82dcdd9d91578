import Foundation
import StrataCore

extension ConformanceKit {
    static let errorChecks: [ConformanceCheck] = [
        ConformanceCheck("failedSaveLeavesNoTrace") { run in
            let store = try run.open()
            _ = try run.seed(store)
            let before = try run.all(store, "Employee")
            let ids = try run.ids(store, "Employee", 4)
            var inserts = try ids.dropLast().map { try run.snapshot($0, ["name": .string("temp \($0.primaryKey!)")]) }
            inserts.append(try run.snapshot(ids.last!, ["name": .integer(5)]))
            var update = before[0]
            update.attributes[run.entity("Employee").attributeIndex(named: "level")!] = .integer(9)
            try run.expectError(.typeMismatch, "a save whose last insert has a wrong type") {
                try store.save(SaveRequest(inserts: inserts, updates: [.init(update, expectedVersion: 1)]))
            }
            try run.expectEqual(try run.all(store, "Employee"), before, "employees after a failed save")
        },
        ConformanceCheck("wrongValueTypeIsATypeMismatch") { run in
            let store = try run.open()
            let id = try run.ids(store, "AllTypes", 1)[0]
            for (name, value) in [
                ("i16", Value.integer(40_000)), ("i32", .string("1")), ("dbl", .float(1)), ("flt", .double(1)),
                ("date", .double(0)), ("uuid", .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")),
            ] {
                let error = try run.expectError(.typeMismatch, "saving \(value) into AllTypes.\(name)") {
                    try store.save(SaveRequest(inserts: [try run.snapshot(id, [name: value])]))
                }
                try run.expect(
                    error.message.contains(name), "the type mismatch error must name the attribute: \(error.message)")
            }
            try run.expectEqual(try run.all(store, "AllTypes").count, 0, "AllTypes after rejected saves")
        },
        ConformanceCheck("missingRequiredValueIsRejected") { run in
            let store = try run.open()
            let id = try run.ids(store, "Company", 1)[0]
            let error = try run.expectError(.missingValue, "a company without a name") {
                try store.save(SaveRequest(inserts: [try run.snapshot(id, ["name": nil])]))
            }
            try run.expect(error.message.contains("name"), "the error must name the attribute: \(error.message)")
        },
        ConformanceCheck("unknownEntityIsRejected") { run in
            let store = try run.open()
            try run.expectError(.unknownEntity, "fetching an unknown entity") {
                _ = try store.fetch(FetchRequest(entityName: "Spaceship"))
            }
            try run.expectError(.unknownEntity, "obtaining IDs for an unknown entity") {
                _ = try store.obtainPermanentIDs(for: "Spaceship", count: 1)
            }
            let ghost = ObjectID(entityName: "Spaceship", storeIdentifier: store.identifier, primaryKey: 1)
            try run.expectError(.unknownEntity, "saving an unknown entity") {
                try store.save(
                    SaveRequest(inserts: [Snapshot(objectID: ghost, version: 0, attributes: [], relationships: [])]))
            }
        },
        ConformanceCheck("aPlainFetchIsCheckedLikeAnyOther") { run in
            // A fetch with no predicate or sorts (a fetch by ID) is checked too, even when the
            // store skips the model lookup for it.
            let store = try run.open()
            try run.expectError(.invalidRequest, "a plain fetch with a negative offset") {
                _ = try store.fetch(FetchRequest(entityName: "Company", offset: -1))
            }
            try run.expectError(.invalidRequest, "a plain fetch with a negative limit") {
                _ = try store.fetch(FetchRequest(entityName: "Company", limit: -1))
            }
            try run.expectError(.invalidObjectID, "a fetch by a temporary ID") {
                _ = try store.fetch(FetchRequest(entityName: "Company", objectIDs: [.temporary(entityName: "Company")]))
            }
        },
        ConformanceCheck("unknownKeyPathIsAnErrorNamingEntityAndKey") { run in
            let store = try run.open()
            let error = try run.expectError(.unknownKey, "a predicate on an unknown key") {
                _ = try store.fetch(
                    FetchRequest(
                        entityName: "Employee",
                        predicate: .comparison(.init(.keyPath("salary"), .greater, .constant(1)))))
            }
            try run.expectEqual(error.location["entity"], "Employee", "entity named by the error")
            try run.expectEqual(error.location["key"], "salary", "key named by the error")
            try run.expectError(.unknownKey, "a sort through an unknown relationship") {
                _ = try store.fetch(FetchRequest(entityName: "Employee", sorts: [Sort("team.name")]))
            }
        },
        ConformanceCheck("temporaryIDsAreRejected") { run in
            let store = try run.open()
            try run.expectError(.invalidObjectID, "inserting with a temporary ID") {
                try store.save(
                    SaveRequest(inserts: [try run.snapshot(.temporary(entityName: "Company"), ["name": "Temp"])]))
            }
            try run.expectEqual(try run.all(store, "Company").count, 0, "companies after a rejected save")
        },
    ]
}
