import StrataCore

/// Each unique constraint of the model has a `UNIQUE` index (see ``SQLiteSchema``), which every
/// insert and update probes: a save that would break one fails with
/// ``StrataError/Code/uniqueConstraint`` and its transaction is rolled back.
extension SQLiteStore: UniqueConstraintEnforcing {}
