// The macros of StrataData's models, implemented in the StrataMacros plugin.

/// Makes a final class a model: its stored properties are kept in the slots of an engine object,
/// and it conforms to ``PersistentModel``. SwiftData's `@Model`.
///
/// ```swift
/// @Model final class Trip {
///     @Attribute(.unique) var name: String
///     var start: Date
///     @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip) var items: [BucketListItem] = []
///     @Transient var isFavorite = false
///     init(name: String, start: Date) { self.name = name; self.start = start }
/// }
/// ```
///
/// Every stored `var` without `@Transient` is stored; give each a type annotation.
@attached(
    member,
    names: named(_$backingData), named(persistentBackingData), named(_$detachedBacking), named(_$layout),
    named(schemaMetadata), named(init(backingData:))
)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel)
public macro Model() = #externalMacro(module: "StrataMacros", type: "ModelMacro")

/// The accessors of a stored property of a model; `@Model` puts it on each one.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty(_ position: Int) =
    #externalMacro(module: "StrataMacros", type: "PersistedPropertyMacro")

/// Options of a stored attribute: `@Attribute(.unique)`, `@Attribute(originalName: "title")`.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil
) = #externalMacro(module: "StrataMacros", type: "PropertyMarkerMacro")

/// Options of a relationship: `@Relationship(deleteRule: .cascade, inverse: \Item.trip)`.
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, originalName: String? = nil,
    inverse: AnyKeyPath? = nil, hashModifier: String? = nil
) = #externalMacro(module: "StrataMacros", type: "PropertyMarkerMacro")

/// A stored property the model does not store: `@Transient var isSelected = false`.
@attached(peer)
public macro Transient() = #externalMacro(module: "StrataMacros", type: "PropertyMarkerMacro")

/// Unique constraints of a model, each array one constraint over the listed stored attributes:
/// SwiftData's `#Unique`. Write it once, inside the `@Model` class.
///
/// ```swift
/// @Model final class Trip {
///     #Unique<Trip>([\.name, \.startDate], [\.code])
///     ...
/// }
/// ```
///
/// Inserting a model whose values collide with a stored model's on one constraint updates the
/// stored model instead (an upsert), as `@Attribute(.unique)` does.
@freestanding(declaration, names: named(_$uniqueConstraints))
public macro Unique<T: PersistentModel>(_ constraints: [PartialKeyPath<T>]...) =
    #externalMacro(module: "StrataMacros", type: "UniqueMacro")

/// Indexes of a model, each array one index over the listed stored attributes in order:
/// SwiftData's `#Index`. Write it once, inside the `@Model` class.
///
/// ```swift
/// @Model final class Trip {
///     #Index<Trip>([\.name], [\.startDate, \.endDate])
///     ...
/// }
/// ```
@freestanding(declaration, names: named(_$indexes))
public macro Index<T: PersistentModel>(_ indices: [PartialKeyPath<T>]...) =
    #externalMacro(module: "StrataMacros", type: "IndexMacro")

/// Indexes of a model by kind (`.binary([\.name])`): SwiftData's `#Index`. Strata's stores build
/// one kind of index, ordered by the listed attributes; see ``Schema/Index/Types``.
@freestanding(declaration, names: named(_$indexes))
public macro Index<T: PersistentModel>(_ indices: Schema.Index<T>.Types<T>...) =
    #externalMacro(module: "StrataMacros", type: "IndexMacro")
