extension Schema {
    /// What `#Index` declares about a model: SwiftData's `Schema.Index`.
    ///
    /// ```swift
    /// @Model final class Trip {
    ///     #Index<Trip>([\.name], [\.startDate, \.endDate])
    ///     var name: String
    ///     var startDate: Date
    ///     var endDate: Date
    /// }
    /// ```
    ///
    /// Each array is one index over the listed attributes, in order. A store that builds
    /// indexes (SQLite, LMDB) answers fetches that filter or sort on them without reading every
    /// object; the memory and XML stores accept the declaration.
    public final class Index<T: PersistentModel>: SchemaProperty {
        /// The kind of an index: SwiftData's `Schema.Index.Types`.
        ///
        /// Strata's stores have one kind of index, ordered by the listed attributes:
        /// ``binary(_:)`` is that index, and ``rtree(_:)`` is accepted for source compatibility
        /// and builds the same ordered index.
        public enum Types<P: PersistentModel> {
            /// An ordered index over the attributes, in order.
            case binary([PartialKeyPath<P>])
            /// Accepted for source compatibility: an ordered index over the attributes, in order
            /// (Strata has no R-tree).
            case rtree([PartialKeyPath<P>])

            /// The indexed key paths.
            var keyPaths: [PartialKeyPath<P>] {
                switch self {
                case .binary(let keyPaths), .rtree(let keyPaths): return keyPaths
                }
            }
        }

        /// The indexes.
        public let indices: [Types<T>]

        /// Declares indexes of any kind (what `#Index(.binary(...))` generates).
        public init(_ indices: Types<T>...) {
            self.indices = indices
        }

        /// Declares ordered indexes (what `#Index([...])` generates).
        public init(_ binaryIndices: [PartialKeyPath<T>]...) {
            self.indices = binaryIndices.map(Types.binary)
        }

        /// The indexes as untyped key paths (what the model's entity is built from).
        public var keyPaths: [[AnyKeyPath]] { indices.map { $0.keyPaths.map { $0 as AnyKeyPath } } }
    }
}
