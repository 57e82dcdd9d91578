import StrataCore

/// One behaviour every store must have, with the code that checks it.
///
/// Checks report failure by throwing ``ConformanceFailure`` (or the store's own error when the
/// store threw where it should not), so they work with any test framework.
public struct ConformanceCheck: Sendable, CustomStringConvertible, Hashable {
    /// A stable name that says what is checked (`"staleVersionIsRejectedAndNothingIsWritten"`).
    public let name: String
    /// The capabilities the check needs; without them it passes vacuously and says so.
    public let requires: BackendCapabilities
    let body: @Sendable (ConformanceRun) throws -> Void

    init(
        _ name: String, requires: BackendCapabilities = [], _ body: @escaping @Sendable (ConformanceRun) throws -> Void
    ) {
        self.name = name
        self.requires = requires
        self.body = body
    }

    /// Runs the check against a fresh store of `subject`.
    ///
    /// - Returns: `false` when the check did not apply (the backend lacks a required capability).
    /// - Throws: ``ConformanceFailure`` naming the check and the difference, or an unexpected error
    ///   from the store wrapped in a ``ConformanceFailure``.
    @discardableResult
    public func run(on subject: ConformanceSubject) throws -> Bool {
        guard subject.capabilities.isSuperset(of: requires) else { return false }
        let run = ConformanceRun(check: name, subject: subject)
        defer { run.cleanUp() }
        do {
            try body(run)
        } catch let failure as ConformanceFailure {
            throw failure
        } catch is ConformanceNotApplicable {
            return false
        } catch {
            throw ConformanceFailure(check: name, backend: subject.name, message: "unexpected error: \(error)")
        }
        return true
    }

    /// The check's name.
    public var description: String { name }

    /// Checks are equal when their names are.
    public static func == (lhs: ConformanceCheck, rhs: ConformanceCheck) -> Bool { lhs.name == rhs.name }
    /// Hashes the name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// A failed conformance check: which check, which backend, and what differed.
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// The check's name.
    public var check: String
    /// The subject's name.
    public var backend: String
    /// What was expected and what happened.
    public var message: String

    /// `[sqlite] staleVersionIsRejected: expected ..., got ...`.
    public var description: String { "[\(backend)] \(check): \(message)" }
}

/// The whole kit.
public enum ConformanceKit {
    /// Every check, in a stable order.
    public static let checks: [ConformanceCheck] =
        lifecycleChecks + crudChecks + attributeChecks + queryChecks + relationshipChecks + lockingChecks + errorChecks
        + concurrencyChecks
        + keyPreservingChecks + snapshotServingChecks + wrapperChecks + aggregateChecks + historyChecks
        + uniqueBoundsChecks

    /// Runs every check and returns the failures (empty when the backend conforms).
    public static func failures(of subject: ConformanceSubject) -> [ConformanceFailure] {
        checks.compactMap { check in
            do {
                try check.run(on: subject)
                return nil
            } catch let failure as ConformanceFailure { return failure } catch {
                return ConformanceFailure(check: check.name, backend: subject.name, message: "\(error)")
            }
        }
    }
}
