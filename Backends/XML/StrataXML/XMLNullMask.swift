/// The rows of a column that hold no value: one bit per row, allocated only from the first null
/// on, so a column without nulls (the common case) costs nothing here.
struct XMLNullMask: Sendable, Equatable {
    /// Bit `row % 64` of word `row / 64` is set when `row` is null; words past the end are zero.
    private var words: [UInt64] = []

    /// Whether no row is null.
    var isEmpty: Bool { words.isEmpty }

    /// The number of null rows. O(rows / 64).
    var count: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// Whether `row` is null. O(1).
    @inline(__always)
    func contains(_ row: Int) -> Bool {
        let w = row &>> 6
        return w < words.count && words[w] & (1 &<< UInt64(row & 63)) != 0
    }

    /// Marks `row` as null. O(1) amortized.
    mutating func insert(_ row: Int) {
        let w = row &>> 6
        if w >= words.count { words.append(contentsOf: repeatElement(0, count: w - words.count + 1)) }
        words[w] |= 1 &<< UInt64(row & 63)
    }

    /// Forgets every row from `count` on.
    mutating func truncate(to count: Int) {
        guard !words.isEmpty else { return }
        let keep = (count + 63) / 64
        if words.count > keep { words.removeLast(words.count - keep) }
        if count % 64 != 0, let last = words.indices.last, last == keep - 1 {
            words[last] &= (1 &<< UInt64(count % 64)) - 1
        }
        while words.last == 0 { words.removeLast() }
    }
}
