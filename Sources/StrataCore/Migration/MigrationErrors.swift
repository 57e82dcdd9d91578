extension StrataError.Code {
    /// A change between two model versions that inference cannot map and no custom stage covers.
    /// The message names the entity, the property and the change, and suggests a stage.
    public static let migrationNotInferable = StrataError.Code(rawValue: "migrationNotInferable")
}
