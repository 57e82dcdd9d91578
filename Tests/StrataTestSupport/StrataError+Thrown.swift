import StrataCore

/// Runs `body` and returns the ``StrataError`` it throws, or `nil` when it throws nothing (any
/// other error comes back as an internal inconsistency naming it).
package func strataError(_ body: () throws -> Void) -> StrataError? {
    do {
        try body()
    } catch let error as StrataError {
        return error
    } catch {
        return StrataError(.internalInconsistency, "not a StrataError: \(error)")
    }
    return nil
}
