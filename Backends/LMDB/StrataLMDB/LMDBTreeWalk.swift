/// Walks every B-tree reachable from one meta page of a mapped data file and checks each page
/// liblmdb could read, before liblmdb reads it: the free-page database, the main database, each
/// named database found in the main database's `F_SUBDATA` nodes, and each sorted-duplicates
/// sub-page and sub-database, with their overflow runs. Freed pages are in no tree and are never
/// read (they may hold anything).
///
/// For every page: its number is its position; its flags are the one combination its place in
/// the tree allows; `16 <= mp_lower <= mp_upper <= page size` with `mp_lower` even; it has keys
/// (two or more in a branch page, as liblmdb asserts); every node starts inside the node area and
/// its header, key and data end inside the page; node flags fit the database; child and overflow
/// page numbers lie between the meta pages and `mm_last_pg`; an overflow run and its data fit the
/// file; the tree is as deep as its record says (at most 32 levels) with every leaf at the bottom;
/// no page is reached twice (no cycle, no shared page); each record's entry and page counts match
/// its tree; each free-list entry's page numbers exist.
///
/// Cost: one visit of every page in use (overflow runs: their first page only, except the free
/// list's), no allocation per page; memory: one bit per page of the file, plus a stack of at most
/// 3 × 32 frames (main tree, named tree, duplicates tree).
struct LMDBTreeWalk {
    private let base: UnsafeRawPointer
    private let pageSize: Int
    private let lastPage: UInt64
    private var visited: [UInt64]
    /// The pages read so far (tree pages and first pages of overflow runs).
    private(set) var pagesRead = 0

    /// A walk over the `lastPage + 1` pages of `pageSize` bytes mapped at `base`.
    init(base: UnsafeRawPointer, pageSize: Int, lastPage: UInt64) {
        self.base = base
        self.pageSize = pageSize
        self.lastPage = lastPage
        visited = [UInt64](repeating: 0, count: Int(lastPage / 64) + 1)
    }

    /// Checks both trees of `meta`, found in meta page `slot`.
    mutating func check(_ meta: LMDBMetaPage, slot: UInt64) throws {
        let role = "meta page of transaction \(meta.transaction)"
        try checkRecord(
            meta.free, tree: Tree(kind: .free, name: "the free-page database"),
            holder: Holder(page: slot, role: role, field: "mm_dbs[0]"))
        try checkRecord(
            meta.main, tree: Tree(kind: .main, name: "the main database"),
            holder: Holder(page: slot, role: role, field: "mm_dbs[1]"))
    }

    // MARK: Trees

    /// What a tree holds, which decides what its leaf nodes may be.
    private struct Tree {
        enum Kind { case free, main, named, duplicates }
        var kind: Kind
        /// For messages: `database e:Employee`.
        var name: String
        /// The record's `md_flags`.
        var flags: UInt16 = 0
        /// The record's `md_depth`.
        var depth = 0
        /// The size of each value of a `MDB_DUPFIXED` duplicates tree (`LEAF2` pages), else 0.
        var fixedSize = 0
    }

    /// Where a database record lives, for messages.
    private struct Holder {
        var page: UInt64
        var role: String
        var field: String
    }

    /// What a walk of one tree found, to compare with its record.
    private struct Tally {
        var branchPages: UInt64 = 0
        var leafPages: UInt64 = 0
        var overflowPages: UInt64 = 0
        var entries: UInt64 = 0
    }

    private func damage(_ holder: Holder, _ field: String, _ value: some CustomStringConvertible, _ reason: String)
        -> LMDBPageDamage
    {
        LMDBPageDamage(
            page: holder.page, role: holder.role, field: holder.field + "." + field, value: value.description,
            reason: reason)
    }

