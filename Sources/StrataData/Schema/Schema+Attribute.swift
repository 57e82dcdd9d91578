import Foundation

extension Schema {
    /// What `@Attribute` says about a stored property: SwiftData's `Schema.Attribute`.
    public final class Attribute: SchemaProperty {
        /// An attribute option.
        public struct Option: Sendable, Hashable {
            let name: String

            /// No two models of the entity may hold the same value; inserting one that does
            /// updates the stored model instead (an upsert), as in SwiftData.
            public static let unique = Option(name: "unique")
            /// Accepted for source compatibility; values are stored in the store itself.
            public static let externalStorage = Option(name: "externalStorage")
            /// Accepted for source compatibility; Strata has no CloudKit.
            public static let allowsCloudEncryption = Option(name: "allowsCloudEncryption")
            /// The store's history keeps the property's value when the model is deleted: the
            /// delete's ``HistoryDelete/tombstone`` holds it, so a reader of the history can
            /// tell which model went. It does not change the schema's version hash.
            public static let preserveValueOnDeletion = Option(name: "preserveValueOnDeletion")
            /// Accepted for source compatibility; Strata has no Spotlight index.
            public static let spotlight = Option(name: "spotlight")
        }

        /// The options given.
        public let options: [Option]
        /// The property's name in the previous version of the model (a rename, not a new
        /// attribute, for lightweight migration).
        public let originalName: String?
        /// Accepted for source compatibility: Strata's version hash covers every declared
        /// property already.
        public let hashModifier: String?

        /// Declares an attribute's options (what `@Attribute(...)` generates).
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.options = options
            self.originalName = originalName
            self.hashModifier = hashModifier
        }

        /// Whether ``Option/unique`` is among the options.
        public var isUnique: Bool { options.contains(.unique) }
        /// Whether ``Option/preserveValueOnDeletion`` is among the options.
        public var preservesValueOnDeletion: Bool { options.contains(.preserveValueOnDeletion) }
    }

    /// What `@Relationship` says about a stored property: SwiftData's `Schema.Relationship`.
    public final class Relationship: SchemaProperty {
        /// What deleting a model does to the models it relates to.
        public enum DeleteRule: String, Sendable, Hashable, CaseIterable, Codable {
            /// Remove the deleted model from each related model's inverse (the default).
            case nullify
            /// Delete the related models too.
            case cascade
            /// Refuse the delete (at save) while there are related models.
            case deny
            /// Do nothing; the inverse may point at a deleted model until you fix it.
            case noAction
        }

        /// A relationship option.
        public struct Option: Sendable, Hashable {
            let name: String
            /// Accepted for source compatibility; related models are never duplicated.
            public static let unique = Option(name: "unique")
        }

        /// The options given.
        public let options: [Option]
        /// The delete rule.
        public let deleteRule: DeleteRule
        /// The fewest related models a to-many allows at save (0: no minimum).
        public let minimumModelCount: Int?
        /// The most related models a to-many allows at save (0: no maximum).
        public let maximumModelCount: Int?
        /// The property's name in the previous version of the model.
        public let originalName: String?
        /// The inverse on the related model (`\BucketListItem.trip`).
        public let inverse: AnyKeyPath?
        /// Accepted for source compatibility.
        public let hashModifier: String?

        /// Declares a relationship's options (what `@Relationship(...)` generates).
        public init(
            _ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
            maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
            hashModifier: String? = nil
        ) {
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.originalName = originalName
            self.inverse = inverse
            self.hashModifier = hashModifier
        }
    }
}

/// What `@Attribute` or `@Relationship` declares about a property.
public protocol SchemaProperty: AnyObject {}
