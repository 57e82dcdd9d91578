import StrataCore

extension ConformanceKit {
    /// A model whose `Ticket` has an integer under a unique constraint of its own (`number`), a
    /// compound one (`series`, `seat`) and an unconstrained integer (`row`).
    static let ticketModel = try! Model(
        versionIdentifier: "conformance-unique-bounds",
        entities: [
            Entity(
                "Ticket",
                attributes: [
                    Attribute("number", .integer64, isOptional: true), Attribute("series", .integer32),
                    Attribute("seat", .integer16), Attribute("row", .integer64, isOptional: true),
                ],
                uniqueConstraints: [["number"], ["series", "seat"]])
        ])

    /// Checks for stores adopting ``UniqueIntegerBounds``: the bounds are the least and greatest
    /// of every stored value, through inserts, updates and deletes. They do not apply to other
    /// stores.
    static let uniqueBoundsChecks: [ConformanceCheck] = [
        ConformanceCheck("uniqueIntegerBoundsFollowEveryStoredValue") { run in
            let store = try run.capability((any UniqueIntegerBounds).self, of: try run.open(model: ticketModel))
            func ticket(_ id: ObjectID, _ number: Value, seat: Int64, version: Int64 = 0) -> Snapshot {
                Snapshot(
                    objectID: id, version: version,
                    attributes: [number, .integer(1), .integer(seat), .null],
                    relationships: [])
            }
            func expectBounds(_ expected: ClosedRange<Int64>?, _ what: String) throws {
                let stored = try store.fetch(FetchRequest(entityName: "Ticket")).snapshots().compactMap {
                    snapshot -> Int64? in
                    if case .integer(let number) = snapshot.attributes[0] { return number }
                    return nil
                }
                let fromFetch = stored.min().map { $0...stored.max()! }
                try run.expectEqual(fromFetch, expected, "the stored numbers \(what) (the fixture)")
                try run.expectEqual(
                    try store.storedBounds(ofUnique: "number", in: "Ticket"), expected, "the bounds \(what)")
            }
            try expectBounds(nil, "of an empty store")
            let ids = try run.ids(store, "Ticket", 5)
            try store.save(SaveRequest(inserts: [ticket(ids[0], .null, seat: 0)]))
            try expectBounds(nil, "when the only ticket has no number")
            try store.save(
                SaveRequest(inserts: [
                    ticket(ids[1], .integer(5), seat: 1), ticket(ids[2], .integer(-7), seat: 2),
                    ticket(ids[3], .integer(12), seat: 3),
                ]))
            try expectBounds(-7...12, "after inserts")
            try store.save(
                SaveRequest(
                    updates: [.init(ticket(ids[3], .integer(3), seat: 3, version: 1), expectedVersion: 1)],
                    deletes: [.init(ids[2], expectedVersion: 1)]))
            try expectBounds(3...5, "after the least is deleted and the greatest lowered")
            try store.save(
                SaveRequest(inserts: [
                    ticket(ids[4], .integer(.max), seat: 4)
                ]))
            try store.save(
                SaveRequest(updates: [.init(ticket(ids[3], .integer(.min), seat: 3, version: 2), expectedVersion: 2)]))
            try expectBounds(.min ... .max, "with the extreme integers")
            try store.save(
                SaveRequest(deletes: [ids[1], ids[3], ids[4]].map { .init($0, expectedVersion: $0 == ids[3] ? 3 : 1) }))
            try expectBounds(nil, "once every number is deleted")
        },
        ConformanceCheck("uniqueIntegerBoundsRefuseOtherAttributes") { run in
            let store = try run.capability((any UniqueIntegerBounds).self, of: try run.open(model: ticketModel))
            // Unconstrained, part of a compound constraint, missing.
            for attribute in ["row", "seat", "nothing"] {
                try run.expectError(.invalidRequest, "bounds of Ticket.\(attribute)") {
                    _ = try store.storedBounds(ofUnique: attribute, in: "Ticket")
                }
            }
        },
    ]
}
