/// The on-disk layout of an LMDB 0.9 data file (`data.mdb`), as liblmdb's `mdb.c` writes it on a
/// 64-bit host, in host byte order: `MDB_page`, `MDB_meta`, `MDB_db` and `MDB_node`. Only what
/// ``LMDBPageCheck`` reads.
///
/// ```
/// MDB_page (PAGEHDRSZ = 16 bytes)      MDB_node (NODESIZE = 8 bytes, then key, then data)
///   0  u64  mp_pgno                      0  u16  mn_lo    data size (leaf) or page number
///   8  u16  mp_pad (LEAF2 key size)      2  u16  mn_hi    bits 0-31 (branch)
///  10  u16  mp_flags                     4  u16  mn_flags node flags (leaf) or page number
///  12  u16  mp_lower | u32 mp_pages      6  u16  mn_ksize  bits 32-47 (branch)
///  14  u16  mp_upper                     8  key bytes, then (leaf) data bytes or, with
///  16  u16  mp_ptrs[]: node offsets          F_BIGDATA, the u64 number of an overflow page
///
/// MDB_meta (at offset 16 of pages 0 and 1)   MDB_db (48 bytes)
///   0  u32  mm_magic  0xBEEFC0DE               0  u32  md_pad (page size in mm_dbs[0];
///   4  u32  mm_version  1                                  LEAF2 key size in a sub-database)
///   8  u64  mm_address                         4  u16  md_flags
///  16  u64  mm_mapsize                         6  u16  md_depth
///  24  MDB_db mm_dbs[0]: free pages            8  u64  md_branch_pages
///  72  MDB_db mm_dbs[1]: main database        16  u64  md_leaf_pages
/// 120  u64  mm_last_pg                        24  u64  md_overflow_pages
/// 128  u64  mm_txnid                          32  u64  md_entries
///                                             40  u64  md_root (P_INVALID: ~0 when empty)
/// ```
///
/// A page's node area runs from `mp_upper` to the end of the page; its pointer array from 16 to
/// `mp_lower`, so it holds `(mp_lower - 16) / 2` nodes. An overflow run is `mp_pages` contiguous
/// pages, with a header on its first page only. A sub-page (a `MDB_DUPSORT` key's few values) is a
/// whole page, header included, inside a leaf node's data; its offsets count from its own start.
enum LMDBPageFormat {
    /// `PAGEHDRSZ`: the size of a page header.
    static let headerSize = 16
    /// `NODESIZE`: the size of a node header.
    static let nodeHeaderSize = 8
    /// Where `MDB_meta` starts in a meta page.
    static let metaOffset = 16
    /// `sizeof(MDB_meta)`.
    static let metaSize = 136
    /// `sizeof(MDB_db)`.
    static let databaseRecordSize = 48
    /// `MDB_MAGIC`.
    static let magic: UInt32 = 0xBEEF_C0DE
    /// `MDB_DATA_VERSION`.
    static let dataVersion: UInt32 = 1
    /// `P_INVALID`: the root of an empty database.
    static let invalidPage = UInt64.max
    /// `NUM_METAS`: pages 0 and 1 are meta pages.
    static let metaPageCount: UInt64 = 2
    /// `CURSOR_STACK`: the deepest tree liblmdb can walk.
    static let maximumDepth = 32
    /// The page sizes accepted: powers of two up to `MAX_PAGESIZE` (32 KiB, so that an offset
    /// fits `mp_upper`). liblmdb uses the system's page size, 4 KiB on Linux.
    static let pageSizes = 512...32768

    // Page flags (mp_flags).
    static let branchPage: UInt16 = 0x01
    static let leafPage: UInt16 = 0x02
    static let overflowPage: UInt16 = 0x04
    static let metaPage: UInt16 = 0x08
    static let dirtyPage: UInt16 = 0x10
    static let leaf2Page: UInt16 = 0x20
    static let subPage: UInt16 = 0x40

    // Node flags (mn_flags of a leaf node).
    static let bigData: UInt16 = 0x01
    static let subData: UInt16 = 0x02
    static let dupData: UInt16 = 0x04

