#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A block of memory that ``XMLBuffer``s keep their elements in, freed when the last buffer using
/// it goes away. Several buffers may use disjoint parts of one region (the loader lays out all the
/// columns of an entity in one); a buffer only writes to its own part.
///
/// A large region is mapped rather than allocated, aligned to 2 MiB, and on Linux advised
/// (`MADV_HUGEPAGE`) to be backed by transparent huge pages where the system allows it (the
/// default `madvise` mode): filling 20 MiB of fresh columns then costs about ten page faults
/// instead of about five thousand (each of which costs microseconds, more than the work of the
/// parse that fills the page). Untouched parts of a region stay address space only.
final class XMLMemoryRegion: @unchecked Sendable {
    /// The first byte (16-byte aligned at least).
    let base: UnsafeMutableRawPointer
    /// The usable size.
    let byteCount: Int
    /// The mapping (start and length) when the region was mapped, `nil` when allocated.
    private let mapping: (start: UnsafeMutableRawPointer, length: Int)?

    /// Regions of this size and above are mapped and advised to use huge pages.
    static let mappingThreshold = 4 << 20
    /// The size of a huge page on the platforms that have them.
    static let hugePageSize = 2 << 20

    /// A region of at least `byteCount` bytes (uninitialized; a mapped one reads as zeros).
    init(byteCount: Int) {
        self.byteCount = max(byteCount, 16)
        #if os(Linux)
            if byteCount >= Self.mappingThreshold {
                let huge = Self.hugePageSize
                let rounded = (byteCount + huge - 1) / huge * huge
                let length = rounded + huge
                if let start = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                    start != MAP_FAILED
                {
                    let aligned = UnsafeMutableRawPointer(
                        bitPattern: (Int(bitPattern: start) + huge - 1) / huge * huge)!
                    _ = madvise(aligned, rounded, MADV_HUGEPAGE) // ignored where unsupported
                    base = aligned
                    mapping = (start, length)
                    return
                }
            }
        #endif
        base = .allocate(byteCount: self.byteCount, alignment: 16)
        mapping = nil
    }

    deinit {
        if let mapping {
            munmap(mapping.start, mapping.length)
        } else {
            base.deallocate()
        }
    }
}

