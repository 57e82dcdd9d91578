import Foundation
import StrataCore
import Testing

@testable import StrataSQLite

/// Model names reach SQL only quoted; names that are SQL keywords, and names SQLite would confuse
/// (it ignores ASCII case in identifiers), still get tables and columns of their own.
@Suite struct SQLiteNamingTests {
    static func trickyModel() throws -> Model {
        try Model(
            versionIdentifier: "tricky",
            entities: [
                Entity(
                    "Order",
                    attributes: [
                        Attribute("select", .string), Attribute("from", .integer64, isOptional: true),
                        Attribute("name", .string, isOptional: true), Attribute("Name", .string, isOptional: true),
                        Attribute("NAME", .integer32, isOptional: true),
                    ],
                    relationships: [
                        Relationship("group", to: "order", inverse: "Order", toMany: true, ordered: true),
                        Relationship("where", to: "Order", inverse: "Where", toMany: true),
                        Relationship("Where", to: "Order", inverse: "where", toMany: true),
                    ], uniqueConstraints: [["Name"], ["name"]],
                    indexes: [
                        Entity.Index(name: "by", properties: ["name"]),
                        Entity.Index(name: "BY", properties: ["Name", "select"]),
                    ]),
                Entity(
                    "order", attributes: [Attribute("table", .string)],
                    relationships: [
                        Relationship("Order", to: "Order", inverse: "group")
                    ]),
            ])
    }

    @Test func keywordAndCaseCollidingNamesRoundTripAndQuery() throws {
        let model = try Self.trickyModel()
        let url = temporaryStoreURL()
        var store = try openStore(url, model: model)
        let orders = try store.obtainPermanentIDs(for: "Order", count: 3)
        let lower = try store.obtainPermanentIDs(for: "order", count: 2)
        let inserts = [
            makeSnapshot(
                orders[0], in: model, ["select": "a", "from": 1, "name": "x", "Name": "X", "NAME": 7],
                relationships: [
                    "group": .toMany([lower[1], lower[0]]), "where": .toMany([orders[1]]),
                    "Where": .toMany([orders[2]]),
                ]),
            makeSnapshot(
                orders[1], in: model, ["select": "b", "name": "y", "Name": "Y"],
                relationships: ["Where": .toMany([orders[0]])]),
            makeSnapshot(orders[2], in: model, ["select": "c"], relationships: ["where": .toMany([orders[0]])]),
            makeSnapshot(lower[0], in: model, ["table": "t0"], relationships: ["Order": .toOne(orders[0])]),
            makeSnapshot(lower[1], in: model, ["table": "t1"], relationships: ["Order": .toOne(orders[0])]),
        ]
        try store.save(SaveRequest(inserts: inserts))
        try store.close()
        store = try openStore(url, model: model)
        for original in inserts {
            let stored = try store.fetch(
                FetchRequest(entityName: original.objectID.entityName, objectIDs: [original.objectID])
            ).snapshots()
            #expect(stored.first?.attributes == original.attributes, "\(original.objectID)")
            #expect(stored.first?.relationships == original.relationships, "\(original.objectID)")
        }
        for format in [
            "name == 'x'", "Name == 'Y'", "NAME == 7", "select == 'b'", "from == nil", "ANY group.table == 't1'",
            "where.@count == 1", "ANY Where == %@",
        ] {
            let predicate =
                format.contains("%@")
                ? try ObjectPredicate(format: format, orders[2]) : try ObjectPredicate(format: format)
            let request = FetchRequest(
                entityName: "Order", predicate: predicate, sorts: [Sort("Name", ascending: false)],
                resultType: .objectIDs)
            #expect(
                store.nativeEvaluationDeclineReason(request) == nil,
                "\(format): \(store.nativeEvaluationDeclineReason(request) ?? "")")
            #expect(try store.fetch(request) == (try store.fetchInMemory(request)), "\(format)")
        }
        let lowerRequest = FetchRequest(
            entityName: "order", predicate: try ObjectPredicate(format: "Order.select == 'a'"), resultType: .objectIDs)
        #expect(try store.fetch(lowerRequest).objectIDs() == lower)
        // Unique constraints on `name` and `Name` are separate indexes on separate columns.
        let more = try store.obtainPermanentIDs(for: "Order", count: 1)[0]
        do {
            try store.save(SaveRequest(inserts: [makeSnapshot(more, in: model, ["select": "d", "name": "X"])]))
        } catch {
            Issue.record("name 'X' collided with Name 'X': \(error)")
        }
        let batch = try store.batchUpdate(
            entityName: "Order", predicate: try ObjectPredicate(format: "select == 'c'"),
            values: ["NAME": 9, "from": 3])
        #expect(batch.objectIDs == [orders[2]])
    }
}