    private mutating func checkRecord(_ record: LMDBDatabaseRecord, tree: Tree, holder: Holder, parentFlags: UInt16 = 0)
        throws
    {
        let flags = record.flags
        let hex = "0x" + String(flags, radix: 16)
        switch tree.kind {
        case .free:
            guard flags & ~LMDBPageFormat.environmentFlags == 0 else {
                throw damage(
                    holder, "md_flags", hex,
                    "\(tree.name) has flags \(hex); it may only carry MDB_FIXEDMAP, MDB_INTEGERKEY and MDB_NOSUBDIR")
            }
        case .main, .named:
            let dupOnly = LMDBPageFormat.dupFixed | LMDBPageFormat.integerDup | LMDBPageFormat.reverseDup
            guard flags & ~LMDBPageFormat.databaseFlags == 0,
                flags & LMDBPageFormat.dupSort != 0 || flags & dupOnly == 0
            else {
                throw damage(holder, "md_flags", hex, "\(tree.name) has flags \(hex), which no database can have")
            }
        case .duplicates:
            let fixed = parentFlags & LMDBPageFormat.dupFixed != 0
            guard flags & ~LMDBPageFormat.subDatabaseFlags == 0, (flags & LMDBPageFormat.dupFixed != 0) == fixed else {
                throw damage(
                    holder, "md_flags", hex,
                    "\(tree.name) has flags \(hex), which do not fit its database's flags 0x\(String(parentFlags, radix: 16))"
                )
            }
        }
        if record.root == LMDBPageFormat.invalidPage {
            guard record.depth == 0, record.entries == 0, record.branchPages == 0, record.leafPages == 0,
                record.overflowPages == 0
            else {
                throw damage(
                    holder, "md_root", "P_INVALID",
                    "\(tree.name) is empty (no root page) but its record counts \(record.entries) entries, depth \(record.depth), \(record.branchPages + record.leafPages + record.overflowPages) pages"
                )
            }
            return
        }
        guard (1...LMDBPageFormat.maximumDepth).contains(Int(record.depth)) else {
            throw damage(
                holder, "md_depth", record.depth,
                "\(tree.name) has depth \(record.depth); a tree has 1 to \(LMDBPageFormat.maximumDepth) levels")
        }
        guard record.root >= LMDBPageFormat.metaPageCount, record.root <= lastPage else {
            throw damage(
                holder, "md_root", record.root,
                "the root page of \(tree.name) is page \(record.root), outside pages 2...\(lastPage) of the snapshot")
        }
        var tree = tree
        tree.flags = flags
        tree.depth = Int(record.depth)
        if tree.kind == .duplicates && flags & LMDBPageFormat.dupFixed != 0 {
            guard record.pad > 0, Int(record.pad) <= pageSize - LMDBPageFormat.headerSize else {
                throw damage(
                    holder, "md_pad", record.pad,
                    "\(tree.name) stores values of \(record.pad) bytes, which cannot fit a page")
            }
            tree.fixedSize = Int(record.pad)
        }
        var tally = Tally()
        try walkPage(record.root, level: 1, tree: tree, tally: &tally)
        let counts: [(String, UInt64, UInt64)] = [
            ("md_entries", record.entries, tally.entries),
            ("md_branch_pages", record.branchPages, tally.branchPages),
            ("md_leaf_pages", record.leafPages, tally.leafPages),
            ("md_overflow_pages", record.overflowPages, tally.overflowPages),
        ]
        for (field, recorded, found) in counts where recorded != found {
            throw damage(
                holder, field, recorded,
                "the record of \(tree.name) says \(field) = \(recorded), but its tree holds \(found)")
        }
    }

    // MARK: Pages

    private mutating func visit(_ number: UInt64, role: @autoclosure () -> String) throws {
        let word = Int(number >> 6)
        let bit = UInt64(1) << (number & 63)
        guard visited[word] & bit == 0 else {
            throw LMDBPageDamage(
                page: number, role: role(), field: "mp_pgno", value: String(number),
                reason:
                    "the page is reached a second time: the trees refer to it twice (a cycle, or a page shared by two parents)"
            )
        }
        visited[word] |= bit
        pagesRead += 1
    }

    private func pointer(_ number: UInt64) -> UnsafeRawPointer { base + Int(number) * pageSize }

