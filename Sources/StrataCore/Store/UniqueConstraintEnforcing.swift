/// A store whose save checks the model's unique constraints as it writes, at no cost beyond
/// the write itself (an index on each constraint, which each insert probes anyway).
///
/// Every store rejects a save that would break a unique constraint with
/// ``StrataError/Code/uniqueConstraint`` and writes nothing (the conformance kit checks it). With
/// this capability the engine relies on that for the objects a save inserts: it checks them
/// against each other in memory but does not first ask the store whether it holds their values
/// (a fetch per batch of values). When the store rejects the save, the engine asks then, to
/// report which objects collide with which stored ones, as ``StrataError/Code/validationFailed``.
///
/// Adopt it only when the store's check sees every object the save writes and every stored one
/// (a unique index, or its equivalent), and when a rejected save leaves the store unchanged.
public protocol UniqueConstraintEnforcing: PersistentStore {}
