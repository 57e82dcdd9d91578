/// Something in a valid model that users usually want to change: what ``ModelLinter`` (and
/// `strata model lint`) reports.
///
/// A struct with a string ``Rule`` (not an enum), so new rules do not break callers.
public struct ModelLintWarning: Sendable, Hashable, CustomStringConvertible {
    /// Which check found the warning.
    public struct Rule: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The stable name, as printed by `strata model lint` and in its `--json` output.
        public var rawValue: String
        /// Wraps a raw name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The raw name.
        public var description: String { rawValue }

        /// A required attribute added in a later version without a default value: existing
        /// objects have no value for it, and an inferred migration is refused.
        public static let requiredAttributeWithoutDefault = Rule(rawValue: "requiredAttributeWithoutDefault")
        /// An optional attribute that becomes required without a default value.
        public static let attributeBecomesRequiredWithoutDefault = Rule(
            rawValue: "attributeBecomesRequiredWithoutDefault")
        /// A required to-one relationship added to an existing entity: existing objects have no target.
        public static let requiredToOneAdded = Rule(rawValue: "requiredToOneAdded")
        /// An attribute whose type changes between versions, which no inferred migration maps.
        public static let attributeTypeChanges = Rule(rawValue: "attributeTypeChanges")
        /// A renaming identifier that names nothing in the previous version: the property (or
        /// entity) is added empty and the old one's data is dropped.
        public static let renamingIdentifierMatchesNothing = Rule(rawValue: "renamingIdentifierMatchesNothing")
        /// An index no built-in store can use for a fetch.
        public static let indexUnusable = Rule(rawValue: "indexUnusable")
        /// An index that an earlier index or a unique constraint already provides.
        public static let indexRepeatsAnother = Rule(rawValue: "indexRepeatsAnother")
        /// A unique constraint that another one already implies.
        public static let uniqueConstraintRepeatsAnother = Rule(rawValue: "uniqueConstraintRepeatsAnother")
        /// A relationship with the `noAction` delete rule: a deleted object stays in its
        /// targets' inverse.
        public static let deleteRuleNoAction = Rule(rawValue: "deleteRuleNoAction")
        /// A `cascade` across a many-to-many relationship: deleting one object deletes targets
        /// other objects still hold.
        public static let cascadeAcrossManyToMany = Rule(rawValue: "cascadeAcrossManyToMany")
    }

    /// The check that found it.
    public var rule: Rule
    /// The model version it is in.
    public var version: String
    /// The entity it is about.
    public var entity: String
    /// The attribute, relationship or index (by name), or `nil` for the entity itself or a
    /// unique constraint.
    public var property: String?
    /// What is wrong and what to do, in a sentence.
    public var message: String

    /// Creates a warning.
    public init(_ rule: Rule, version: String, entity: String, property: String? = nil, message: String) {
        self.rule = rule
        self.version = version
        self.entity = entity
        self.property = property
        self.message = message
    }

    /// `v3 Employee.byName: indexRepeatsAnother: ...`.
    public var description: String {
        "\(version) \(entity)\(property.map { "." + $0 } ?? ""): \(rule): \(message)"
    }
}
