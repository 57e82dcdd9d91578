import StrataCore

/// The error StrataData throws: a struct with a ``StrataError/code`` to match
/// (`.readOnly`, `.uniqueConstraint`, `.invalidModel`, ...), a readable message, and where it
/// happened (the entity, the property, the configuration, the value).
///
/// ```swift
/// do { try context.save() }
/// catch let error as StrataError where error.code == .uniqueConstraint { print(error) }
/// ```
public typealias StrataError = StrataCore.StrataError
