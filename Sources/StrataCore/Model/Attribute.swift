import Foundation

/// A typed property of an entity.
public struct Attribute: Sendable, Hashable {
    /// The attribute's name: a letter followed by letters, digits or underscores.
    public var name: String
    /// The storage type.
    public var type: AttributeType
    /// Whether the attribute may be ``Value/null`` when saved.
    public var isOptional: Bool
    /// The value a new object starts with; `nil` means ``Value/null``.
    public var defaultValue: Value?
    /// The name this attribute had in an earlier model version, for inferred migrations.
    /// Not part of the version hash.
    public var renamingIdentifier: String?
    /// Rules checked at save. Not part of the version hash.
    public var validation: AttributeValidation
    /// Whether a store's history keeps this attribute's value when the object is deleted (in the
    /// delete's ``HistoryChange/tombstone``), so readers can tell which object went. Not part of
    /// the version hash.
    public var preservesValueOnDeletion: Bool

    /// Creates an attribute whose value history does not keep after deletion.
    public init(
        _ name: String,
        _ type: AttributeType,
        isOptional: Bool = false,
        defaultValue: Value? = nil,
        renamingIdentifier: String? = nil,
        validation: AttributeValidation = AttributeValidation()
    ) {
        self.init(
            name, type, isOptional: isOptional, defaultValue: defaultValue, renamingIdentifier: renamingIdentifier,
            validation: validation, preservesValueOnDeletion: false)
    }

    /// Creates an attribute.
    public init(
        _ name: String,
        _ type: AttributeType,
        isOptional: Bool = false,
        defaultValue: Value? = nil,
        renamingIdentifier: String? = nil,
        validation: AttributeValidation = AttributeValidation(),
        preservesValueOnDeletion: Bool
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.renamingIdentifier = renamingIdentifier
        self.validation = validation
        self.preservesValueOnDeletion = preservesValueOnDeletion
    }
}

/// Validation rules for an attribute, checked when a context saves.
public struct AttributeValidation: Sendable, Hashable {
    /// The smallest allowed value (numbers and dates), inclusive.
    public var minimum: Value?
    /// The largest allowed value (numbers and dates), inclusive.
    public var maximum: Value?
    /// The shortest allowed length: characters for strings, bytes for binaries.
    public var minimumLength: Int?
    /// The longest allowed length: characters for strings, bytes for binaries.
    public var maximumLength: Int?
    /// A regular expression (ICU syntax, as `MATCHES`) the whole string must match.
    public var pattern: String?

    /// Creates a rule set; every rule is optional.
    public init(
        minimum: Value? = nil, maximum: Value? = nil, minimumLength: Int? = nil, maximumLength: Int? = nil,
        pattern: String? = nil
    ) {
        self.minimum = minimum
        self.maximum = maximum
        self.minimumLength = minimumLength
        self.maximumLength = maximumLength
        self.pattern = pattern
    }

    /// Whether no rule is set.
    public var isEmpty: Bool {
        minimum == nil && maximum == nil && minimumLength == nil && maximumLength == nil && pattern == nil
    }
}
