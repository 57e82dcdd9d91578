import StrataCore

extension ObjectContext {
    /// The former name of the throwing ``insert(_:)``.
    @available(*, deprecated, renamed: "insert(_:)")
    public func insertObject(_ entityName: String) throws -> ManagedObject {
        try insert(entityName)
    }
}
