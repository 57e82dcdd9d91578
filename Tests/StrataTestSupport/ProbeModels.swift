import StrataCore

/// The models the probe executables open their stores with, shared with the tests that read
/// and write those stores.
package enum ProbeModels {
    /// `strata-sqlite-probe`'s model: entries written by two processes at once and the counter
    /// they both increment.
    package static func sqlite() throws -> Model {
        try Model(
            versionIdentifier: "probe",
            entities: [
                Entity(
                    "Entry",
                    attributes: [
                        Attribute("tag", .string), Attribute("serial", .integer64),
                        Attribute("payload", .string, isOptional: true),
                    ]),
                Entity("Counter", attributes: [Attribute("value", .integer64)]),
            ])
    }

    /// `strata-lmdb-probe`'s model: items with a unique name.
    package static func lmdb() throws -> Model {
        try Model(
            versionIdentifier: "probe",
            entities: [
                Entity(
                    "Item", attributes: [Attribute("name", .string), Attribute("n", .integer64)],
                    uniqueConstraints: [["name"]])
            ])
    }
}
