/// The storage `@Model` gives each stored property of a model: none. The value lives in the
/// model's ``BackingData``; this zero-sized stand-in lets the property's `init` accessor be the
/// one that initializes it.
public struct _ModelNoStorage: Sendable {
    /// The stand-in.
    public init() {}
}
