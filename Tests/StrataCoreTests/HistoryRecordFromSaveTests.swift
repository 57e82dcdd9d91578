import Foundation
import StrataCore
import Testing

/// A store writes a save's history record straight from the request
/// (``HistoryChangeRecorder/record(for:timestamp:storedState:)``): it must hold exactly the
/// changes ``HistoryChangeRecorder/changes(for:storedState:)`` finds, byte for byte.
@Suite struct HistoryRecordFromSaveTests {
    static let model = try! Model(entities: [
        Entity(
            "Person",
            attributes: [
                Attribute("name", .string, preservesValueOnDeletion: true), Attribute("age", .integer64),
                Attribute("score", .double, isOptional: true),
            ],
            relationships: [Relationship("team", to: "Team", inverse: "members")]),
        Entity(
            "Team", attributes: [Attribute("title", .string)],
            relationships: [Relationship("members", to: "Person", inverse: "team", toMany: true)]),
    ])

    static func id(_ entity: String, _ key: Int64) -> ObjectID {
        ObjectID(entityName: entity, storeIdentifier: "S", primaryKey: key)
    }

    static func person(_ key: Int64, _ name: String, _ age: Int64, team: Int64?, version: Int64 = 1) -> Snapshot {
        Snapshot(
            objectID: id("Person", key), version: version, attributes: [.string(name), .integer(age), .null],
            relationships: [.toOne(team.map { id("Team", $0) })])
    }

    static func team(_ key: Int64, _ title: String, members: [Int64], version: Int64 = 1) -> Snapshot {
        Snapshot(
            objectID: id("Team", key), version: version, attributes: [.string(title)],
            relationships: [.toMany(members.map { id("Person", $0) })])
    }

    /// Inserts; updates of attributes, of a to-one, of an unordered to-many (one only reordered),
    /// one unchanged, one whose state is stored, one whose state is unknown; deletes keeping a
    /// value, from the request and from the store, and of an entity that keeps none.
    static let request = SaveRequest(
        inserts: [person(10, "Ann", 30, team: 1), team(3, "New", members: [])],
        updates: [
            .init(
                person(1, "Bo", 41, team: 2, version: 1), expectedVersion: 1, previous: person(1, "Bob", 40, team: 1)),
            .init(person(2, "Cy", 20, team: 1), expectedVersion: 1, previous: person(2, "Cy", 20, team: 1)),
            .init(person(4, "Di", 50, team: 2), expectedVersion: 2, previous: person(4, "Dee", 50, team: 2)),
            .init(person(5, "Ed", 60, team: nil), expectedVersion: 1),
            .init(team(1, "One", members: [2, 1]), expectedVersion: 1, previous: team(1, "One", members: [1, 2])),
            .init(team(2, "Two", members: [1, 4]), expectedVersion: 1, previous: team(2, "2", members: [4])),
        ],
        deletes: [
            .init(id("Person", 6), expectedVersion: 1, previous: person(6, "Fay", 70, team: nil)),
            .init(id("Person", 7), expectedVersion: 1),
            .init(id("Team", 8), expectedVersion: 1),
        ],
        transactionAuthor: "importer", contextName: "background")

    /// The stored states: person 4 at version 2, person 7; person 5 is unknown.
    static func stored(_ id: ObjectID) -> Snapshot? {
        switch (id.entityName, id.primaryKey) {
        case ("Person", 4): person(4, "Dora", 49, team: 2, version: 2)
        case ("Person", 7): person(7, "Gus", 80, team: nil)
        default: nil
        }
    }

    @Test func theRecordHoldsTheChangesTheRecorderFinds() throws {
        let recorder = HistoryChangeRecorder(model: Self.model)
        let timestamp = Date(timeIntervalSince1970: 1_800_000_000.5)
        let changes = try recorder.changes(for: Self.request, storedState: Self.stored)
        let (record, changeCount) = try recorder.record(
            for: Self.request, timestamp: timestamp, storedState: Self.stored)
        let token = HistoryToken(storeIdentifier: "S", sequence: 4)
        let transaction = HistoryTransaction(
            token: token, timestamp: timestamp, author: "importer", contextName: "background", changes: changes)
        #expect(record == HistoryRecordCodec.encode(transaction))
        #expect(try HistoryRecordCodec.decode(record, token: token) == transaction)
        #expect(changeCount == changes.count)
    }

    @Test func theRecordSkipsUnchangedPropertiesAndReorderedUnorderedTargets() throws {
        let recorder = HistoryChangeRecorder(model: Self.model)
        let (record, _) = try recorder.record(for: Self.request, timestamp: Date(), storedState: Self.stored)
        let decoded = try HistoryRecordCodec.decode(record, token: HistoryToken(storeIdentifier: "S", sequence: 1))
        let updates = decoded.changes.filter { $0.kind == .update }
        #expect(
            updates.map { $0.properties.map(\.name) } == [
                ["name", "age", "team"], [], ["name", "age"], [], [], ["title", "members"],
            ])
        #expect(updates[2].properties[0].oldValue == .attribute(.string("Dora")))
        let deletes = decoded.changes.filter { $0.kind == .delete }
        #expect(deletes.map(\.tombstone) == [["name": .string("Fay")], ["name": .string("Gus")], [:]])
    }
}