    // Database flags (md_flags).
    static let reverseKey: UInt16 = 0x02
    static let dupSort: UInt16 = 0x04
    static let integerKey: UInt16 = 0x08
    static let dupFixed: UInt16 = 0x10
    static let integerDup: UInt16 = 0x20
    static let reverseDup: UInt16 = 0x40
    /// Every flag a database record may carry (`PERSISTENT_FLAGS` that `mdb_dbi_open` accepts).
    static let databaseFlags: UInt16 = reverseKey | dupSort | integerKey | dupFixed | integerDup | reverseDup
    /// The environment flags liblmdb keeps in the free database's `md_flags` (`mm_flags`):
    /// `MDB_FIXEDMAP`, `MDB_INTEGERKEY` (always) and `MDB_NOSUBDIR`.
    static let environmentFlags: UInt16 = 0x01 | integerKey | 0x4000
    /// The flags of a sorted-duplicates sub-database's record.
    static let subDatabaseFlags: UInt16 = dupFixed | integerKey

    /// Whether `size` is a page size liblmdb can have written.
    static func isPageSize(_ size: Int) -> Bool {
        pageSizes.contains(size) && size & (size - 1) == 0
    }
}

extension UnsafeRawPointer {
    /// The `T` at `offset`, in host byte order, whatever its alignment.
    @inline(__always)
    func load<T: FixedWidthInteger>(at offset: Int, as type: T.Type) -> T {
        loadUnaligned(fromByteOffset: offset, as: T.self)
    }
}

/// One `MDB_db` record: a database's root, depth, page counts and flags.
struct LMDBDatabaseRecord: Equatable {
    /// `md_pad`: the page size in the free database's record; the key size of `MDB_DUPFIXED` values.
    var pad: UInt32
    /// `md_flags`.
    var flags: UInt16
    /// `md_depth`: the number of levels of the tree (0 when empty).
    var depth: UInt16
    /// `md_branch_pages`.
    var branchPages: UInt64
    /// `md_leaf_pages`.
    var leafPages: UInt64
    /// `md_overflow_pages`.
    var overflowPages: UInt64
    /// `md_entries`: the number of values (every duplicate counts).
    var entries: UInt64
    /// `md_root`, or ``LMDBPageFormat/invalidPage`` when the database is empty.
    var root: UInt64

    /// Reads the record at `pointer`.
    init(_ pointer: UnsafeRawPointer) {
        pad = pointer.load(at: 0, as: UInt32.self)
        flags = pointer.load(at: 4, as: UInt16.self)
        depth = pointer.load(at: 6, as: UInt16.self)
        branchPages = pointer.load(at: 8, as: UInt64.self)
        leafPages = pointer.load(at: 16, as: UInt64.self)
        overflowPages = pointer.load(at: 24, as: UInt64.self)
        entries = pointer.load(at: 32, as: UInt64.self)
        root = pointer.load(at: 40, as: UInt64.self)
    }
}

/// One meta page (page 0 or 1): the entry point of a committed snapshot.
struct LMDBMetaPage: Equatable {
    /// `mp_pgno` of the page.
    var pageNumber: UInt64
    /// `mp_flags` of the page.
    var pageFlags: UInt16
    /// `mm_magic`.
    var magic: UInt32
    /// `mm_version`.
    var version: UInt32
    /// `mm_mapsize`.
    var mapSize: UInt64
    /// `mm_dbs[0]`: the free-page database.
    var free: LMDBDatabaseRecord
    /// `mm_dbs[1]`: the main (unnamed) database, whose `F_SUBDATA` nodes are the named ones.
    var main: LMDBDatabaseRecord
    /// `mm_last_pg`: the last page the snapshot uses.
    var lastPage: UInt64
    /// `mm_txnid`: the transaction that committed the snapshot.
    var transaction: UInt64

    /// The number of bytes a meta page's header and `MDB_meta` take.
    static let byteCount = LMDBPageFormat.metaOffset + LMDBPageFormat.metaSize

    /// Reads the meta page at `pointer` (``byteCount`` bytes).
    init(_ pointer: UnsafeRawPointer) {
        pageNumber = pointer.load(at: 0, as: UInt64.self)
        pageFlags = pointer.load(at: 10, as: UInt16.self)
        let meta = pointer + LMDBPageFormat.metaOffset
        magic = meta.load(at: 0, as: UInt32.self)
        version = meta.load(at: 4, as: UInt32.self)
        mapSize = meta.load(at: 16, as: UInt64.self)
        free = LMDBDatabaseRecord(meta + 24)
        main = LMDBDatabaseRecord(meta + 72)
        lastPage = meta.load(at: 120, as: UInt64.self)
        transaction = meta.load(at: 128, as: UInt64.self)
    }

    /// `mm_psize`, kept in the free database's `md_pad`.
    var pageSize: Int { Int(free.pad) }
}
