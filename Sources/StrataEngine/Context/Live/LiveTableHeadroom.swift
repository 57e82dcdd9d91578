extension Dictionary {
    /// Makes room for `count` more entries when the table lacks it, for twice as many as it will
    /// then hold. A live query's tables grow where its result is loaded (O(n) work anyway) to
    /// twice the result, so that the merges that follow grow the result to twice its size
    /// without rehashing them, each an O(n) pause of the context's queue within one merge. A
    /// result that grows further pays one rehash in a merge, then has room for as many again.
    /// Returns whether the table grew.
    @discardableResult
    mutating func reserveHeadroom(adding count: Int) -> Bool {
        guard self.count + count > capacity else { return false }
        reserveCapacity(2 * (self.count + count))
        return true
    }
}
