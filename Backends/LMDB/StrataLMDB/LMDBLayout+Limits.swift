import CStrataLMDB
import StrataCore

extension LMDBLayout {
    /// Checks that the named databases a store of `model` needs fit in an environment: at most
    /// ``LMDBEnvironment/maxDatabases`` of them, each name no longer than LMDB's key size (names
    /// are keys of the main database). Values and index keys have no limit a model can reach
    /// (long index keys are truncated, see ``IndexKey``).
    ///
    /// - Throws: ``StrataError/Code/invalidModel`` naming the entity, the limit and the count.
    static func checkLimits(of model: Model) throws {
        let maximumNameLength = maximumKeySize()
        var count = 2
        for entity in model.entities {
            var names = [records(entity.name)]
            names += entity.indexes.map { index(entity.name, $0.name) }
            names += entity.uniqueConstraints.map { unique(entity.name, $0) }
            names += entity.relationships.filter { !$0.isToMany }.map { toOne(entity.name, $0.name) }
            for name in names where name.utf8.count > maximumNameLength {
                throw StrataError(
                    .invalidModel,
                    "the entity '\(entity.name)' needs an LMDB database named '\(name.prefix(80))…' of \(name.utf8.count) bytes, but LMDB allows at most \(maximumNameLength) (its key size); shorten the names of the entity, index or constraint",
                    location: [
                        "entity": entity.name, "limit": String(maximumNameLength), "count": String(name.utf8.count),
                    ])
            }
            count += names.count
            if count > Int(LMDBEnvironment.maxDatabases) {
                throw StrataError(
                    .invalidModel,
                    "the model needs \(count) or more LMDB databases (one per entity, index, unique constraint and to-one relationship) by the entity '\(entity.name)', but a store holds at most \(LMDBEnvironment.maxDatabases)",
                    location: [
                        "entity": entity.name, "limit": String(LMDBEnvironment.maxDatabases), "count": String(count),
                    ])
            }
        }
    }

    /// `mdb_env_get_maxkeysize` of an environment that is created but never opened (so no file
    /// is touched); LMDB's default build says 511.
    static func maximumKeySize() -> Int {
        var env: OpaquePointer?
        guard mdb_env_create(&env) == 0, let env else { return IndexKey.maximumLength }
        defer { mdb_env_close(env) }
        return Int(mdb_env_get_maxkeysize(env))
    }
}
