extension Schema {
    /// What `#Unique` declares about a model: SwiftData's `Schema.Unique`.
    ///
    /// ```swift
    /// @Model final class Trip {
    ///     #Unique<Trip>([\.name, \.startDate], [\.code])
    ///     var name: String
    ///     var startDate: Date
    ///     var code: String
    /// }
    /// ```
    ///
    /// Each array is one constraint: no two models may hold the same values for all of its
    /// properties (a model with `nil` in one of them is never a duplicate). Inserting a model that
    /// collides with a stored one updates the stored model instead, as `@Attribute(.unique)` does.
    public final class Unique<T: PersistentModel>: SchemaProperty {
        /// The constraints, each a list of stored attributes of `T`.
        public let constraints: [[PartialKeyPath<T>]]

        /// Declares unique constraints (what `#Unique` generates).
        public init(_ constraints: [PartialKeyPath<T>]...) {
            self.constraints = constraints
        }

        /// The constraints as untyped key paths (what the model's entity is built from).
        public var keyPaths: [[AnyKeyPath]] { constraints.map { $0.map { $0 as AnyKeyPath } } }
    }
}