    private mutating func walkPage(_ number: UInt64, level: Int, tree: Tree, tally: inout Tally) throws {
        let isLeaf = level == tree.depth
        // Built only for a message: nothing is allocated per page on the way.
        func role() -> String {
            (isLeaf ? "leaf page" : "branch page") + " of \(tree.name), level \(level) of \(tree.depth)"
        }
        try visit(number, role: role())
        let page = pointer(number)
        let recorded = page.load(at: 0, as: UInt64.self)
        guard recorded == number else {
            throw LMDBPageDamage(
                page: number, role: role(), field: "mp_pgno", value: String(recorded),
                reason: "the page's header says it is page \(recorded)")
        }
        let flags = page.load(at: 10, as: UInt16.self)
        let expected: UInt16 =
            !isLeaf
            ? LMDBPageFormat.branchPage
            : tree.fixedSize > 0 ? LMDBPageFormat.leafPage | LMDBPageFormat.leaf2Page : LMDBPageFormat.leafPage
        guard flags == expected else {
            throw LMDBPageDamage(
                page: number, role: role(), field: "mp_flags", value: "0x" + String(flags, radix: 16),
                reason:
                    "mp_flags is 0x\(String(flags, radix: 16)); at this place of the tree the page must be a \(isLeaf ? "leaf" : "branch") page (0x\(String(expected, radix: 16)))"
            )
        }
        let (count, upper) = try bounds(page, size: pageSize, page: number, role: role())
        if !isLeaf {
            let minimum = tree.kind == .free ? 1 : 2
            guard count >= minimum else {
                throw LMDBPageDamage(
                    page: number, role: role(), field: "mp_lower", value: String(page.load(at: 12, as: UInt16.self)),
                    reason:
                        "the branch page holds \(count) node\(count == 1 ? "" : "s"); it must hold at least \(minimum)")
            }
            tally.branchPages += 1
            for index in 0..<count {
                let node = try self.node(index, in: page, size: pageSize, upper: upper, page: number, role: role())
                let child = UInt64(node.lo) | UInt64(node.hi) << 16 | UInt64(node.flags) << 32
                guard child >= LMDBPageFormat.metaPageCount, child <= lastPage else {
                    throw LMDBPageDamage(
                        page: number, role: role(), field: "mp_ptrs[\(index)] child page number", value: String(child),
                        reason:
                            "node \(index) points to child page \(child), outside pages 2...\(lastPage) of the snapshot"
                    )
                }
                try walkPage(child, level: level + 1, tree: tree, tally: &tally)
            }
            return
        }
        tally.leafPages += 1
        guard count >= 1 else {
            throw LMDBPageDamage(
                page: number, role: role(), field: "mp_lower", value: String(page.load(at: 12, as: UInt16.self)),
                reason: "the leaf page holds no node")
        }
        if tree.fixedSize > 0 {
            guard LMDBPageFormat.headerSize + count * tree.fixedSize <= pageSize else {
                throw LMDBPageDamage(
                    page: number, role: role(), field: "mp_lower", value: String(page.load(at: 12, as: UInt16.self)),
                    reason: "\(count) values of \(tree.fixedSize) bytes do not fit the page")
            }
            tally.entries += UInt64(count)
            return
        }
        for index in 0..<count {
            try leafNode(index, in: page, upper: upper, page: number, role: role(), tree: tree, tally: &tally)
        }
    }

    /// Checks the header bounds of the page (or sub-page) of `size` bytes at `page`; returns its
    /// node count and `mp_upper`.
    private func bounds(_ page: UnsafeRawPointer, size: Int, page number: UInt64, role: @autoclosure () -> String)
        throws -> (count: Int, upper: Int)
    {
        let lower = Int(page.load(at: 12, as: UInt16.self))
        let upper = Int(page.load(at: 14, as: UInt16.self))
        guard upper <= size else {
            throw LMDBPageDamage(
                page: number, role: role(), field: "mp_upper", value: String(upper),
                reason: "mp_upper is \(upper), beyond the end of the \(size)-byte page")
        }
        guard lower >= LMDBPageFormat.headerSize, (lower - LMDBPageFormat.headerSize) % 2 == 0, lower <= upper else {
            throw LMDBPageDamage(
                page: number, role: role(), field: "mp_lower", value: String(lower),
                reason:
                    "mp_lower is \(lower); it must be even and lie between \(LMDBPageFormat.headerSize) and mp_upper (\(upper))"
            )
        }
        return ((lower - LMDBPageFormat.headerSize) / 2, upper)
    }

