/// One difference between two model versions, as a plan lists it.
///
/// A struct with a string ``Kind`` (not an enum), so new kinds do not break callers.
public struct MigrationChange: Sendable, Hashable, CustomStringConvertible {
    /// What kind of change this is.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The stable name, as printed in plans and `--json` output.
        public var rawValue: String
        /// Wraps a raw name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The raw name.
        public var description: String { rawValue }

        /// A new entity (its objects start empty).
        public static let addEntity = Kind(rawValue: "addEntity")
        /// An entity and all its objects are dropped.
        public static let removeEntity = Kind(rawValue: "removeEntity")
        /// An entity renamed through its renaming identifier.
        public static let renameEntity = Kind(rawValue: "renameEntity")
        /// A new attribute, filled with its default (or null when optional).
        public static let addAttribute = Kind(rawValue: "addAttribute")
        /// An attribute and its values are dropped.
        public static let removeAttribute = Kind(rawValue: "removeAttribute")
        /// An attribute renamed through its renaming identifier.
        public static let renameAttribute = Kind(rawValue: "renameAttribute")
        /// A required attribute becomes optional.
        public static let attributeBecomesOptional = Kind(rawValue: "attributeBecomesOptional")
        /// An optional attribute becomes required; nulls take the new default.
        public static let attributeBecomesRequired = Kind(rawValue: "attributeBecomesRequired")
        /// An attribute's type changes (never inferred).
        public static let changeAttributeType = Kind(rawValue: "changeAttributeType")
        /// A new relationship (empty for existing objects).
        public static let addRelationship = Kind(rawValue: "addRelationship")
        /// A relationship and its links are dropped.
        public static let removeRelationship = Kind(rawValue: "removeRelationship")
        /// A relationship renamed through its renaming identifier.
        public static let renameRelationship = Kind(rawValue: "renameRelationship")
        /// A to-one becomes to-many (each object keeps its target, as a list of one).
        public static let toOneBecomesToMany = Kind(rawValue: "toOneBecomesToMany")
        /// A to-many becomes to-one (needs a stage: objects with several targets).
        public static let toManyBecomesToOne = Kind(rawValue: "toManyBecomesToOne")
        /// An unordered to-many becomes ordered (the order starts as primary-key order).
        public static let becomesOrdered = Kind(rawValue: "becomesOrdered")
        /// An ordered to-many becomes unordered (needs a stage: the order is lost).
        public static let becomesUnordered = Kind(rawValue: "becomesUnordered")
        /// A relationship points at another entity (never inferred).
        public static let changeDestination = Kind(rawValue: "changeDestination")
        /// An optional to-one becomes required (needs a stage: objects without a target).
        public static let relationshipBecomesRequired = Kind(rawValue: "relationshipBecomesRequired")
        /// A required to-one becomes optional.
        public static let relationshipBecomesOptional = Kind(rawValue: "relationshipBecomesOptional")
        /// Indexes or unique constraints change (rebuilt; a new unique constraint is checked).
        public static let changeIndexes = Kind(rawValue: "changeIndexes")
    }

    /// The kind of change.
    public var kind: Kind
    /// The entity (destination name; the source name for a removed entity).
    public var entity: String
    /// The property (destination name; the source name for a removed property), or `nil` for
    /// entity-level changes.
    public var property: String?
    /// A sentence for people (`"Employee.birthday is renamed to dateOfBirth"`).
    public var detail: String

    /// Creates a change.
    public init(_ kind: Kind, entity: String, property: String? = nil, detail: String) {
        self.kind = kind
        self.entity = entity
        self.property = property
        self.detail = detail
    }

    /// `kind Entity.property: detail`.
    public var description: String { "\(kind) \(entity)\(property.map { "." + $0 } ?? ""): \(detail)" }
}
