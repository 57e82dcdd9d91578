import StrataCore

/// The model every torture process and test opens its stores with.
///
/// - `Group` (`name`, `revision`) with the to-many `items`, inverse of `Item.group`;
/// - `Item` (`slot`, `value`, `label`, optional `payload`) with the to-one `group`;
/// - `Journal` (`lastSave`): one object, updated by every crash-test save with its number;
/// - `Counter` (`slot`, `value`) and `Entry` (`worker`, `serial`) for the contention test.
public enum TortureModel {
    /// How many groups and counters a store holds, and how many item slots the crash test uses.
    public static let groupCount = 4
    /// The number of ``TortureModel`` counters.
    public static let counterCount = 4
    /// The item slots a crash-test save picks from.
    public static let slotCount = 24

    /// The model (same hash in every process).
    public static func model() throws -> Model {
        try Model(
            versionIdentifier: "torture",
            entities: [
                Entity(
                    "Group", attributes: [Attribute("name", .string), Attribute("revision", .integer64)],
                    relationships: [
                        Relationship("items", to: "Item", inverse: "group", toMany: true)
                    ]),
                Entity(
                    "Item",
                    attributes: [
                        Attribute("slot", .integer64), Attribute("value", .integer64), Attribute("label", .string),
                        Attribute("payload", .string, isOptional: true),
                    ],
                    relationships: [
                        Relationship("group", to: "Group", inverse: "items")
                    ], indexes: [Entity.Index(name: "bySlot", properties: ["slot"])]),
                Entity("Journal", attributes: [Attribute("lastSave", .integer64)]),
                Entity("Counter", attributes: [Attribute("slot", .integer64), Attribute("value", .integer64)]),
                Entity("Entry", attributes: [Attribute("worker", .integer64), Attribute("serial", .integer64)]),
            ])
    }
}