/// A growable array of plain values (integers, doubles, bytes) kept in an ``XMLMemoryRegion``: the
/// storage of ``XMLColumn``.
///
/// A value type with copy-on-write, like `Array`: a copy shares the elements until one of the
/// two is changed, which then copies them to a region of its own. Unlike `Array`, its memory can
/// be a part of a region laid out by the loader, which fills it through
/// ``appendAssumingUnique(_:)`` without any uniqueness check. Reads are O(1); appends O(1)
/// amortized.
struct XMLBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    /// The region holding the elements (`nil` while there is no room at all).
    private var region: XMLMemoryRegion?
    /// The first element.
    private(set) var base: UnsafeMutablePointer<Element>?
    /// The number of elements.
    private(set) var count = 0
    /// The number of elements there is room for at `base`.
    private(set) var capacity = 0

    /// An empty buffer.
    init() {}

    /// An empty buffer with room for `capacity` elements at `base`, in `region`, which no other
    /// buffer may use there.
    init(region: XMLMemoryRegion, base: UnsafeMutablePointer<Element>, capacity: Int) {
        self.region = region
        self.base = base
        self.capacity = capacity
    }

    /// Whether there are no elements.
    var isEmpty: Bool { count == 0 }

    /// The element at `index` (in `0..<count`).
    @inline(__always)
    subscript(index: Int) -> Element {
        precondition(index >= 0 && index < count, "XMLBuffer index out of range")
        return base.unsafelyUnwrapped[index]
    }

    /// The last element, or `nil`.
    var last: Element? { count == 0 ? nil : base.unsafelyUnwrapped[count - 1] }

    /// Calls `body` with the elements.
    @inline(__always)
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The elements `range`, copied into an array.
    func array(_ range: Range<Int>) -> [Element] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        return Array(UnsafeBufferPointer(start: base.map { $0 + range.lowerBound }, count: range.count))
    }

    // MARK: Changing

    /// Makes sure the elements are this buffer's alone, with room for `minimumCapacity` in all.
    @inline(__always)
    private mutating func prepareToWrite(minimumCapacity: Int) {
        if minimumCapacity > capacity || !isKnownUniquelyReferenced(&region) {
            reallocate(minimumCapacity: minimumCapacity)
        }
    }

    /// Moves the elements to a new region of their own with room for at least `minimumCapacity`
    /// (and at least twice the current count, so appends stay O(1) amortized).
    private mutating func reallocate(minimumCapacity: Int) {
        let newCapacity = max(minimumCapacity, count * 2, 16)
        let newRegion = XMLMemoryRegion(byteCount: newCapacity * MemoryLayout<Element>.stride)
        let newBase = newRegion.base.bindMemory(to: Element.self, capacity: newCapacity)
        if let base, count > 0 { newBase.update(from: base, count: count) }
        region = newRegion
        base = newBase
        capacity = newCapacity
    }

    /// Reserves room for `minimumCapacity` elements in all.
    mutating func reserveCapacity(_ minimumCapacity: Int) {
        prepareToWrite(minimumCapacity: minimumCapacity)
    }

    /// Appends `element`. O(1) amortized.
    @inline(__always)
    mutating func append(_ element: Element) {
        prepareToWrite(minimumCapacity: count + 1)
        base.unsafelyUnwrapped[count] = element
        count += 1
    }

    /// Appends `elements`. O(their count) amortized.
    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let source = elements.baseAddress, !elements.isEmpty else { return }
        prepareToWrite(minimumCapacity: count + elements.count)
        (base.unsafelyUnwrapped + count).update(from: source, count: elements.count)
        count += elements.count
    }

    /// Appends the elements `range` of `other`.
    mutating func append(contentsOf other: XMLBuffer, _ range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= other.count)
        guard !range.isEmpty else { return }
        // `other` may be this buffer: keep its region alive while copying from it.
        withExtendedLifetime(other.region) {
            append(
                contentsOf: UnsafeBufferPointer(
                    start: other.base.unsafelyUnwrapped + range.lowerBound, count: range.count))
        }
    }

    /// Appends `element` without checking that the elements are this buffer's alone: for the
    /// loader, which owns the buffers it fills. O(1) amortized.
    @inline(__always)
    mutating func appendAssumingUnique(_ element: Element) {
        if count == capacity { reallocate(minimumCapacity: count + 1) }
        base.unsafelyUnwrapped[count] = element
        count += 1
    }

    /// Appends `elements` without checking that the elements are this buffer's alone (see
    /// ``appendAssumingUnique(_:)``).
    @inline(__always)
    mutating func appendAssumingUnique(contentsOf source: UnsafePointer<Element>, count n: Int) {
        guard n > 0 else { return }
        if count + n > capacity { reallocate(minimumCapacity: count + n) }
        (base.unsafelyUnwrapped + count).update(from: source, count: n)
        count += n
    }

    /// Makes room for `n` more elements and calls `body` with the first of them; if `body`
    /// returns `true` (it initialized all `n`), they are appended. Without checking that the
    /// elements are this buffer's alone (see ``appendAssumingUnique(_:)``). Returns what `body`
    /// returned.
    @inline(__always)
    mutating func appendAssumingUnique(count n: Int, _ body: (UnsafeMutablePointer<Element>) -> Bool) -> Bool {
        if count + n > capacity { reallocate(minimumCapacity: count + n) }
        guard n > 0 else { return true }
        guard body(base.unsafelyUnwrapped + count) else { return false }
        count += n
        return true
    }

    /// Removes the elements from `newCount` on.
    mutating func truncate(to newCount: Int) {
        guard newCount < count else { return }
        precondition(newCount >= 0)
        if !isKnownUniquelyReferenced(&region) { reallocate(minimumCapacity: capacity) }
        count = newCount
    }

    /// Removes the elements from `newCount` on without checking that they are this buffer's
    /// alone (see ``appendAssumingUnique(_:)``).
    mutating func truncateAssumingUnique(to newCount: Int) {
        guard newCount < count else { return }
        precondition(newCount >= 0)
        count = newCount
    }

    /// Moves the elements into room for `capacity` elements at `newBase` in `newRegion` (which no
    /// other buffer uses there), for the loader's layout. `capacity` must be at least ``count``.
    mutating func move(
        to newRegion: XMLMemoryRegion, base newBase: UnsafeMutablePointer<Element>, capacity newCapacity: Int
    ) {
        precondition(newCapacity >= count)
        if let base, count > 0 { newBase.update(from: base, count: count) }
        region = newRegion
        base = newBase
        capacity = newCapacity
    }
}
