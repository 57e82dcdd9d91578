import StrataCore

/// The model of the randomized fetch tests: departments with a budget, employees with an
/// indexed integer key, a name, a rank and a score, linked both ways. Shared with the probe
/// that changes such a store from another process (`strata-change-probe`).
package enum RandomGraphModel {
    /// The model, under `versionIdentifier`.
    package static func make(_ versionIdentifier: String) -> Model {
        try! Model(
            versionIdentifier: versionIdentifier,
            entities: [
                Entity(
                    "Department", attributes: [Attribute("name", .string), Attribute("budget", .integer64)],
                    relationships: [Relationship("employees", to: "Employee", inverse: "department", toMany: true)]),
                Entity(
                    "Employee",
                    attributes: [
                        Attribute("key", .integer64), Attribute("name", .string), Attribute("rank", .integer64),
                        Attribute("score", .double),
                    ],
                    relationships: [Relationship("department", to: "Department", inverse: "employees")],
                    indexes: [Entity.Index(name: "byKey", properties: ["key"])]),
            ])
    }

    /// The predicates the randomized tests draw from, around a random `key` and `rank`: by
    /// the indexed key (alone, in a disjunction and in a list), by plain attributes, and
    /// through the to-one relationship.
    package static func predicates(key: Int64, rank: Int64) throws -> [ObjectPredicate?] {
        [
            nil,
            try ObjectPredicate(format: "key == %@", key),
            try ObjectPredicate(format: "rank < %@", rank),
            try ObjectPredicate(format: "rank >= %@ AND score < %@", rank, 2.5),
            try ObjectPredicate(format: "name BEGINSWITH %@", "a"),
            try ObjectPredicate(format: "name == %@ OR key == %@", "bob", key),
            try ObjectPredicate(format: "NOT (rank == %@)", rank),
            try ObjectPredicate(format: "department.name == %@", "d\(rank % 4)"),
            try ObjectPredicate(format: "department.budget > %@", 60),
            try ObjectPredicate(format: "department == nil"),
            try ObjectPredicate(format: "key IN %@", [key, key + 1, key + 2]),
        ]
    }

    /// The sorts the randomized tests draw from: none, one key, two keys, through the to-one
    /// relationship, and mixed directions.
    package static let sortChoices: [[Sort]] = [
        [], [Sort("rank")], [Sort("name", ascending: false), Sort("key")], [Sort("department.name")],
        [Sort("score"), Sort("rank", ascending: false)], [Sort("rank"), Sort("name")],
    ]
}