    private struct NodeHeader {
        var offset: Int
        var lo: UInt16
        var hi: UInt16
        var flags: UInt16
        var keySize: Int
        /// Where the node's data starts, from the start of its page.
        var dataOffset: Int { offset + LMDBPageFormat.nodeHeaderSize + keySize }
        /// A leaf node's data size.
        var dataSize: Int { Int(lo) | Int(hi) << 16 }
    }

    /// Node `index` of the page (or sub-page) of `size` bytes at `page`, whose header and key are
    /// checked to lie in its node area.
    private func node(
        _ index: Int, in page: UnsafeRawPointer, size: Int, upper: Int, page number: UInt64,
        role: @autoclosure () -> String
    ) throws -> NodeHeader {
        let offset = Int(page.load(at: LMDBPageFormat.headerSize + 2 * index, as: UInt16.self))
        guard offset >= upper, offset % 2 == 0, offset + LMDBPageFormat.nodeHeaderSize <= size else {
            throw LMDBPageDamage(
                page: number, role: role(), field: "mp_ptrs[\(index)]", value: String(offset),
                reason:
                    "node \(index) starts at offset \(offset), outside the node area \(upper)..<\(size) (nodes are 2-byte aligned)"
            )
        }
        let node = NodeHeader(
            offset: offset,
            lo: page.load(at: offset, as: UInt16.self),
            hi: page.load(at: offset + 2, as: UInt16.self),
            flags: page.load(at: offset + 4, as: UInt16.self),
            keySize: Int(page.load(at: offset + 6, as: UInt16.self)))
        guard node.dataOffset <= size else {
            throw LMDBPageDamage(
                page: number, role: role(), field: "mp_ptrs[\(index)] mn_ksize", value: String(node.keySize),
                reason:
                    "node \(index)'s key of \(node.keySize) bytes at offset \(offset + LMDBPageFormat.nodeHeaderSize) runs past the end of the \(size)-byte page"
            )
        }
        return node
    }

