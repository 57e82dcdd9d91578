/// The rows of a SQL store's metadata table (`_strata_metadata`: one `(key, value)` row per
/// key), read into ``StoreMetadata``: Strata's own keys (`storeIdentifier`, `storeType`,
/// `modelVersionHash`, `modelVersionIdentifier`), the application's as `user:<key>`. The models
/// a store carries (`model:<hash>`) are read apart, when asked for.
package enum MetadataRows {
    /// The prefix of the application's keys.
    package static let userPrefix = "user:"
    /// The prefix of the keys holding model JSON.
    package static let modelPrefix = "model:"

    /// The metadata of `rows`, or `nil` when they lack the store identifier or the model hash.
    package static func metadata(
        _ rows: some Sequence<(key: String, value: String)>, defaultStoreType: String
    ) -> StoreMetadata? {
        var values: [String: String] = [:]
        var user: [String: String] = [:]
        for (key, value) in rows {
            if key.hasPrefix(userPrefix) {
                user[String(key.dropFirst(userPrefix.count))] = value
            } else {
                values[key] = value
            }
        }
        guard let identifier = values["storeIdentifier"], let hash = values["modelVersionHash"] else { return nil }
        return StoreMetadata(
            storeIdentifier: identifier,
            storeType: values["storeType"] ?? defaultStoreType,
            modelVersionHash: hash,
            modelVersionIdentifier: values["modelVersionIdentifier"] ?? "",
            userInfo: user)
    }
}
