import StrataCore

extension LMDBStore {
    /// How a fetch finds its candidates, for the log (`strata.lmdb` at `debug`): `statistics` (the
    /// count of a whole entity), `keys` (object IDs or `SELF` in the predicate), `toOne NAME`,
    /// `index NAME`, `unique (A, B)`, or `scan`. Names only, never the compared values.
    func accessDescription(of request: FetchRequest, _ layout: EntityLayout) -> String {
        if request.objectIDs != nil { return "keys" }
        guard let predicate = request.predicate else {
            return request.resultType == .count ? "statistics" : "scan"
        }
        switch AccessPath.choose(for: predicate, layout) {
        case nil: return "scan"
        case .keys?: return "keys"
        case .toOne(let position, _)?: return "toOne " + layout.entity.relationships[position].name
        case .ranges(let secondary, _)?:
            switch secondary.kind {
            case .index(let name): return "index " + name
            case .unique:
                return "unique ("
                    + secondary.attributes.map { layout.entity.attributes[$0].name }.joined(separator: ", ")
                    + ")"
            case .toOne(let position): return "toOne " + layout.entity.relationships[position].name
            }
        }
    }
}

extension FetchResult {
    /// How many rows the result has: objects, IDs, dictionaries, or the count itself.
    var rowCount: Int {
        switch self {
        case .snapshots(let snapshots): snapshots.count
        case .objectIDs(let ids): ids.count
        case .count(let count): count
        case .dictionaries(let rows): rows.count
        }
    }
}
