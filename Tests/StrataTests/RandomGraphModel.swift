import StrataCore

/// The model of the randomized fetch tests: departments with a budget, employees with an
/// indexed integer key, a name, a rank and a score, linked both ways.
enum RandomGraphModel {
    /// The model, under `versionIdentifier`.
    static func make(_ versionIdentifier: String) -> Model {
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
}
