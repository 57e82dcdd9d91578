import Foundation
import StrataCore

/// What a ``HistoryDescriptor``'s predicate asks of the transactions, in the terms a store's
/// history can be read and pruned by.
struct HistoryFilter: Sendable, Hashable {
    /// Only transactions after this token (exclusive).
    var after: StrataCore.HistoryToken?
    /// Only transactions up to and including this token.
    var through: StrataCore.HistoryToken?
    /// Only transactions saved by one of these authors; all when `nil`.
    var authors: Set<String>?
    /// Only transactions committed before this date.
    var before: Date?
    /// Whether no transaction can match (`false`, or bounds that exclude each other).
    var matchesNothing = false

    /// Every transaction.
    static let everything = HistoryFilter()

    /// The identifier of the store the tokens name, if any.
    var storeIdentifier: String? { after?.storeIdentifier ?? through?.storeIdentifier }

    /// Whether the transactions it keeps are the oldest ones of the history (no lower bound and
    /// no author), which is what pruning can delete.
    var isPrefix: Bool { after == nil && authors == nil }

    /// Transactions both filters keep.
    ///
    /// - Throws: `.invalidPredicate` when their tokens name different stores.
    func intersected(with other: HistoryFilter, in expression: some PredicateExpression) throws -> HistoryFilter {
        if let a = storeIdentifier, let b = other.storeIdentifier, a != b {
            throw HistoryPredicateTranslator.untranslatable(
                expression, "the tokens name two stores ('\(a)' and '\(b)'); a history fetch reads one store's")
        }
        var result = HistoryFilter()
        result.after = [after, other.after].compactMap { $0 }.max()
        result.through = [through, other.through].compactMap { $0 }.min()
        switch (authors, other.authors) {
        case (let a?, let b?): result.authors = a.intersection(b)
        case (let a, let b): result.authors = a ?? b
        }
        result.before = [before, other.before].compactMap { $0 }.min()
        result.matchesNothing =
            matchesNothing || other.matchesNothing || result.authors?.isEmpty == true
            || (result.after.flatMap { after in result.through.map { $0 <= after } } ?? false)
        return result
    }

    /// Transactions either filter keeps, when both filter by author alone.
    ///
    /// - Throws: `.invalidPredicate` for any other disjunction.
    func united(with other: HistoryFilter, in expression: some PredicateExpression) throws -> HistoryFilter {
        if matchesNothing { return other }
        if other.matchesNothing { return self }
        var authorsOnly = self
        authorsOnly.authors = nil
        var otherAuthorsOnly = other
        otherAuthorsOnly.authors = nil
        guard let a = authors, let b = other.authors, authorsOnly == .everything, otherAuthorsOnly == .everything
        else {
            throw HistoryPredicateTranslator.untranslatable(
                expression, "a history predicate can only join conditions on the author with ||")
        }
        var result = HistoryFilter()
        result.authors = a.union(b)
        return result
    }

    /// Whether `transaction` passes the bounds a store's request does not apply (``through``
    /// and ``before``).
    func admitsAfterReading(_ transaction: StrataCore.HistoryTransaction) -> Bool {
        if let through, transaction.token.sequence > through.sequence { return false }
        if let before, transaction.timestamp >= before { return false }
        return true
    }
}
