extension Array where Element == UInt8 {
    /// Damages the bytes as a fuzzer does: a random number of edits within `edits`, each one
    /// flipping a byte, cutting off the rest, removing up to `longestCut` bytes, or inserting
    /// one of `tokens`; the same generator state gives the same damage.
    package mutating func mutate(
        edits: ClosedRange<Int>, longestCut: Int, tokens: [String], using random: inout some RandomNumberGenerator
    ) {
        for _ in 0..<Int.random(in: edits, using: &random) {
            let position = Int.random(in: 0...count, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0 where position < count: self[position] ^= UInt8.random(in: 1...255, using: &random)
            case 1: self = Array(self[0..<position])
            case 2 where position < count:
                removeSubrange(position..<Swift.min(count, position + Int.random(in: 1...longestCut, using: &random)))
            default: insert(contentsOf: Array(tokens.randomElement(using: &random)!.utf8), at: position)
            }
        }
    }
}
