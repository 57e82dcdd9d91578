import Foundation
import StrataCore

/// The persistent history an XML store keeps in its file, in the `<_history>` element after the
/// objects (docs/XMLStore.md, "History").
///
/// Each transaction is kept as the element the file holds (``XMLHistoryElement``) and decoded
/// when it is read (``XMLHistoryCoding``): a damaged transaction stays as it is in the file,
/// costs nothing until it is read, and then is ``StrataError/Code/storeCorrupt`` naming its
/// token, while the objects load as usual.
struct XMLHistory: Sendable {
    /// One recorded save: its sequence (checked when the file is loaded) and its element.
    struct Entry: Sendable {
        var sequence: Int64
        var element: XMLHistoryElement
    }

    /// The last pruned sequence (0 when nothing was pruned).
    var prunedThrough: Int64 = 0
    /// The transactions, in ascending sequence order, all above ``prunedThrough``.
    var entries: [Entry] = []

    /// Whether the file needs no `<_history>` element.
    var isEmpty: Bool { entries.isEmpty && prunedThrough == 0 }

    /// The last sequence handed out: the last entry's, or the pruned sequence when every
    /// transaction was pruned (0 before the first), so sequences are never handed out twice.
    var lastSequence: Int64 { entries.last?.sequence ?? prunedThrough }

    /// Appends `transaction` (whose sequence is ``lastSequence`` + 1).
    mutating func append(_ transaction: HistoryTransaction) {
        entries.append(
            Entry(sequence: transaction.token.sequence, element: XMLHistoryCoding.element(for: transaction)))
    }

    /// Deletes up to `limit` of the oldest transactions that `pruning` covers and returns how
    /// many it deleted. A transaction whose time cannot be read ends pruning by date.
    mutating func prune(_ pruning: HistoryPruning, upTo limit: Int) -> Int {
        var count = 0
        while count < limit, count < entries.count {
            let entry = entries[count]
            let covered: Bool
            switch pruning {
            case .through(let token): covered = entry.sequence <= token.sequence
            case .before(let date): covered = XMLHistoryCoding.timestamp(of: entry.element).map { $0 < date } ?? false
            case .keepingLast(let keep): covered = entries.count - count > keep
            }
            guard covered else { break }
            count += 1
        }
        if count > 0 {
            prunedThrough = max(prunedThrough, entries[count - 1].sequence)
            entries.removeFirst(count)
        }
        return count
    }
}

/// An element of the history as the file holds it: its name, its attributes in file order
/// (values unescaped) and its child elements.
struct XMLHistoryElement: Sendable {
    var name: String
    var attributes: [(name: String, value: String)]
    var children: [XMLHistoryElement] = []

    init(_ name: String, _ attributes: [(name: String, value: String)], children: [XMLHistoryElement] = []) {
        self.name = name
        self.attributes = attributes
        self.children = children
    }

    /// The value of the attribute `name`, or `nil`.
    subscript(name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }
}