    private mutating func leafNode(
        _ index: Int, in page: UnsafeRawPointer, upper: Int, page number: UInt64, role: @autoclosure () -> String,
        tree: Tree, tally: inout Tally
    ) throws {
        let node = try self.node(index, in: page, size: pageSize, upper: upper, page: number, role: role())
        let flags = node.flags
        func field() -> String { "mp_ptrs[\(index)]" }
        func bad(_ what: String, _ value: some CustomStringConvertible, _ reason: String) -> LMDBPageDamage {
            LMDBPageDamage(
                page: number, role: role(), field: field() + " " + what, value: value.description,
                reason: "node \(index): " + reason)
        }
        let inNode = flags & LMDBPageFormat.bigData != 0 ? 8 : node.dataSize
        guard node.dataOffset + inNode <= pageSize else {
            throw bad(
                "mn_lo/mn_hi", node.dataSize,
                "its \(inNode) bytes of data at offset \(node.dataOffset) run past the end of the \(pageSize)-byte page"
            )
        }
        let data = page + node.dataOffset
        var flagText: String { "0x" + String(flags, radix: 16) }
        switch tree.kind {
        case .free:
            guard flags & ~LMDBPageFormat.bigData == 0 else {
                throw bad("mn_flags", flagText, "a free-list entry has node flags \(flagText)")
            }
            guard node.keySize == 8 else {
                throw bad(
                    "mn_ksize", node.keySize,
                    "a free-list entry's key is a transaction number of 8 bytes, not \(node.keySize)")
            }
            let list =
                flags & LMDBPageFormat.bigData != 0
                ? try overflow(data, size: node.dataSize, page: number, role: role(), field: field(), tally: &tally)
                : data
            guard node.dataSize >= 8 else {
                throw bad(
                    "mn_lo/mn_hi", node.dataSize, "a free-list entry of \(node.dataSize) bytes cannot hold its count")
            }
            let count = list.load(at: 0, as: UInt64.self)
            guard count <= UInt64(node.dataSize / 8 - 1) else {
                throw bad(
                    "free-list count", count,
                    "a free-list entry of \(node.dataSize) bytes cannot hold the \(count) page numbers it announces")
            }
            var position = 1
            while position <= Int(count) {
                let free = list.load(at: position * 8, as: UInt64.self)
                guard free >= LMDBPageFormat.metaPageCount, free <= lastPage else {
                    throw bad(
                        "free-list page number", free,
                        "the free list names page \(free), outside pages 2...\(lastPage) of the snapshot")
                }
                position += 1
            }
            tally.entries += 1
        case .main, .named:
            if tree.flags & LMDBPageFormat.dupSort == 0 {
                switch flags {
                case 0:
                    break
                case LMDBPageFormat.bigData:
                    _ = try overflow(
                        data, size: node.dataSize, page: number, role: role(), field: field(), tally: &tally)
                case LMDBPageFormat.subData where tree.kind == .main:
                    guard node.dataSize == LMDBPageFormat.databaseRecordSize else {
                        throw bad(
                            "mn_lo/mn_hi", node.dataSize,
                            "a named database's record is \(LMDBPageFormat.databaseRecordSize) bytes, not \(node.dataSize)"
                        )
                    }
                    let name = String(
                        decoding: UnsafeRawBufferPointer(
                            start: page + node.offset + LMDBPageFormat.nodeHeaderSize, count: min(node.keySize, 200)),
                        as: UTF8.self)
                    try checkRecord(
                        LMDBDatabaseRecord(data), tree: Tree(kind: .named, name: "database \(name)"),
                        holder: Holder(page: number, role: role(), field: field() + " (the record of database \(name))")
                    )
                default:
                    throw bad(
                        "mn_flags", flagText,
                        "node flags \(flagText) are not possible in \(tree.name), which does not sort duplicates")
                }
                tally.entries += 1
            } else {
                switch flags {
                case 0:
                    tally.entries += 1
                case LMDBPageFormat.dupData:
                    tally.entries += try subPage(
                        data, size: node.dataSize, page: number, role: role(), field: field(), tree: tree)
                case LMDBPageFormat.dupData | LMDBPageFormat.subData:
                    guard node.dataSize == LMDBPageFormat.databaseRecordSize else {
                        throw bad(
                            "mn_lo/mn_hi", node.dataSize,
                            "a duplicates sub-database's record is \(LMDBPageFormat.databaseRecordSize) bytes, not \(node.dataSize)"
                        )
                    }
                    let record = LMDBDatabaseRecord(data)
                    try checkRecord(
                        record,
                        tree: Tree(kind: .duplicates, name: "the duplicates sub-database of a key in \(tree.name)"),
                        holder: Holder(page: number, role: role(), field: field() + " (a duplicates sub-database)"),
                        parentFlags: tree.flags)
                    tally.entries += record.entries
                default:
                    throw bad(
                        "mn_flags", flagText,
                        "node flags \(flagText) are not possible in \(tree.name), which sorts duplicates")
                }
            }
        case .duplicates:
            guard flags == 0 else { throw bad("mn_flags", flagText, "a duplicate value's node has flags \(flagText)") }
            guard node.dataSize == 0 else {
                throw bad(
                    "mn_lo/mn_hi", node.dataSize, "a duplicate value's node carries \(node.dataSize) bytes of data")
            }
            tally.entries += 1
        }
    }

