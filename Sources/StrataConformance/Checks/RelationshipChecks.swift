import StrataCore

extension ConformanceKit {
    static let relationshipChecks: [ConformanceCheck] = [
        ConformanceCheck("toOneAndToManySidesAreFetchedAsSaved") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            let engineering = try run.one(store, seeded.departments["Engineering"]!)!
            let expected = ["lxz", "Alice", "bob", "Zoë"].map { seeded.employees[$0]! }.sorted()
            try run.expectEqual(
                run.relationship(engineering, "employees"), .toMany(expected), "Engineering.employees (sorted by key)")
            try run.expectEqual(
                run.relationship(engineering, "company"), .toOne(seeded.companies["Acme"]), "Engineering.company")
            let emilie = try run.one(store, seeded.employees["emilie"]!)!
            try run.expectEqual(run.relationship(emilie, "department"), .toOne(nil), "emilie.department")
            let acme = try run.one(store, seeded.companies["Acme"]!)!
            try run.expectEqual(
                run.relationship(acme, "departments"),
                .toMany([seeded.departments["Engineering"]!, seeded.departments["研发部"]!].sorted()), "Acme.departments")
        },
        ConformanceCheck("orderedToManyKeepsItsOrder") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            let apollo = try run.one(store, seeded.projects["Apollo"]!)!
            let order = ["bob", "lxz", "Alice"].map { seeded.employees[$0]! }
            try run.expectEqual(
                run.relationship(apollo, "members"), .toMany(order), "Apollo.members in the saved order")
            var reordered = apollo
            let newOrder = ["Alice", "bob", "lxz"].map { seeded.employees[$0]! }
            reordered.relationships[run.entity("Project").relationshipIndex(named: "members")!] = .toMany(newOrder)
            try store.save(SaveRequest(updates: [.init(reordered, expectedVersion: 1)]))
            try run.expectEqual(
                run.relationship(try run.one(store, apollo.objectID)!, "members"), .toMany(newOrder),
                "Apollo.members after reordering")
        },
        ConformanceCheck("manyToManyIsFetchedFromBothSides") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            let lxz = try run.one(store, seeded.employees["lxz"]!)!
            try run.expectEqual(
                run.relationship(lxz, "projects"), .toMany([seeded.projects["Apollo"]!]), "lxz.projects")
            // Add lxz to Борей: both sides change in one save.
            var borei = try run.one(store, seeded.projects["Борей"]!)!
            let membersIndex = run.entity("Project").relationshipIndex(named: "members")!
            borei.relationships[membersIndex] = .toMany([seeded.employees["Иван"]!, lxz.objectID])
            var movedLXZ = lxz
            movedLXZ.relationships[run.entity("Employee").relationshipIndex(named: "projects")!] = .toMany(
                [seeded.projects["Apollo"]!, borei.objectID].sorted())
            try store.save(
                SaveRequest(updates: [.init(borei, expectedVersion: 1), .init(movedLXZ, expectedVersion: 1)]))
            try run.expectEqual(
                run.relationship(try run.one(store, lxz.objectID)!, "projects"),
                .toMany([seeded.projects["Apollo"]!, borei.objectID].sorted()), "lxz.projects after joining Борей")
            try run.expectEqual(
                run.relationship(try run.one(store, borei.objectID)!, "members"),
                .toMany([seeded.employees["Иван"]!, lxz.objectID]), "Борей.members")
        },
        ConformanceCheck("movingAnObjectUpdatesBothInverses") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            let dIndex = run.entity("Employee").relationshipIndex(named: "department")!
            let eIndex = run.entity("Department").relationshipIndex(named: "employees")!
            var bob = try run.one(store, seeded.employees["bob"]!)!
            var engineering = try run.one(store, seeded.departments["Engineering"]!)!
            var sales = try run.one(store, seeded.departments["Отдел продаж"]!)!
            bob.relationships[dIndex] = .toOne(sales.objectID)
            engineering.relationships[eIndex] = .toMany(
                engineering.relationships[eIndex].targets.filter { $0 != bob.objectID })
            sales.relationships[eIndex] = .toMany((sales.relationships[eIndex].targets + [bob.objectID]).sorted())
            try store.save(
                SaveRequest(updates: [
                    .init(bob, expectedVersion: 1), .init(engineering, expectedVersion: 1),
                    .init(sales, expectedVersion: 1),
                ]))
            try run.expectEqual(
                run.relationship(try run.one(store, bob.objectID)!, "department"), .toOne(sales.objectID),
                "bob.department after the move")
            try run.expect(
                !(run.relationship(try run.one(store, engineering.objectID)!, "employees")?.targets.contains(
                    bob.objectID) ?? true), "Engineering still lists bob")
            try run.expect(
                run.relationship(try run.one(store, sales.objectID)!, "employees")?.targets.contains(bob.objectID)
                    ?? false, "Sales does not list bob")
            let inSales = try store.fetch(
                FetchRequest(
                    entityName: "Employee",
                    predicate: .comparison(.init(.keyPath("department"), .equal, .objectID(sales.objectID))),
                    resultType: .objectIDs)
            ).objectIDs()
            try run.expect(inSales.contains(bob.objectID), "a fetch by department does not find bob in Sales")
        },
        ConformanceCheck("deletingAnObjectWithItsInverseUpdatesLeavesNoDanglingTarget") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            var engineering = try run.one(store, seeded.departments["Engineering"]!)!
            let zoe = try run.one(store, seeded.employees["Zoë"]!)!
            let eIndex = run.entity("Department").relationshipIndex(named: "employees")!
            engineering.relationships[eIndex] = .toMany(
                engineering.relationships[eIndex].targets.filter { $0 != zoe.objectID })
            try store.save(
                SaveRequest(
                    updates: [.init(engineering, expectedVersion: 1)],
                    deletes: [.init(zoe.objectID, expectedVersion: 1)]))
            try run.expect(
                !(run.relationship(try run.one(store, engineering.objectID)!, "employees")?.targets.contains(
                    zoe.objectID) ?? true), "Engineering still lists the deleted Zoë")
        },
    ]
}
