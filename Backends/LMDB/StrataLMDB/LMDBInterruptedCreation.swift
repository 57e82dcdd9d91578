import CStrataLMDB
import StrataCore

extension LMDBEnvironment {
    /// Whether the store's creation was interrupted: earlier versions created a store in place,
    /// committing its (empty) named databases in one transaction and writing `_meta` in the
    /// next, so a process killed between the two left `_meta` present but empty. (Stores are now
    /// built aside and appear whole, see ``LMDBStoreCreation``.) Such an environment holds no
    /// data; opening it finishes the creation (or, when it may not create, reports
    /// `storeNotFound`), instead of refusing it for ever as damaged.
    func creationWasInterrupted() throws -> Bool {
        guard try hasDatabase(LMDBLayout.metadataDatabase) else { return false }
        let meta = try openDatabases([(LMDBLayout.metadataDatabase, 0)], create: false)[LMDBLayout.metadataDatabase]!
        return try read { txn in
            var stat = MDB_stat()
            try check(mdb_stat(txn.handle, meta, &stat), "mdb_stat(\(LMDBLayout.metadataDatabase))")
            return stat.ms_entries == 0
        }
    }
}