    /// Checks the overflow run that holds `size` bytes, whose first page number is stored at
    /// `reference`; returns where its data starts.
    private mutating func overflow(
        _ reference: UnsafeRawPointer, size: Int, page number: UInt64, role: @autoclosure () -> String,
        field: @autoclosure () -> String, tally: inout Tally
    ) throws -> UnsafeRawPointer {
        let first = reference.load(at: 0, as: UInt64.self)
        guard first >= LMDBPageFormat.metaPageCount, first <= lastPage else {
            throw LMDBPageDamage(
                page: number, role: role(), field: field() + " overflow page number", value: String(first),
                reason: "a node's data is on overflow page \(first), outside pages 2...\(lastPage) of the snapshot")
        }
        func runRole() -> String { "overflow page reached from page \(number)" }
        try visit(first, role: runRole())
        let run = pointer(first)
        let recorded = run.load(at: 0, as: UInt64.self)
        guard recorded == first else {
            throw LMDBPageDamage(
                page: first, role: runRole(), field: "mp_pgno", value: String(recorded),
                reason: "the page's header says it is page \(recorded)")
        }
        let flags = run.load(at: 10, as: UInt16.self)
        guard flags == LMDBPageFormat.overflowPage else {
            throw LMDBPageDamage(
                page: first, role: runRole(), field: "mp_flags", value: "0x" + String(flags, radix: 16),
                reason: "mp_flags is 0x\(String(flags, radix: 16)); the page must be an overflow page (0x4)")
        }
        let pages = UInt64(run.load(at: 12, as: UInt32.self))
        guard pages >= 1, first + pages - 1 <= lastPage,
            UInt64(LMDBPageFormat.headerSize + size) <= pages * UInt64(pageSize)
        else {
            throw LMDBPageDamage(
                page: first, role: runRole(), field: "mp_pages", value: String(pages),
                reason:
                    "a run of \(pages) pages from page \(first) cannot hold the node's \(size) bytes inside pages 2...\(lastPage)"
            )
        }
        for next in (first + 1)..<(first + pages) {
            try visit(next, role: "page \(next - first) of the overflow run from page \(first)")
        }
        tally.overflowPages += pages
        return run + LMDBPageFormat.headerSize
    }

    /// Checks the sub-page of `size` bytes at `start` (a key's duplicates); returns its value count.
    private func subPage(
        _ start: UnsafeRawPointer, size: Int, page number: UInt64, role: @autoclosure () -> String,
        field: @autoclosure () -> String, tree: Tree
    ) throws -> UInt64 {
        func subRole() -> String { "a sub-page in \(role())" }
        guard size >= LMDBPageFormat.headerSize else {
            throw LMDBPageDamage(
                page: number, role: subRole(), field: field() + " mn_lo/mn_hi", value: String(size),
                reason: "a sub-page of \(size) bytes is smaller than a page header")
        }
        let fixed = tree.flags & LMDBPageFormat.dupFixed != 0
        let expected = LMDBPageFormat.leafPage | LMDBPageFormat.subPage | (fixed ? LMDBPageFormat.leaf2Page : 0)
        let flags = start.load(at: 10, as: UInt16.self)
        guard flags & ~LMDBPageFormat.dirtyPage == expected else {
            throw LMDBPageDamage(
                page: number, role: subRole(), field: field() + " sub-page mp_flags",
                value: "0x" + String(flags, radix: 16),
                reason:
                    "the sub-page's mp_flags is 0x\(String(flags, radix: 16)); it must be 0x\(String(expected, radix: 16))"
            )
        }
        let (count, upper) = try bounds(start, size: size, page: number, role: subRole())
        guard count >= 1 else {
            throw LMDBPageDamage(
                page: number, role: subRole(), field: field() + " sub-page mp_lower", value: String(count),
                reason: "the sub-page holds no value")
        }
        if fixed {
            let width = Int(start.load(at: 8, as: UInt16.self))
            guard width > 0, LMDBPageFormat.headerSize + count * width <= size else {
                throw LMDBPageDamage(
                    page: number, role: subRole(), field: field() + " sub-page mp_pad", value: String(width),
                    reason: "\(count) values of \(width) bytes do not fit the \(size)-byte sub-page")
            }
            return UInt64(count)
        }
        for index in 0..<count {
            let node = try self.node(index, in: start, size: size, upper: upper, page: number, role: subRole())
            guard node.flags == 0, node.dataSize == 0 else {
                throw LMDBPageDamage(
                    page: number, role: subRole(), field: field() + " sub-page node \(index)",
                    value: "flags 0x\(String(node.flags, radix: 16)), \(node.dataSize) bytes",
                    reason: "a duplicate value's node has flags or data")
            }
        }
        return UInt64(count)
    }
}
