import Foundation

/// How a store whose history is a table ordered by sequence prunes it in bounded steps: the
/// decisions of which sequences go, apart from the statements that read and delete them.
extension HistoryPruning {
    /// The last sequence the next step of this pruning deletes, at most `limit` transactions from
    /// the oldest one kept; `nil` when it deletes nothing.
    ///
    /// - Parameters:
    ///   - kept: the oldest and the newest sequence kept, `nil` when none is.
    ///   - lastSequenceBefore: the last sequence of the run of oldest transactions committed
    ///     before a date, looking at no more than a number of them; `nil` when the oldest is not
    ///     that old.
    package func batchEnd(
        kept: ClosedRange<Int64>?, limit: Int, lastSequenceBefore: (Date, Int) throws -> Int64?
    ) rethrows -> Int64? {
        guard let kept else { return nil }
        let last = kept.lowerBound + Int64(limit) - 1
        switch self {
        case .through(let token):
            let end = min(token.sequence, kept.upperBound, last)
            return end >= kept.lowerBound ? end : nil
        case .keepingLast(let count):
            let end = min(kept.upperBound - Int64(count), last)
            return end >= kept.lowerBound ? end : nil
        case .before(let date):
            return try lastSequenceBefore(date, limit)
        }
    }
}

extension HistoryOptions {
    /// The last sequence automatic pruning deletes as a save commits at `now`: at most
    /// ``pruneBatch`` of the oldest transactions that ``keepDays`` and ``keepTransactions`` no
    /// longer keep; `nil` when nothing is due. The parameters are those of
    /// ``HistoryPruning/batchEnd(kept:limit:lastSequenceBefore:)``.
    package func automaticPruningEnd(
        now: Date, kept: ClosedRange<Int64>?, lastSequenceBefore: (Date, Int) throws -> Int64?
    ) rethrows -> Int64? {
        var end: Int64?
        if let keepTransactions,
            let found = try HistoryPruning.keepingLast(keepTransactions).batchEnd(
                kept: kept, limit: Self.pruneBatch, lastSequenceBefore: lastSequenceBefore)
        {
            end = found
        }
        if let keepDays,
            let found = try HistoryPruning.before(now.addingTimeInterval(-Double(keepDays) * 86_400)).batchEnd(
                kept: kept, limit: Self.pruneBatch, lastSequenceBefore: lastSequenceBefore)
        {
            end = max(end ?? found, found)
        }
        return end
    }
}
