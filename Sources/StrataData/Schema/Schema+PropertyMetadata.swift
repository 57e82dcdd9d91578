import Foundation

extension Schema {
    /// One stored property of a model, as `@Model` describes it: SwiftData's
    /// `Schema.PropertyMetadata`.
    public struct PropertyMetadata {
        /// The property's name.
        public var name: String
        /// The key path to it (`\Trip.name`); its value type says what is stored.
        public var keypath: AnyKeyPath
        /// The value the declaration gives it, if any.
        public var defaultValue: Any?
        /// What `@Attribute` or `@Relationship` said, if either was used.
        public var metadata: (any SchemaProperty)?

        /// Describes a property (what `@Model` generates).
        public init(name: String, keypath: AnyKeyPath, defaultValue: Any?, metadata: (any SchemaProperty)?) {
            self.name = name
            self.keypath = keypath
            self.defaultValue = defaultValue
            self.metadata = metadata
        }
    }
}
