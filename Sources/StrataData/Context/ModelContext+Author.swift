import StrataEngine

extension ModelContext {
    /// Who saves: recorded with each transaction this context saves in the stores' history, so
    /// readers can tell writers apart (`#Predicate { $0.author == "widget" }`). SwiftData's
    /// `author`; `nil` by default.
    ///
    /// ```swift
    /// let context = ModelContext(container)
    /// context.author = "importer"
    /// ```
    public var author: String? {
        get { objectContext.transactionAuthor }
        set { objectContext.transactionAuthor = newValue }
    }
}
